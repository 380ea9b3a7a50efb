import type { TradingServerMessageMap, TradingServerMessageType } from '@pipdesk/contract';
import { textFrame } from '../../http/socket-frames.js';

/** A /ws/trading/ message (the contract's typed map, docs/api.md#trading-socket) as JSON text. */
export function messageJson<K extends TradingServerMessageType>(type: K, payload: TradingServerMessageMap[K]): string {
  return JSON.stringify({ type, ...payload });
}

/**
 * Encodes a /ws/trading/ message once as a whole WebSocket text frame, so fan-out to many
 * sockets neither re-serializes nor re-frames it.
 */
export function encodeMessage<K extends TradingServerMessageType>(type: K, payload: TradingServerMessageMap[K]): Buffer {
  return textFrame(messageJson(type, payload));
}
