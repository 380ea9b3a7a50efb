import { currencyInfo } from '@pipdesk/contract';
import type { CSSProperties, ReactElement } from 'react';

/*
 * Small flags drawn inline (no request, no emoji font needed: Windows shows no flag emoji).
 * Every flag is drawn on a 60 × 40 field and simplified to what still reads at 20 px.
 */

const W = 60;
const H = 40;

/** The points of a star with `points` tips around (cx, cy). */
function starPoints(cx: number, cy: number, outer: number, points = 5, innerRatio = 0.4): string {
  const out: string[] = [];
  for (let i = 0; i < points * 2; i++) {
    const r = i % 2 === 0 ? outer : outer * innerRatio;
    const angle = -Math.PI / 2 + (i * Math.PI) / points;
    out.push(`${(cx + r * Math.cos(angle)).toFixed(2)},${(cy + r * Math.sin(angle)).toFixed(2)}`);
  }
  return out.join(' ');
}

/** The Union Jack on its own 60 × 30 field (the red saltire is centred: too small to counterchange). */
function unionJack() {
  return (
    <>
      <rect width="60" height="30" fill="#012169" />
      <path d="M0 0L60 30M60 0L0 30" stroke="#fff" strokeWidth="6" />
      <path d="M0 0L60 30M60 0L0 30" stroke="#C8102E" strokeWidth="2" />
      <path d="M30 0v30M0 15h60" stroke="#fff" strokeWidth="10" />
      <path d="M30 0v30M0 15h60" stroke="#C8102E" strokeWidth="6" />
    </>
  );
}

/** The Union Jack in the upper hoist quarter (Australia, New Zealand); the nested svg clips it. */
function unionJackCanton() {
  return (
    <svg x="0" y="0" width={W / 2} height={H / 2} viewBox="0 0 60 30" preserveAspectRatio="none" aria-hidden="true">
      {unionJack()}
    </svg>
  );
}

const US_STRIPE = H / 13;
const EU_STARS = Array.from({ length: 12 }, (_, i) => {
  const angle = (i * Math.PI) / 6;
  return starPoints(30 + 12 * Math.sin(angle), 20 - 12 * Math.cos(angle), 2.2);
});

const FLAGS: Record<string, () => ReactElement> = {
  USD: () => (
    <>
      <rect width={W} height={H} fill="#fff" />
      {Array.from({ length: 7 }, (_, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: a fixed drawing, never reordered
        <rect key={i} y={i * 2 * US_STRIPE} width={W} height={US_STRIPE} fill="#B22234" />
      ))}
      <rect width={24} height={7 * US_STRIPE} fill="#3C3B6E" />
      {Array.from({ length: 20 }, (_, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: a fixed drawing, never reordered
        <circle key={i} cx={2.6 + (i % 5) * 4.7} cy={2.7 + Math.floor(i / 5) * 5.3} r="0.9" fill="#fff" />
      ))}
    </>
  ),
  EUR: () => (
    <>
      <rect width={W} height={H} fill="#003399" />
      {EU_STARS.map((points) => (
        <polygon key={points} points={points} fill="#FFCC00" />
      ))}
    </>
  ),
  GBP: () => (
    <svg width={W} height={H} viewBox="0 0 60 30" preserveAspectRatio="none" aria-hidden="true">
      {unionJack()}
    </svg>
  ),
  JPY: () => (
    <>
      <rect width={W} height={H} fill="#fff" />
      <circle cx="30" cy="20" r="12" fill="#BC002D" />
    </>
  ),
  CHF: () => (
    <>
      <rect width={W} height={H} fill="#DA291C" />
      <path d="M26 8h8v8h8v8h-8v8h-8v-8h-8v-8h8z" fill="#fff" />
    </>
  ),
  AUD: () => (
    <>
      <rect width={W} height={H} fill="#012169" />
      {unionJackCanton()}
      <polygon points={starPoints(15, 30.5, 5, 7, 0.45)} fill="#fff" />
      <polygon points={starPoints(45, 33, 3, 7, 0.45)} fill="#fff" />
      <polygon points={starPoints(38, 18.5, 3, 7, 0.45)} fill="#fff" />
      <polygon points={starPoints(45, 7.5, 3, 7, 0.45)} fill="#fff" />
      <polygon points={starPoints(52, 15.5, 3, 7, 0.45)} fill="#fff" />
      <polygon points={starPoints(48.5, 22, 1.6, 5, 0.45)} fill="#fff" />
    </>
  ),
  CAD: () => (
    <>
      <rect width={W} height={H} fill="#fff" />
      <rect width="15" height={H} fill="#D80621" />
      <rect x="45" width="15" height={H} fill="#D80621" />
      <path
        d="M30 7l2 4 3-1-1 6.5 4-3.5 1 2.5 3-1-2 5 2 1-6 4.5 1 3-6-1v5h-2v-5l-6 1 1-3-6-4.5 2-1-2-5 3 1 1-2.5 4 3.5-1-6.5 3 1z"
        fill="#D80621"
      />
    </>
  ),
  NZD: () => (
    <>
      <rect width={W} height={H} fill="#012169" />
      {unionJackCanton()}
      {[
        [45, 33, 3.4],
        [38, 17.5, 2.9],
        [45, 7.5, 2.6],
        [51.5, 15, 2.9],
      ].map(([x = 0, y = 0, r = 0]) => (
        <g key={`${x},${y}`}>
          <polygon points={starPoints(x, y, r + 1, 5, 0.4)} fill="#fff" />
          <polygon points={starPoints(x, y, r, 5, 0.4)} fill="#C8102E" />
        </g>
      ))}
    </>
  ),
};

