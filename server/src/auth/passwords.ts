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
