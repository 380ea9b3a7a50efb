/**
 * Exact decimal arithmetic for money, prices and lots, shared by server and web.
 *
 * A `Dec` is an integer count of 10^-20 held in a BigInt: sums, differences and products of
 * prices (≤ 6 decimals), lots (2 decimals) and cents are exact; a quotient (a conversion
 * through a USD-based pair, an average entry price) is rounded half away from zero at the
 * 20th decimal, far below a cent for any realistic amount. Floats never accumulate: numbers
 * are read through their shortest decimal text (`String(1.08734)` is `"1.08734"`).
 */
const SCALE_DIGITS = 20;
const SCALE = 10n ** BigInt(SCALE_DIGITS);
const POW10: bigint[] = Array.from({ length: SCALE_DIGITS + 1 }, (_, i) => 10n ** BigInt(i));
/** 10^i as numbers: exact up to 10^22, which covers every precision (SCALE_DIGITS is 20). */
const NUMBER_POW10: number[] = Array.from({ length: SCALE_DIGITS + 1 }, (_, i) => 10 ** i);
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

export type Rounding = 'half-up' | 'floor' | 'ceil' | 'down';

/** BigInt division rounded as asked; `half-up` is half away from zero (cash rounding). */
function divRound(n: bigint, d: bigint, mode: Rounding): bigint {
  if (d === 0n) throw new RangeError('Division by zero');
  if (d < 0n) {
    n = -n;
    d = -d;
  }
  const q = n / d; // truncates toward zero
  const r = n - q * d; // n % d, without a second long division
  if (r === 0n) return q;
  switch (mode) {
    case 'down':
      return q;
    case 'floor':
      return n < 0n ? q - 1n : q;
    case 'ceil':
      return n > 0n ? q + 1n : q;
    default: {
      const twice = (r < 0n ? -r : r) * 2n;
      if (twice >= d) return n < 0n ? q - 1n : q + 1n;
      return q;
    }
  }
}

const DECIMAL_TEXT = /^([+-])?(\d*)(?:\.(\d*))?(?:e([+-]?\d+))?$/i;

/**
 * The raw value of plain decimal text: an optional minus, digits, and at most SCALE_DIGITS
 * decimals after a point with digits on both sides ("-12.345"), else undefined (the general
 * reader takes the rest: "+1", ".5", "1e-3"). Positions, prices and amounts come back from
 * the database and from JSON in this form on every valuation, and the scan costs a fraction
 * of the regular expression. Up to 15 digits the integer is read as a number, exactly
 * (15 digits are below 2^53).
 */
function plainRaw(text: string): bigint | undefined {
  const length = text.length;
  const start = text.charCodeAt(0) === 45 ? 1 : 0; // '-'
  let point = -1;
  for (let i = start; i < length; i++) {
    const c = text.charCodeAt(i);
    if (c === 46 && point < 0)
      point = i; // the first '.'
    else if (c < 48 || c > 57) return undefined; // not a digit
  }
  if (point === start || point === length - 1 || length === start) return undefined;
  const decimals = point < 0 ? 0 : length - point - 1;
  if (decimals > SCALE_DIGITS) return undefined;
  const digits = point < 0 ? text.slice(start) : text.slice(start, point) + text.slice(point + 1);
  const integer = digits.length <= 15 ? BigInt(Number(digits)) : BigInt(digits);
  const raw = integer * POW10[SCALE_DIGITS - decimals]!;
  return start === 1 ? -raw : raw;
}

export type DecInput = Dec | number | string | bigint;

export class Dec {
  private constructor(
    /** The value × 10^20. */
    readonly raw: bigint,
  ) {}

  static readonly ZERO = new Dec(0n);
  static readonly ONE = new Dec(SCALE);

