import type { WebSocket } from 'ws';

/**
 * Socket fan-out without a cost per socket beyond the write (docs/ARCHITECTURE.md#sockets):
 * a message is encoded once into a whole WebSocket text frame (header and payload in one
 * Buffer) and the same Buffer goes to every socket; a socket's frames of one event-loop turn
 * leave in one write. ws's own `send` would, per socket and message, copy its options, build
 * a header and make two stream writes; at 10,000 sockets that was most of a tick's cost.
 */

/** One server-to-client text frame (unmasked, final), built once. */
export function textFrame(payload: string): Buffer {
  return textFrames([payload]);
}

/** Several text frames laid end to end in one Buffer (one allocation, one write for a socket's burst). */
export function textFrames(payloads: readonly string[]): Buffer {
  let total = 0;
  const lengths: number[] = [];
  for (const payload of payloads) {
    const length = Buffer.byteLength(payload);
    lengths.push(length);
    total += headerLength(length) + length;
  }
  const frames = Buffer.allocUnsafe(total);
  let at = 0;
  for (let i = 0; i < payloads.length; i++) {
    const length = lengths[i]!;
    frames[at] = 0x81; // FIN, opcode 1 (text)
    if (length < 126) frames[at + 1] = length;
    else if (length < 65_536) {
      frames[at + 1] = 126;
      frames.writeUInt16BE(length, at + 2);
    } else {
      frames[at + 1] = 127;
      frames.writeBigUInt64BE(BigInt(length), at + 2);
    }
    at += headerLength(length);
    at += frames.write(payloads[i]!, at, 'utf8');
  }
  return frames;
}

function headerLength(payloadLength: number): number {
  return payloadLength < 126 ? 2 : payloadLength < 65_536 ? 4 : 10;
}

/**
 * The payloads of one or more whole frames built by `textFrame` and laid end to end (for a
 * socket that cannot take whole frames).
 */
export function framePayloads(frames: Buffer): Buffer[] {
  const payloads: Buffer[] = [];
  let at = 0;
  while (at < frames.length) {
    const length7 = frames[at + 1]! & 0x7f;
    const header = length7 < 126 ? 2 : length7 === 126 ? 4 : 10;
    const length =
      length7 < 126 ? length7 : length7 === 126 ? frames.readUInt16BE(at + 2) : Number(frames.readBigUInt64BE(at + 2));
    payloads.push(frames.subarray(at + header, at + header + length));
    at += header + length;
  }
  return payloads;
}

interface RawStream {
  writable: boolean;
  writableLength: number;
  write(chunk: Buffer): boolean;
}

/** Outboxes with frames waiting for the end of this event-loop turn. */
const dueThisTurn: FrameOutbox[] = [];
let flushScheduled = false;

function flushTurn(): void {
  flushScheduled = false;
  // An outbox flushed here may not be queued again in this loop: it is written, then forgotten.
  for (let i = 0; i < dueThisTurn.length; i++) dueThisTurn[i]!.flush();
  dueThisTurn.length = 0;
}

/**
 * The frames waiting for one socket. Frames pushed during an event-loop turn are written
 * together when the turn ends (one write, one syscall), straight to the socket's TCP stream,
 * in order. Writing whole frames beside ws is safe because ws itself only ever writes whole
 * frames and our server runs without per-message compression (app.ts); a socket that
 * negotiated an extension anyway goes through ws's `send`, frame by frame.
 */
export class FrameOutbox {
  /** Null while empty, one frame, or several (most sockets hold one or none). */
  private pending: Buffer | Buffer[] | null = null;
  private pendingBytes = 0;
  private readonly raw: RawStream | null;

  constructor(private readonly socket: WebSocket) {
    // ws has no API for a pre-built frame; the net.Socket under it is a stable internal of ws 8.
    const raw = (socket as unknown as { _socket?: RawStream | null })._socket ?? null;
    this.raw = raw && socket.extensions === '' ? raw : null;
  }

  /** Bytes accepted but not yet sent: ours still waiting plus what the socket holds. */
  get bufferedBytes(): number {
    return this.pendingBytes + this.socket.bufferedAmount;
  }

  /** Queues one whole frame, or several laid end to end, for the end of this turn. */
  push(frame: Buffer): void {
    if (this.pending === null) {
      this.pending = frame;
      dueThisTurn.push(this);
      if (!flushScheduled) {
        flushScheduled = true;
        setImmediate(flushTurn);
      }
    } else if (Array.isArray(this.pending)) this.pending.push(frame);
    else this.pending = [this.pending, frame];
    this.pendingBytes += frame.length;
  }

  /** Writes what waits now (also before a close frame, which ws writes at once). */
  flush(): void {
    const pending = this.pending;
    if (pending === null) return;
    this.pending = null;
    const bytes = this.pendingBytes;
    this.pendingBytes = 0;
    if (this.socket.readyState !== this.socket.OPEN) return;
    const raw = this.raw;
    if (raw === null) {
      for (const frames of Array.isArray(pending) ? pending : [pending])
        for (const payload of framePayloads(frames)) this.socket.send(payload, { binary: false });
      return;
    }
    if (!raw.writable) return;
    raw.write(Array.isArray(pending) ? Buffer.concat(pending, bytes) : pending);
  }

  /** Drops what waits (the socket is being cut off). */
  discard(): void {
    this.pending = null;
    this.pendingBytes = 0;
  }
}
