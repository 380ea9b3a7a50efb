import { type FileHandle, open } from 'node:fs/promises';

/** Makes what SQLite has committed durable, off the event loop; see `createWalSync`. */
export interface WalSync {
  /** Resolves once everything committed before the call is on disk; rejects on an I/O error. */
  sync(): Promise<void>;
  /** Waits for the syncs under way, then closes the file. */
  close(): Promise<void>;
}

/**
 * Durability for a SQLite file in WAL mode run with `synchronous = NORMAL`.
 *
 * With `synchronous = FULL` SQLite fsyncs the WAL inside COMMIT, and better-sqlite3 runs
 * COMMIT on the event loop: every commit stalls every request and socket for the length of
 * an fsync (0.3 to several ms). With NORMAL a commit only appends its frames to the WAL;
 * this fdatasyncs the WAL on libuv's thread pool instead, and callers answer only once it
 * resolves, so an acknowledged write is on disk exactly as under FULL. Unsynced frames can
 * only be lost together with everything after them (each WAL frame's checksum covers the
 * frames before it), so a power cut never leaves a half-applied transaction.
 *
 * Syncs are shared: a caller arriving while one runs waits for the next one (the running one
 * may have started before its commit), and everyone arriving meanwhile shares that next one.
 * A failed fdatasync is final: every later sync fails too and `onLost` is called once (the
 * server stops; a restart recovers from what is on disk). A WAL not there yet is not a failure.
 */
export function createWalSync(walPath: string, onLost: (error: unknown) => void = () => {}): WalSync {
  let handle: FileHandle | undefined;
  let running: Promise<void> | undefined;
  let queued: Promise<void> | undefined;
  /** The first failed fdatasync: from then on nothing more may be acknowledged. */
  let lost: { error: unknown } | undefined;
  let closed = false;

  async function syncOnce(): Promise<void> {
    if (lost) throw lost.error;
    if (closed) throw new Error('The database is closed');
    // Opened on first use: the WAL exists once something was committed. SQLite keeps the same
    // file (it rewinds it after a checkpoint) while the database is open.
    handle ??= await open(walPath, 'r');
    try {
      await handle.datasync();
    } catch (error) {
      // The commits are already visible, and Linux reports a writeback error to a file once and
      // may drop the pages: a later fdatasync could succeed over a hole in the WAL and
      // acknowledge writes that a power cut would lose (as PostgreSQL's data_sync_retry=off,
      // nothing is retried: every later sync fails and the owner is told to stop).
      if (!lost) {
        lost = { error };
        onLost(error);
      }
      throw error;
    }
  }

  function start(): Promise<void> {
    const sync: Promise<void> = syncOnce().finally(() => {
      if (running === sync) running = undefined;
    });
    running = sync;
    return sync;
  }

  return {
    sync() {
      if (queued) return queued;
      if (!running) return start();
      queued = running
        .catch(() => {})
        .then(() => {
          queued = undefined;
          return start();
        });
      return queued;
    },
    async close() {
      await queued?.catch(() => {});
      await running?.catch(() => {});
      closed = true;
      await handle?.close();
      handle = undefined;
    },
  };
}
