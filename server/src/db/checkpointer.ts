import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** Moves the SQLite WAL back into the database file from a worker thread; see `startCheckpointer`. */
export interface Checkpointer {
  /**
   * One checkpoint now; resolves when it is done. Called while the server's connection is
   * held idle, so it copies everything and the next write rewinds the WAL.
   */
  checkpointNow(): Promise<void>;
  /** Stops the worker and closes its connection. */
  close(): Promise<void>;
}

export interface CheckpointerOptions {
  /** Hears of failures (the server's connection then checkpoints by itself, see database.ts). */
  onWarning: (message: string) => void;
  /** The WAL holds more than `restartFrames` pages: hold the server's connection and call `checkpointNow()`. */
  onRestartNeeded: () => void;
  /** Default `RESTART_FRAMES` (tests use fewer). */
  restartFrames?: number;
}

/** How often the worker checkpoints. At 1,000 orders a second the WAL grows about 5 MB in this time. */
const INTERVAL_MS = 100;
/** WAL pages (4 KiB) past which the WAL should be rewound: about 32 MB. */
export const RESTART_FRAMES = 8000;

// CommonJS run by the worker (eval): this module may be TypeScript in the tests, a worker file
// next to it would not load there.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
db.pragma('busy_timeout = 5000');
// A checkpoint syncs the WAL before copying it and the database file before the WAL is reused.
db.pragma('synchronous = NORMAL');
let timer;
let failing = false;
let restartAsked = false;
const checkpoint = () => {
  try {
    const [result] = db.pragma('wal_checkpoint(PASSIVE)');
    failing = false;
    return result;
  } catch (error) {
    // Reported once per run of failures.
    if (!failing) parentPort.postMessage({ type: 'warning', message: String((error && error.message) || error) });
    failing = true;
    return { log: 0, checkpointed: 0 };
  }
};
// The WAL length after the last checkpoint made while the server waited: unchanged, nothing
// was written since and asking again would only hold the server's connection for nothing.
let lastRewoundLog = -1;
const tooLong = (result) => result.log > workerData.restartFrames && result.log !== lastRewoundLog;
const periodic = () => {
  // Catch up first, so the checkpoint made while the server waits has little left to copy.
  if (tooLong(checkpoint()) && !restartAsked && tooLong(checkpoint())) {
    restartAsked = true;
    parentPort.postMessage({ type: 'restart-needed' });
  }
  timer = setTimeout(periodic, workerData.intervalMs);
};
timer = setTimeout(periodic, workerData.intervalMs);
parentPort.on('message', (message) => {
  if (message.type === 'checkpoint') {
    lastRewoundLog = checkpoint().log;
    restartAsked = false;
    parentPort.postMessage({ type: 'done', id: message.id });
    return;
  }
  clearTimeout(timer);
  db.close();
  parentPort.close();
});
`;

/** Longest the server's connection is held for one checkpoint, should the worker hang. */
const CHECKPOINT_TIMEOUT_MS = 2000;

/**
 * A SQLite checkpoint copies the WAL into the database file and fsyncs both; run by the
 * connection that commits (SQLite's default, every 1,000 pages) it stalls the event loop for
 * milliseconds several times a second under load. Here a worker thread with its own
 * connection runs passive checkpoints every 100 ms instead: they never block a writer or a
 * reader. Under steady writes they never catch up completely, though, and SQLite rewinds the
 * WAL only once everything in it was copied; so past `RESTART_FRAMES` pages the worker asks
 * for a moment without writes (`onRestartNeeded`: the server holds its connection, which only
 * queues the next queries, without blocking the event loop) and checkpoints what is left.
 * The committing connection keeps a far larger automatic checkpoint as a backstop (see
 * database.ts) in case the worker falls behind or fails.
 */
export function startCheckpointer(file: string, options: CheckpointerOptions): Checkpointer {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { driver, file, intervalMs: INTERVAL_MS, restartFrames: options.restartFrames ?? RESTART_FRAMES },
  });
  // Never the reason the process stays up.
  worker.unref();
  const waiting = new Map<number, () => void>();
  let nextId = 1;
  let exited = false;
  const exit = new Promise<void>((resolve) =>
    worker.once('exit', () => {
      exited = true;
      for (const done of waiting.values()) done();
      waiting.clear();
      resolve();
    }),
  );
  worker.on('message', (message: { type: string; id?: number; message?: string }) => {
    if (message.type === 'warning') options.onWarning(`WAL checkpoint failed: ${message.message}`);
    else if (message.type === 'restart-needed') options.onRestartNeeded();
    else if (message.type === 'done' && message.id !== undefined) {
      waiting.get(message.id)?.();
      waiting.delete(message.id);
    }
  });
  worker.on('error', (error) => options.onWarning(`WAL checkpointer stopped: ${error.message}`));
  return {
    checkpointNow() {
      if (exited) return Promise.resolve();
      const id = nextId++;
      return new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          waiting.delete(id);
          options.onWarning('WAL checkpoint took too long; writes resumed without it');
          resolve();
        }, CHECKPOINT_TIMEOUT_MS);
        waiting.set(id, () => {
          clearTimeout(timer);
          resolve();
        });
        worker.postMessage({ type: 'checkpoint', id });
      });
    },
    async close() {
      if (!exited) worker.postMessage({ type: 'close' });
      await exit;
    },
  };
}
