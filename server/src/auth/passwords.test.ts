import { describe, expect, it } from 'vitest';
import { hashPassword, verifyPassword } from './passwords.js';

describe('password hashing (scrypt, docs/operations.md#passwords)', () => {
  it('stores scrypt N=2^17, r=8, p=1 with a random salt inside the hash', async () => {
    const [a, b] = await Promise.all([hashPassword('correct horse battery'), hashPassword('correct horse battery')]);
    expect(a).toMatch(/^\$scrypt\$ln=17,r=8,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    expect(a).not.toBe(b);
    expect(a).not.toContain('correct');
  });

  it('verifies the right password only', async () => {
    const hash = await hashPassword('correct horse battery');
    expect(await verifyPassword('correct horse battery', hash)).toBe(true);
    expect(await verifyPassword('correct horse batterY', hash)).toBe(false);
    expect(await verifyPassword('', hash)).toBe(false);
  });

  it('an unknown account (no hash) never verifies, whatever the password', async () => {
    expect(await verifyPassword('anything-at-all', undefined)).toBe(false);
  });

  it('the same password typed in another Unicode form matches (NFKC)', async () => {
    const composed = 'caf\u00e9-au-lait';
    const decomposed = 'cafe\u0301-au-lait';
    const hash = await hashPassword(composed);
    expect(await verifyPassword(decomposed, hash)).toBe(true);
  });
});