/** Whether the app draws a flag for this currency (docs/screens.md#formatting: USD EUR GBP JPY CHF AUD CAD NZD). */
export function hasFlag(code: string): boolean {
  return Object.hasOwn(FLAGS, code.toUpperCase());
}

export interface CurrencyFlagProps {
  /** ISO 4217 code, any case. */
  code: string;
  /** Height in px; the width is 1.5 times it. */
  size?: number;
  /**
   * Announce the flag as the currency's name. Off by default: a flag sits beside the symbol or
   * name that already says which currency it is.
   */
  labelled?: boolean;
  className?: string;
}

/** A currency's flag, or a neutral badge with its code for a currency without one. */
export function CurrencyFlag({ code, size = 16, labelled = false, className }: CurrencyFlagProps) {
  const upper = code.toUpperCase();
  const draw = FLAGS[upper];
  const a11y = labelled
    ? { role: 'img' as const, 'aria-label': currencyInfo(upper)?.name ?? upper }
    : { 'aria-hidden': true as const };
  const style = { width: size * 1.5, height: size };
  const classes = ['flag', !draw && 'flag--fallback', className].filter(Boolean).join(' ');
  if (!draw) {
    return (
      <span className={classes} style={{ ...style, fontSize: Math.max(7, size * 0.5) }} data-currency={upper} {...a11y}>
        {upper}
      </span>
    );
  }
  return (
    <span className={classes} style={style} data-currency={upper} {...a11y}>
      <svg viewBox={`0 0 ${W} ${H}`} width="100%" height="100%" preserveAspectRatio="none" focusable="false" aria-hidden="true">
        {draw()}
      </svg>
    </span>
  );
}

export interface PairFlagsProps {
  /** Six letters, e.g. EURUSD: the base currency's flag in front, the quote's behind it. */
  symbol: string;
  size?: number;
  className?: string;
}

/** Both flags of a pair, overlapping like a badge. Decorative: the symbol is always beside it. */
export function PairFlags({ symbol, size = 16, className }: PairFlagsProps) {
  const upper = symbol.toUpperCase();
  return (
    <span
      className={['pair-flags', className].filter(Boolean).join(' ')}
      style={{ '--flag-size': `${size}px` } as CSSProperties}
      aria-hidden="true"
    >
      <CurrencyFlag code={upper.slice(0, 3)} size={size} className="pair-flags__base" />
      <CurrencyFlag code={upper.slice(3, 6)} size={size} className="pair-flags__quote" />
    </span>
  );
}
