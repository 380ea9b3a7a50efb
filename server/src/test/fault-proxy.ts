import net from 'node:net';

/**
 * A TCP proxy the fault tests put between the server and PostgreSQL or Redis, to cut,
 * refuse, slow or break the connection on command (docs/operations.md#outages).
 * Test-only: never imported by production code.
 */
export interface FaultProxy {
  /** The local port to connect to instead of the target's. */
  port: number;
  /** Destroy every open connection and refuse new ones (an outage). */
  cut(): void;
  /** Refuse new connections but keep the open ones (a full server, a firewall change). */
  refuse(): void;
  /** Delay every chunk, both ways, by `ms` (a slow link); 0 turns it off. */
  slow(ms: number): void;
  /** Pass the next chunk through, then destroy that connection halfway (the link drops mid-answer). */
  dropMidStream(): void;
  /** Back to a plain pass-through. */
  heal(): void;
  /** Connections currently open through the proxy. */
  openConnections(): number;
  close(): Promise<void>;
}

interface Pair {
  client: net.Socket;
  upstream: net.Socket;
}

export async function startFaultProxy(target: { host: string; port: number }): Promise<FaultProxy> {
  const pairs = new Set<Pair>();
  let refusing = false;
  let delayMs = 0;
  let dropNext = false;

  const destroy = (pair: Pair) => {
    pair.client.destroy();
    pair.upstream.destroy();
    pairs.delete(pair);
  };

  // Forward one direction, with the current delay and the pending mid-stream drop applied.
  const pipe = (from: net.Socket, to: net.Socket, pair: Pair) => {
    from.on('data', (chunk: Buffer) => {
      const send = () => {
        if (to.destroyed) return;
        if (dropNext && chunk.length > 1) {
          dropNext = false;
          to.write(chunk.subarray(0, Math.floor(chunk.length / 2)), () => destroy(pair));
          return;
        }
        to.write(chunk);
      };
      if (delayMs > 0) {
        // Keep the order of chunks: pause the reader until this one is sent.
        from.pause();
        setTimeout(() => {
          send();
          from.resume();
        }, delayMs);
      } else send();
    });
  };

  const server = net.createServer((client) => {
    if (refusing) {
      client.destroy();
      return;
    }
    const upstream = net.connect(target.port, target.host);
    const pair: Pair = { client, upstream };
    pairs.add(pair);
    client.on('error', () => destroy(pair));
    upstream.on('error', () => destroy(pair));
    client.on('close', () => destroy(pair));
    upstream.on('close', () => destroy(pair));
    pipe(client, upstream, pair);
    pipe(upstream, client, pair);
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('fault proxy: no TCP address');

  return {
    port: address.port,
    cut() {
      refusing = true;
      for (const pair of [...pairs]) destroy(pair);
    },
    refuse() {
      refusing = true;
    },
    slow(ms: number) {
      delayMs = Math.max(0, ms);
    },
    dropMidStream() {
      dropNext = true;
    },
    heal() {
      refusing = false;
      delayMs = 0;
      dropNext = false;
    },
    openConnections: () => pairs.size,
    close() {
      refusing = true;
      for (const pair of [...pairs]) destroy(pair);
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
