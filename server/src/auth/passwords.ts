import { randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from 'node:crypto';

/**
 * Password hashing with scrypt at the docs/operations.md#passwords cost (N = 2^17, r = 8, p = 1: 128 MiB and a few
 * hundred milliseconds per hash). The parameters travel inside the encoded hash, so raising
 * them later still verifies older hashes.
 */
interface ScryptCost {
  /** log2 of N. */
  ln: number;
  r: number;
  p: number;
}

const COST: ScryptCost = { ln: 17, r: 8, p: 1 };
const SALT_BYTES = 16;
const KEY_BYTES = 32;
// Node refuses scrypt above 32 MiB by default; N=2^17, r=8 needs 128 MiB (+ headroom).
const MAX_MEMORY = 256 * 1024 * 1024;
const ENCODED = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d)\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/;

function derive(password: string, salt: Buffer, cost: ScryptCost, keyLength: number): Promise<Buffer> {
  const options: ScryptOptions = { N: 2 ** cost.ln, r: cost.r, p: cost.p, maxmem: MAX_MEMORY };
  // NFKC (NIST SP 800-63B): the same password typed on another keyboard or OS gives the same bytes.
  const bytes = Buffer.from(password.normalize('NFKC'), 'utf8');
  return new Promise((resolve, reject) => {
    scrypt(bytes, salt, keyLength, options, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

const b64 = (buf: Buffer) => buf.toString('base64').replace(/=+$/, '');

function encode(cost: ScryptCost, salt: Buffer, key: Buffer): string {
  return `$scrypt$ln=${cost.ln},r=${cost.r},p=${cost.p}$${b64(salt)}$${b64(key)}`;
}

/** Hashes a password with a fresh random salt. The caller checks the policy first (`checkNewPassword`). */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  return encode(COST, salt, await derive(password, salt, COST, KEY_BYTES));
}

/**
 * A temporary password's cost: N = 2^12. The full cost exists to slow the guessing of passwords
 * people choose; a temporary password is 100 random bits the server drew, which no work factor
 * needs to protect, and at N = 2^17 an import of 500 students would hash for minutes
 * (docs/academy.md#temporary-passwords). The password the student then sets gets the full cost.
 */
const TEMPORARY_COST: ScryptCost = { ln: 12, r: 8, p: 1 };
// Unambiguous letters and digits (no 0/O, 1/l/I): 32 symbols, 5 bits each, read aloud or retyped safely.
const TEMPORARY_ALPHABET = 'abcdefghijkmnpqrstuvwxyz23456789';
const TEMPORARY_GROUPS = 4;
const TEMPORARY_GROUP_LENGTH = 5;

/** A one-time password of 20 random symbols (100 bits) in groups: `abcde-fghij-kmnpq-rstuv`. */
export function generateTemporaryPassword(random: (size: number) => Buffer = randomBytes): string {
  const bytes = random(TEMPORARY_GROUPS * TEMPORARY_GROUP_LENGTH);
  const symbols = [...bytes].map((b) => TEMPORARY_ALPHABET[b % TEMPORARY_ALPHABET.length]);
  const groups: string[] = [];
  for (let i = 0; i < TEMPORARY_GROUPS; i++) {
    groups.push(symbols.slice(i * TEMPORARY_GROUP_LENGTH, (i + 1) * TEMPORARY_GROUP_LENGTH).join(''));
  }
  return groups.join('-');
}

/** Hashes a server-drawn temporary password (see TEMPORARY_COST); it verifies like any other hash. */
export async function hashTemporaryPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  return encode(TEMPORARY_COST, salt, await derive(password, salt, TEMPORARY_COST, KEY_BYTES));
}

// A hash nobody's password matches: verifying against it costs the same as against a real one.
const DUMMY_HASH = encode(COST, randomBytes(SALT_BYTES), randomBytes(KEY_BYTES));

/**
 * Whether `password` matches `encoded`, compared in constant time. Pass `undefined` for an
 * unknown account: the same work is done against a dummy hash, so neither the answer nor its
 * timing tells whether the account exists.
 */
export async function verifyPassword(password: string, encoded: string | undefined): Promise<boolean> {
  const match = ENCODED.exec(encoded ?? DUMMY_HASH) ?? ENCODED.exec(DUMMY_HASH)!;
  const cost: ScryptCost = { ln: Number(match[1]), r: Number(match[2]), p: Number(match[3]) };
  const salt = Buffer.from(match[4]!, 'base64');
  const expected = Buffer.from(match[5]!, 'base64');
  const actual = await derive(password, salt, cost, expected.length);
  const same = timingSafeEqual(actual, expected);
  return same && encoded !== undefined && ENCODED.test(encoded);
}
