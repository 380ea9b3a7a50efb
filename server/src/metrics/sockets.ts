import type { IncomingMessage } from 'node:http';
import type { WebSocketServer } from 'ws';
import type { Metrics, SocketKind } from './types.js';

/**
 * Counts open sockets by kind from the WebSocket server itself (docs/operations.md#metrics):
 * every upgrade passes through it, so the socket modules need no counting of their own.
 */
export function instrumentSockets(server: WebSocketServer, metrics: Metrics): void {
  server.on('connection', (socket, request: IncomingMessage) => {
    const kind = socketKind(request.url);
    if (!kind) return;
    metrics.socketOpened(kind);
    socket.once('close', () => metrics.socketClosed(kind));
  });
}

function socketKind(url: string | undefined): SocketKind | undefined {
  if (url?.startsWith('/ws/prices')) return 'price';
  if (url?.startsWith('/ws/trading')) return 'trading';
  return undefined;
}