  /** Reads a number (through its shortest decimal text), a decimal string or an integer. */
  static from(value: DecInput): Dec {
    if (value instanceof Dec) return value;
    if (typeof value === 'bigint') return new Dec(value * SCALE);
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) throw new RangeError(`Not a finite number: ${value}`);
      if (Number.isSafeInteger(value)) return new Dec(BigInt(value) * SCALE);
      return Dec.parse(String(value));
    }
    return Dec.parse(value.trim());
  }

  /** An integer in units of 10^-decimals: `Dec.scaled(1234, 2)` is 12.34 (cents to money). */
  static scaled(units: number | bigint, decimals: number): Dec {
    if (typeof units === 'number' && !Number.isSafeInteger(units)) throw new RangeError(`Not an integer: ${units}`);
    return new Dec(BigInt(units) * POW10[SCALE_DIGITS - decimals]!);
  }

  private static parse(text: string): Dec {
    const plain = plainRaw(text);
    if (plain !== undefined) return new Dec(plain);
    const m = DECIMAL_TEXT.exec(text);
    if (!m || (m[2] === '' && (m[3] ?? '') === '')) throw new RangeError(`Not a decimal: ${JSON.stringify(text)}`);
    const digits = `${m[2] ?? ''}${m[3] ?? ''}` || '0';
    const exponent = Number(m[4] ?? 0) - (m[3] ?? '').length + SCALE_DIGITS;
    let raw = BigInt(digits);
    if (exponent >= 0) raw *= 10n ** BigInt(exponent);
    else raw = divRound(raw, 10n ** BigInt(-exponent), 'half-up');
    return new Dec(m[1] === '-' ? -raw : raw);
  }

  plus(other: DecInput): Dec {
    return new Dec(this.raw + Dec.from(other).raw);
  }
  minus(other: DecInput): Dec {
    return new Dec(this.raw - Dec.from(other).raw);
  }
  times(other: DecInput): Dec {
    // An integer factor (a contract size, a count) is exact without the rescaling division.
    if (typeof other === 'number' && Number.isSafeInteger(other)) return new Dec(this.raw * BigInt(other));
    const o = Dec.from(other).raw;
    // × 1 (a conversion rate of USD) is the value itself, without the long division.
    if (o === SCALE) return this;
    return new Dec(divRound(this.raw * o, SCALE, 'half-up'));
  }
  div(other: DecInput): Dec {
    // The same quotient, rounded the same way, from smaller numbers.
    if (typeof other === 'number' && Number.isSafeInteger(other)) return new Dec(divRound(this.raw, BigInt(other), 'half-up'));
    const o = Dec.from(other).raw;
    if (o === SCALE) return this;
    return new Dec(divRound(this.raw * SCALE, o, 'half-up'));
  }
  neg(): Dec {
    return new Dec(-this.raw);
  }
  abs(): Dec {
    return this.raw < 0n ? new Dec(-this.raw) : this;
  }
  /** -1, 0 or 1. */
  sign(): -1 | 0 | 1 {
    return this.raw === 0n ? 0 : this.raw < 0n ? -1 : 1;
  }
  isZero(): boolean {
    return this.raw === 0n;
  }
  cmp(other: DecInput): -1 | 0 | 1 {
    const o = Dec.from(other).raw;
    return this.raw === o ? 0 : this.raw < o ? -1 : 1;
  }
  eq(other: DecInput): boolean {
    return this.cmp(other) === 0;
  }
  lt(other: DecInput): boolean {
    return this.cmp(other) < 0;
  }
  lte(other: DecInput): boolean {
    return this.cmp(other) <= 0;
  }
  gt(other: DecInput): boolean {
    return this.cmp(other) > 0;
  }
  gte(other: DecInput): boolean {
    return this.cmp(other) >= 0;
  }
  static min(a: Dec, b: Dec): Dec {
    return a.lte(b) ? a : b;
  }
  static max(a: Dec, b: Dec): Dec {
    return a.gte(b) ? a : b;
  }

  /** Rounds to `decimals` places (money: 2, half away from zero). */
  round(decimals: number, mode: Rounding = 'half-up'): Dec {
    return new Dec(this.toScaled(decimals, mode) * POW10[SCALE_DIGITS - decimals]!);
  }

  /** The value as an integer count of 10^-decimals (cents for 2), rounded as asked. */
  toScaled(decimals: number, mode: Rounding = 'half-up'): bigint {
    if (decimals > SCALE_DIGITS || decimals < 0) throw new RangeError(`Unsupported precision: ${decimals}`);
    return divRound(this.raw, POW10[SCALE_DIGITS - decimals]!, mode);
  }

  /** Like `toScaled`, as a JS number; throws when it would not be a safe integer. */
  toScaledNumber(decimals: number, mode: Rounding = 'half-up'): number {
    const n = this.toScaled(decimals, mode);
    if (n > MAX_SAFE || n < -MAX_SAFE) throw new RangeError(`Out of range: ${n}`);
    return Number(n);
  }

  /** Plain decimal text without trailing zeros ("-52.4246…", "1200"). */
  toString(): string {
    const negative = this.raw < 0n;
    const digits = (negative ? -this.raw : this.raw).toString().padStart(SCALE_DIGITS + 1, '0');
    const whole = digits.slice(0, -SCALE_DIGITS);
    const fraction = digits.slice(-SCALE_DIGITS).replace(/0+$/, '');
    return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
  }

  /** Fixed decimals text, rounded half away from zero. */
  toFixed(decimals: number): string {
    const scaled = this.toScaled(decimals);
    const negative = scaled < 0n;
    const digits = (negative ? -scaled : scaled).toString().padStart(decimals + 1, '0');
    const text = decimals === 0 ? digits : `${digits.slice(0, -decimals)}.${digits.slice(-decimals)}`;
    return negative ? `-${text}` : text;
  }

  /** For JSON and display: the number nearest to the value rounded to `decimals` (default: as is). */
  toNumber(decimals?: number): number {
    if (decimals !== undefined) {
      // The rounded count of 10^-decimals as a number, then one IEEE division by 10^decimals:
      // both are exact below 2^53 (and 10^22), and a division of exact operands rounds to the
      // nearest double, the same one parsing the fixed text gives, without building the text.
      // Fan-out converts six figures per socket per tick (docs/ARCHITECTURE.md#sockets).
      const scaled = this.toScaled(decimals);
      if (scaled <= MAX_SAFE && scaled >= -MAX_SAFE) {
        const n = Number(scaled) / NUMBER_POW10[decimals]!;
        return n === 0 ? 0 : n;
      }
    }
    const n = Number(decimals === undefined ? this.toString() : this.toFixed(decimals));
    return Object.is(n, -0) ? 0 : n;
  }

  toJSON(): string {
    return this.toString();
  }
}
