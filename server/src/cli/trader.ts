// `npm run trader -- …`: manages traders on the configured database (the same environment
// variables as the server: DATA_DIR, DATABASE_URL, REDIS_URL).
import { ConfigError, loadConfig } from '../config.js';
import { systemClock } from '../core/clock.js';
import { openDatabase } from '../db/database.js';
import { migrateToLatest } from '../migrations.js';
import { type Bus, MemoryBus } from '../realtime/bus.js';
import { createRedisBus } from '../realtime/redis-bus.js';
import { EXIT_FAILED, READ_ONLY_SCHEMA_COMMANDS, runTraderCommand } from './commands.js';

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Asks at the terminal without echoing what is typed (a password must not show on screen). */
function promptPassword(question: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const input = process.stdin;
    process.stderr.write(question);
    let typed = '';
    input.setRawMode(true);
    input.resume();
    input.setEncoding('utf8');
    const done = (error?: Error) => {
      input.setRawMode(false);
      input.pause();
      input.off('data', onData);
      process.stderr.write('\n');
      if (error) reject(error);
      else resolve(typed);
    };
    const onData = (chunk: string) => {
      for (const char of chunk) {
        if (char === '\r' || char === '\n') return done();
        if (char === '\u0003') return done(new Error('cancelled'));
        if (char === '\u007f' || char === '\b') typed = typed.slice(0, -1);
        else typed += char;
      }
    };
    input.on('data', onData);
  });
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
    if (!READ_ONLY_SCHEMA_COMMANDS.has(argv[0] ?? '')) await migrateToLatest(db);
    // With Redis, a running server hears `user_disabled` at once and closes the trader's sockets;
    // without it the server still refuses the trader's next request (sessions live in the database).
    bus = config.redisUrl ? await createRedisBus(config.redisUrl, config.redisChannelPrefix) : new MemoryBus();
    return await runTraderCommand(
      argv,
      { db, bus, clock: systemClock },
      {
        out: console.log,
        err: console.error,
        readStdin,
        ...(process.stdin.isTTY ? { promptPassword } : {}),
      },
    );
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
