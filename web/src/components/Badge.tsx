import type { ComponentPropsWithoutRef } from 'react';

export type Tone = 'neutral' | 'accent' | 'profit' | 'loss' | 'warning';

export interface BadgeProps extends ComponentPropsWithoutRef<'span'> {
  tone?: Tone;
  /** A status dot before the text; `pulse` animates it (live feeds). */
  dot?: boolean;
  pulse?: boolean;
}

/** A short status label: order status, side, connection state. */
export function Badge({ tone = 'neutral', dot = false, pulse = false, className, children, ...rest }: BadgeProps) {
  return (
    <span className={['badge', `badge--${tone}`, className].filter(Boolean).join(' ')} {...rest}>
      {dot && <span className={pulse ? 'badge__dot badge__dot--pulse' : 'badge__dot'} aria-hidden="true" />}
      {children}
    </span>
  );
}
