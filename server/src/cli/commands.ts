import { parseArgs } from 'node:util';
import { ROLES, type Role } from '@pipdesk/contract';
import { createTrader, DEPOSIT_MAX_MINOR, depositToAccount, listTraders, type TraderSummary } from '../accounts/service.js';
import { disableTrader, enableTrader, resetPassword, setRole } from '../auth/service.js';
import type { AppContext } from '../core/context.js';
import { AppError } from '../errors.js';
import { migrationStatus } from '../migrations.js';

/** Where the CLI writes: the console in production, arrays in tests. */
export interface CliIo {
  out(line: string): void;
  err(line: string): void;
  /** Everything on standard input (`--password-stdin`), so a password never sits in the process list or shell history. */
  readStdin?(): Promise<string>;
  /** Asks for a password without echoing it; only when a person is at a terminal. */
  promptPassword?(question: string): Promise<string>;
}

export type CliDeps = Pick<AppContext, 'db' | 'bus' | 'clock'>;

/** Exit codes: 0 done, 1 could not be done (e-mail taken, unknown trader, storage error), 2 wrong command line. */
export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;

export const USAGE = `Usage: npm run trader -- <command> [options]

Passwords are never given on the command line (the process list and the shell history would
show them): a command that needs one asks for it at a terminal, or reads the first line of
standard input with --password-stdin.

Commands:
  create --email <e-mail> --name <full name> [--password-stdin] [--balance <USD>] [--leverage <n>] [--no-account]
         Creates a trader with a USD trading account (default balance 10000.00, leverage 100).
         --no-account creates the user only (they will see "Trading Not Available").
  list   Lists every trader with their account.
  disable --email <e-mail>
         Disables a trader and ends all their sessions at once.
  enable --email <e-mail>
         Lets a disabled trader sign in again.
  reset-password --email <e-mail> [--password-stdin]
         Sets a new password and ends all the trader's sessions.
  role --email <e-mail> --role <trader|instructor|admin>
         Gives a user a role: instructors teach cohorts, admins run the academy (applies at their next call).
  deposit --email <e-mail> --amount <USD> --note <why>
         Adds money to the trader's account: one ledger entry with the note. Running servers show
         the new balance within seconds, without a restart. No withdrawals (positive amounts only).
  migrations
         Lists the database migrations, applied (with when) and pending; changes nothing.`;

class UsageError extends Error {}

/** Which command-line option a service field came from, so errors name what the operator typed. */
const OPTION_OF_FIELD: Record<string, string> = {
  email: '--email',
  fullName: '--name',
  password: 'the password',
  balanceMinor: '--balance',
  leverage: '--leverage',
  amountMinor: '--amount',
  note: '--note',
};

/** "5000", "5000.5" or "5000.50" USD → cents, exactly (no floating point). */
export function parseBalance(text: string): number {
  return parseUsd(text, '--balance');
}

/** An amount in USD as the operator typed it → cents, exactly; `option` names it in the error. */
function parseUsd(text: string, option: string): number {
  const match = /^(\d{1,13})(?:\.(\d{1,2}))?$/.exec(text.trim());
  if (!match)
    throw new UsageError(`${option} must be an amount in USD with at most 2 decimals, e.g. 5000 or 2500.50 (got "${text}")`);
  return Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0'));
}

/**
 * The deposit's amount: positive, at most 2 decimals, at most DEPOSIT_MAX_MINOR. A sign is
 * refused with its reason: a withdrawal is not a deposit (docs/operations.md#deposits).
 */
export function parseDepositAmount(text: string): number {
  if (/^\s*-/.test(text))
    throw new UsageError(`--amount must be more than 0: the CLI makes deposits only, no withdrawals (got "${text}")`);
  const minor = parseUsd(text.replace(/^\s*\+/, ''), '--amount');
  if (minor === 0) throw new UsageError(`--amount must be more than 0 (got "${text}")`);
  if (minor > DEPOSIT_MAX_MINOR)
    throw new UsageError(`--amount must be at most ${formatMoney(DEPOSIT_MAX_MINOR)} USD in one deposit (got "${text}")`);
  return minor;
}

function parseLeverage(text: string): number {
  // "1:100" is how traders write leverage; accept it as well as "100".
  const match = /^(?:1:)?(\d{1,4})$/.exec(text.trim());
  if (!match) throw new UsageError(`--leverage must be a whole number such as 100 (got "${text}")`);
  return Number(match[1]);
}

