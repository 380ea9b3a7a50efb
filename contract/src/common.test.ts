import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { isSafeText, text, UNSAFE_TEXT_MESSAGE } from './common.js';

describe('text()', () => {
  const schema = z.strictObject({ name: text().trim().min(1, 'is required').max(10, 'is too long') });

  it('rejects a NUL and unpaired surrogates, naming the field with that reason alone', () => {
    for (const bad of ['a\u0000b', '\u0000', '\uD800', 'x\uDBFFy', '\uDC00', 'a\uDFFF', '\uDC00\uD800']) {
      const issues = schema.safeParse({ name: bad }).error?.issues ?? [];
      expect(
        issues.map((i) => [i.path.join('.'), i.message]),
        JSON.stringify(bad),
      ).toEqual([['name', UNSAFE_TEXT_MESSAGE]]);
    }
  });

  it('accepts paired surrogates and other unicode, and keeps the checks chained after it', () => {
    expect(schema.parse({ name: ' 😀 é 中 ' })).toEqual({ name: '😀 é 中' });
    expect(schema.safeParse({ name: '   ' }).error?.issues[0]?.message).toBe('is required');
    expect(schema.safeParse({ name: 'x'.repeat(11) }).error?.issues[0]?.message).toBe('is too long');
    expect(schema.safeParse({ name: 5 }).success).toBe(false);
  });

  it('agrees with a reference check over random strings (well-formed UTF-16, no NUL)', () => {
    const seed = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Date.now() % 2 ** 31;
    console.log(`isSafeText property seed ${seed} (replay with FUZZ_SEED=${seed})`);
    // The reference: a string is well-formed when it survives a UTF-8 round trip unchanged.
    const reference = (s: string) => !s.includes('\u0000') && Buffer.from(s, 'utf8').toString('utf8') === s;
    fc.assert(
      fc.property(
        fc.string({
          unit: fc.oneof(
            fc.constantFrom('\u0000', '\uD83D', '\uDE00', 'a'),
            fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)),
          ),
        }),
        (s) => {
          expect(isSafeText(s)).toBe(reference(s));
        },
      ),
      { seed, numRuns: 2000 },
    );
  });
});
