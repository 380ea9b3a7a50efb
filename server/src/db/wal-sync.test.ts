import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWalSync, type WalSync } from './wal-sync.js';

let dir: string;
let walPath: string;
let wal: WalSync;

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'pipdesk-wal-sync-'));
  walPath = path.join(dir, 'pipdesk.db-wal');
  wal = createWalSync(walPath);
});
afterEach(async () => {
  await wal.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Lets pending promise reactions run without giving the thread pool a turn (no I/O can finish). */
async function microtasks(n = 10): Promise<void> {
  for (let i = 0; i < n; i++) await Promise.resolve();
}

/** Records the order in which promises settle. */
function settleOrder() {
  const order: string[] = [];
  return {
    order,
    track<T>(name: string, p: Promise<T>): Promise<T> {
      p.then(
        () => order.push(name),
        () => order.push(name),
      );
      return p;
    },
  };
}

describe('WAL sync', () => {
  it('resolves once the file is synced', async () => {
    writeFileSync(walPath, 'frames');
    await expect(wal.sync()).resolves.toBeUndefined();
    // The file stays open for the next syncs.
    await expect(wal.sync()).resolves.toBeUndefined();
  });

  it('callers arriving while a sync runs share one next sync, which starts after the running one', async () => {
    writeFileSync(walPath, 'frames');
    const { order, track } = settleOrder();
    const first = track('first', wal.sync());
    const later = Array.from({ length: 50 }, () => wal.sync());

    // The running sync may have started before their commits: they must not join it.
    expect(later[0]).not.toBe(first);
    // One shared next sync, not fifty.
    for (const p of later) expect(p).toBe(later[0]);
    track('queued', later[0]!);

    await first;
    // The queued sync starts once the first has settled; its fdatasync cannot finish within microtasks.
    await microtasks();
    const afterStart = track('after queued started', wal.sync());
    expect(afterStart).not.toBe(first);
    expect(afterStart).not.toBe(later[0]);
    // Callers arriving now share the newest one.
    expect(wal.sync()).toBe(afterStart);

    await Promise.all([...later, afterStart]);
    expect(order).toEqual(['first', 'queued', 'after queued started']);
  });

  it('a WAL not there yet fails the callers, and a later sync works once the file exists', async () => {
    const first = wal.sync();
    const queued = wal.sync();
    expect(queued).not.toBe(first);
    const firstError: unknown = await first.catch((e: unknown) => e);
    const queuedError: unknown = await queued.catch((e: unknown) => e);
    expect(firstError).toMatchObject({ code: 'ENOENT' });
    // The queued sync still runs after a failed one and reports its own attempt, not the running one's error.
    expect(queuedError).toMatchObject({ code: 'ENOENT' });
    expect(queuedError).not.toBe(firstError);

    writeFileSync(walPath, 'frames');
    await expect(wal.sync()).resolves.toBeUndefined();
  });

  it('close waits for the running and the queued sync, and can be called again', async () => {
    writeFileSync(walPath, 'frames');
    const { order, track } = settleOrder();
    const running = track('running sync', wal.sync());
    const queued = track('queued sync', wal.sync());
    await track('close', wal.close());
    expect(order).toEqual(['running sync', 'queued sync', 'close']);
    await expect(running).resolves.toBeUndefined();
    await expect(queued).resolves.toBeUndefined();

    await expect(wal.close()).resolves.toBeUndefined();
    await expect(Promise.all([wal.close(), wal.close()])).resolves.toEqual([undefined, undefined]);
  });

  it('close after a failed sync resolves', async () => {
    const failed = wal.sync();
    await expect(wal.close()).resolves.toBeUndefined();
    await expect(failed).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('a failed fdatasync is final: every later sync fails with it, and the owner hears once', async () => {
    // fdatasync on a character device fails with EINVAL: a stand-in for a disk's EIO.
    const lost: unknown[] = [];
    const failing = createWalSync('/dev/null', (error) => lost.push(error));
    try {
      const first = failing.sync();
      const queued = failing.sync();
      await expect(first).rejects.toMatchObject({ code: 'EINVAL' });
      await expect(queued).rejects.toMatchObject({ code: 'EINVAL' });
      // Even a sync that would now succeed is refused: writes committed after the failure
      // could sit behind a hole in the WAL.
      await expect(failing.sync()).rejects.toMatchObject({ code: 'EINVAL' });
      expect(lost).toHaveLength(1);
      expect(lost[0]).toMatchObject({ code: 'EINVAL' });
    } finally {
      await failing.close();
    }
  });

  it('a sync after close is refused instead of reopening the file', async () => {
    writeFileSync(walPath, 'frames');
    await wal.sync();
    await wal.close();
    await expect(wal.sync()).rejects.toThrow('The database is closed');
  });
});
