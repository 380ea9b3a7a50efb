// `npm run trader -- …`: manages traders on the configured database (the same environment
// variables as the server: DATA_DIR, DATABASE_URL, REDIS_URL).
import { ConfigError, loadConfig } from '../config.js';
import { systemClock } from '../core/clock.js';
import { openDatabase } from '../db/database.js';
import { migrateToLatest } from '../migrations.js';
import { type Bus, MemoryBus } from '../realtime/bus.js';
import { createRedisBus } from '../realtime/redis-bus.js';
import { EXIT_FAILED, runTraderCommand } from './commands.js';

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function main(argv: string[]): Promise<number> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig(process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      return EXIT_FAILED;
    }
    throw err;
  }
  const db = openDatabase(config.database);
  let bus: Bus | undefined;
  try {
    await migrateToLatest(db);
    // With Redis, a running server hears `user_disabled` at once and closes the trader's sockets;
    // without it the server still refuses the trader's next request (sessions live in the database).
    bus = config.redisUrl ? await createRedisBus(config.redisUrl, config.redisChannelPrefix) : new MemoryBus();
    return await runTraderCommand(argv, { db, bus, clock: systemClock }, { out: console.log, err: console.error, readStdin });
  } finally {
    await bus?.close();
    await db.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    console.error(`Error: ${err instanceof Error ? err.message : String(err)}`);
    process.exitCode = EXIT_FAILED;
  },
);