/** 123456789 cents → "1,234,567.89". */
export function formatMoney(minor: number): string {
  const sign = minor < 0 ? '-' : '';
  const abs = Math.abs(minor);
  const units = Math.floor(abs / 100)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${sign}${units}.${String(abs % 100).padStart(2, '0')}`;
}

function required(value: string | undefined, option: string): string {
  if (value === undefined || value.trim() === '') throw new UsageError(`${option} is required`);
  return value;
}

/** The first line of standard input, without its line ending (a password may hold spaces). */
async function passwordFromStdin(io: CliIo): Promise<string> {
  if (!io.readStdin) throw new UsageError('--password-stdin: standard input is not available');
  return (await io.readStdin()).split(/\r?\n/, 1)[0] ?? '';
}

/** Options of the commands that take a password. `password` is declared only to refuse it clearly. */
const PASSWORD_OPTIONS = {
  password: { type: 'string' },
  'password-stdin': { type: 'boolean', default: false },
} as const;

/** The password from standard input or a prompt; never from argv (docs/operations.md#passwords). */
async function readPassword(values: { password?: string | undefined; 'password-stdin'?: boolean | undefined }, io: CliIo) {
  if (values.password !== undefined)
    throw new UsageError(
      '--password is not accepted: a password on the command line shows in the process list and the shell history. ' +
        'Use --password-stdin, or run the command at a terminal to be asked for it',
    );
  if (values['password-stdin']) return required(await passwordFromStdin(io), '--password-stdin');
  if (!io.promptPassword)
    throw new UsageError('the password is required: give it on standard input with --password-stdin, or run at a terminal');
  const first = await io.promptPassword('Password: ');
  const again = await io.promptPassword('Password (again): ');
  if (first !== again) throw new UsageError('the two passwords differ');
  return required(first, 'the password');
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

async function create(args: string[], deps: CliDeps, io: CliIo): Promise<number> {
  const { values } = parseArgs({
    args,
    strict: true,
    allowPositionals: false,
    options: {
      email: { type: 'string' },
      name: { type: 'string' },
      ...PASSWORD_OPTIONS,
      balance: { type: 'string' },
      leverage: { type: 'string' },
      'no-account': { type: 'boolean', default: false },
    },
  });
  const withAccount = !values['no-account'];
  if (!withAccount && (values.balance !== undefined || values.leverage !== undefined)) {
    throw new UsageError('--balance and --leverage need an account: drop --no-account or them');
  }
  const email = required(values.email, '--email');
  const fullName = required(values.name, '--name');
  const password = await readPassword(values, io);
  const trader = await createTrader(deps, {
    email,
    fullName,
    password,
    withAccount,
    ...(values.balance === undefined ? {} : { balanceMinor: parseBalance(values.balance) }),
    ...(values.leverage === undefined ? {} : { leverage: parseLeverage(values.leverage) }),
  });
  io.out(
    trader.account
      ? `Created trader ${trader.email} (${trader.fullName}, id ${trader.userId}) with USD account ${trader.account.accountId}: ` +
          `balance ${formatMoney(trader.account.balanceMinor)} USD, leverage 1:${trader.account.leverage}.`
      : `Created trader ${trader.email} (${trader.fullName}, id ${trader.userId}) without a trading account.`,
  );
  return EXIT_OK;
}

function table(traders: TraderSummary[]): string[] {
  const rows = [
    ['ID', 'E-MAIL', 'NAME', 'STATUS', 'BALANCE (USD)', 'LEVERAGE'],
    ...traders.map((t) => [
      String(t.userId),
      t.email,
      t.fullName,
      t.active ? 'active' : 'disabled',
      t.account ? formatMoney(t.account.balanceMinor) : 'no account',
      t.account ? `1:${t.account.leverage}` : '-',
    ]),
  ];
  const widths = rows[0]!.map((_, col) => Math.max(...rows.map((r) => r[col]!.length)));
  return rows.map((r) =>
    r
      .map((cell, col) => (col === 4 ? cell.padStart(widths[col]!) : cell.padEnd(widths[col]!)))
      .join('  ')
      .trimEnd(),
  );
}

async function list(args: string[], deps: CliDeps, io: CliIo): Promise<number> {
  parseArgs({ args, strict: true, allowPositionals: false, options: {} });
  const traders = await listTraders(deps);
  if (traders.length === 0) io.out('No traders yet. Create one with: npm run trader -- create --email … --name …');
  else for (const line of table(traders)) io.out(line);
  return EXIT_OK;
}

async function disable(args: string[], deps: CliDeps, io: CliIo): Promise<number> {
  const { values } = parseArgs({ args, strict: true, allowPositionals: false, options: { email: { type: 'string' } } });
  const result = await disableTrader(deps, required(values.email, '--email'));
  const ended = plural(result.endedSessions, 'session');
  io.out(
    result.wasActive ? `Disabled ${result.email}; ended ${ended}.` : `${result.email} was already disabled; ended ${ended}.`,
  );
  return EXIT_OK;
}

async function enable(args: string[], deps: CliDeps, io: CliIo): Promise<number> {
  const { values } = parseArgs({ args, strict: true, allowPositionals: false, options: { email: { type: 'string' } } });
  const result = await enableTrader(deps, required(values.email, '--email'));
  io.out(result.wasActive ? `${result.email} was already active.` : `Enabled ${result.email}; they can sign in again.`);
  return EXIT_OK;
}

async function resetPasswordCommand(args: string[], deps: CliDeps, io: CliIo): Promise<number> {
  const { values } = parseArgs({
    args,
    strict: true,
    allowPositionals: false,
    options: { email: { type: 'string' }, ...PASSWORD_OPTIONS },
  });
  const email = required(values.email, '--email');
  const result = await resetPassword(deps, email, await readPassword(values, io));
  io.out(`Set a new password for ${result.email}; ended ${plural(result.endedSessions, 'session')}.`);
  return EXIT_OK;
}

async function role(args: string[], deps: CliDeps, io: CliIo): Promise<number> {
  const { values } = parseArgs({
    args,
    strict: true,
    allowPositionals: false,
    options: { email: { type: 'string' }, role: { type: 'string' } },
  });
  const email = required(values.email, '--email');
  const wanted = required(values.role, '--role').trim().toLowerCase();
  if (!(ROLES as readonly string[]).includes(wanted)) {
    throw new UsageError(`--role must be one of ${ROLES.join(', ')} (got "${values.role}")`);
  }
  const result = await setRole(deps, email, wanted as Role);
  io.out(
    result.previous === result.role
      ? `${result.email} is already ${article(result.role)}.`
      : `${result.email} is now ${article(result.role)} (was ${article(result.previous)}).`,
  );
  return EXIT_OK;
}

function article(word: string): string {
  return `${/^[aeiou]/.test(word) ? 'an' : 'a'} ${word}`;
}

async function deposit(args: string[], deps: CliDeps, io: CliIo): Promise<number> {
  const { values } = parseArgs({
    args,
    strict: true,
    allowPositionals: false,
    options: { email: { type: 'string' }, amount: { type: 'string' }, note: { type: 'string' } },
  });
  const email = required(values.email, '--email');
  const amountMinor = parseDepositAmount(required(values.amount, '--amount'));
  const note = required(values.note, '--note');
  let result: Awaited<ReturnType<typeof depositToAccount>>;
  try {
    result = await depositToAccount(deps, { email, amountMinor, note });
  } catch (err) {
    // The catalogue's text speaks to the trader ("complete your registration"); this to the operator.
    if (err instanceof AppError && err.code === 'NO_TRADING_ACCOUNT') {
      io.err(`Error: ${email.trim().toLowerCase()} has no trading account (created with --no-account).`);
      return EXIT_FAILED;
    }
    throw err;
  }
  io.out(
    `Deposited ${formatMoney(result.amountMinor)} USD to ${result.email} (account ${result.accountId}): ` +
      `balance ${formatMoney(result.balanceMinor)} USD.`,
  );
  return EXIT_OK;
}

async function migrations(args: string[], deps: CliDeps, io: CliIo): Promise<number> {
  parseArgs({ args, strict: true, allowPositionals: false, options: {} });
  const all = await migrationStatus(deps.db);
  for (const m of all)
    io.out(`${m.executedAt ? `applied ${m.executedAt.toISOString()}` : 'pending                          '}  ${m.name}`);
  const pending = all.filter((m) => !m.executedAt).length;
  io.out(
    pending === 0
      ? `${plural(all.length, 'migration')}, all applied.`
      : `${plural(pending, 'migration')} pending of ${all.length}; the server applies them when it starts.`,
  );
  return EXIT_OK;
}

const COMMANDS: Record<string, (args: string[], deps: CliDeps, io: CliIo) => Promise<number>> = {
  create,
  list,
  disable,
  enable,
  'reset-password': resetPasswordCommand,
  role,
  deposit,
  migrations,
};

/** Commands that read the schema as it is: the CLI does not migrate before them. */
export const READ_ONLY_SCHEMA_COMMANDS = new Set(['migrations']);

/** Runs one CLI command against an open database; returns the exit code. Never throws for expected failures. */
export async function runTraderCommand(argv: string[], deps: CliDeps, io: CliIo): Promise<number> {
  const [command, ...args] = argv;
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    (command === undefined ? io.err : io.out)(USAGE);
    return command === undefined ? EXIT_USAGE : EXIT_OK;
  }
  const run = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
  if (!run) {
    io.err(`Unknown command "${command}".`);
    io.err(USAGE);
    return EXIT_USAGE;
  }
  try {
    return await run(args, deps, io);
  } catch (err) {
    if (err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      io.err(`Error: ${(err as Error).message}`);
      io.err(`Run "npm run trader -- help" for the options.`);
      return EXIT_USAGE;
    }
    if (err instanceof AppError && err.code === 'VALIDATION_ERROR') {
      io.err(`Error: ${validationMessage(err)}`);
      return EXIT_USAGE;
    }
    if (err instanceof AppError) {
      io.err(`Error: ${err.message}`);
      return EXIT_FAILED;
    }
    throw err;
  }
}

function validationMessage(err: AppError): string {
  const first = (err.details as Array<{ field: string; message: string }> | undefined)?.[0];
  if (!first) return err.message;
  return `${OPTION_OF_FIELD[first.field] ?? first.field} ${first.message}`;
}
