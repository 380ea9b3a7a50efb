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

/**
 * Writes of frames that can wait (`push(frame, { canWait: true })`) made per event-loop turn;
 * the rest go in the next turns. A paced price broadcast to 10,000 sockets is 10,000 writes,
 * some 80 ms of one thread on two cores (bench/README.md#the-floor): written at once, it held
 * back every tick that arrived meanwhile and the P&L that tick moved. In slices, a tick is read
 * between two slices and its frames go before the rest of the broadcast
 * (docs/ARCHITECTURE.md#sockets).
 */
export const WAITING_WRITES_PER_TURN = 500;

/** An outbox is in no queue, in the queue of this turn, or in the queue that is written in slices. */
const NOT_QUEUED = 0;
const NOW = 1;
const CAN_WAIT = 2;

/** Outboxes with frames for the end of this event-loop turn. */
const dueThisTurn: FrameOutbox[] = [];
/**
 * Outboxes whose frames can wait, written WAITING_WRITES_PER_TURN a turn from `nextWaiting`.
 * An outbox written meanwhile with frames of this turn leaves its entry behind; reaching it
 * writes whatever the outbox holds by then, often nothing.
 */
const waiting: FrameOutbox[] = [];
let nextWaiting = 0;
/** Entries ever added to `waiting` and ever reached, so a caller can wait for those queued so far. */
let waitingQueued = 0;
let waitingReached = 0;
const whenReached: Array<{ at: number; fn: () => void }> = [];
let flushScheduled = false;

function scheduleFlush(): void {
  if (flushScheduled) return;
  flushScheduled = true;
  setImmediate(flushTurn);
}

function flushTurn(): void {
  flushScheduled = false;
  // An outbox flushed here may not be queued again in this loop: it is written, then forgotten.
  for (let i = 0; i < dueThisTurn.length; i++) dueThisTurn[i]!.flush();
  dueThisTurn.length = 0;
  const end = Math.min(waiting.length, nextWaiting + WAITING_WRITES_PER_TURN);
  waitingReached += end - nextWaiting;
  for (; nextWaiting < end; nextWaiting++) waiting[nextWaiting]!.flush();
  if (nextWaiting === waiting.length) {
    waiting.length = 0;
    nextWaiting = 0;
  } else {
    // Under a backlog that never empties, the written head is dropped now and then.
    if (nextWaiting >= 4 * WAITING_WRITES_PER_TURN) {
      waiting.splice(0, nextWaiting);
      nextWaiting = 0;
    }
    scheduleFlush();
  }
  // Registered in the order of `waitingQueued`, which only grows: the ready ones are in front.
  while (whenReached.length > 0 && whenReached[0]!.at <= waitingReached) whenReached.shift()!.fn();
}

/**
 * Runs `fn` once every frame queued so far has been written: on the next immediate when none
 * waits, else right after the last such write (a fan-out's timing: streams.ts).
 */
export function afterQueuedWrites(fn: () => void): void {
  if (waitingReached >= waitingQueued) setImmediate(fn);
  else whenReached.push({ at: waitingQueued, fn });
}

/**
 * The frames waiting for one socket. Frames pushed during an event-loop turn are written
 * together when the turn ends (one write, one syscall), straight to the socket's TCP stream,
 * in order; frames that can wait may leave a few turns later, with whatever joined them.
 * Writing whole frames beside ws is safe because ws itself only ever writes whole frames and
 * our server runs without per-message compression (app.ts); a socket that negotiated an
 * extension anyway goes through ws's `send`, frame by frame.
 */
export class FrameOutbox {
  /** Null while empty, one frame, or several (most sockets hold one or none). */
  private pending: Buffer | Buffer[] | null = null;
  private pendingBytes = 0;
  private queued = NOT_QUEUED;
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

  /**
   * Queues one whole frame, or several laid end to end, for the end of this turn; with
   * `canWait`, for a later turn when others are due first (WAITING_WRITES_PER_TURN). A socket's
   * frames keep their order and leave together: one pushed now takes those waiting with it.
   */
  push(frame: Buffer, options?: { canWait: boolean }): void {
    if (this.pending === null) this.pending = frame;
    else if (Array.isArray(this.pending)) this.pending.push(frame);
    else this.pending = [this.pending, frame];
    this.pendingBytes += frame.length;
    if (options?.canWait) {
      if (this.queued !== NOT_QUEUED) return;
      this.queued = CAN_WAIT;
      waiting.push(this);
      waitingQueued += 1;
    } else {
      if (this.queued === NOW) return;
      this.queued = NOW;
      dueThisTurn.push(this);
    }
    scheduleFlush();
  }

  /** Writes what waits now (also before a close frame, which ws writes at once). */
  flush(): void {
    const pending = this.pending;
    if (pending === null) return;
    this.pending = null;
    this.queued = NOT_QUEUED;
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
    this.queued = NOT_QUEUED;
    this.pendingBytes = 0;
  }
}
