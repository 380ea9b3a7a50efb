import type { ComponentPropsWithoutRef } from 'react';

export type NumTone = 'bid' | 'ask' | 'profit' | 'loss' | 'muted';

export interface NumProps extends ComponentPropsWithoutRef<'span'> {
  tone?: NumTone;
  /** Colours the figure by its sign: profit above 0, loss below. Overrides `tone`. */
  signOf?: number;
}

/** A figure (price, amount, lots): tabular numerals, optionally coloured bid/ask or profit/loss. */
export function Num({ tone, signOf, className, children, ...rest }: NumProps) {
  const resolved = signOf === undefined ? tone : signOf > 0 ? 'profit' : signOf < 0 ? 'loss' : undefined;
  return (
    <span className={['num', resolved && `num--${resolved}`, className].filter(Boolean).join(' ')} {...rest}>
      {children}
    </span>
  );
}
