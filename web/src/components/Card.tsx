import type { ComponentPropsWithoutRef, ReactNode } from 'react';

export interface CardProps extends Omit<ComponentPropsWithoutRef<'section'>, 'title'> {
  title?: ReactNode;
  /** Buttons or links on the right of the title. */
  actions?: ReactNode;
  footer?: ReactNode;
  /** No padding around the body, for a table or a chart that runs edge to edge. */
  flush?: boolean;
}

/** A panel of the trading screens: a titled surface with optional actions and footer. */
export function Card({ title, actions, footer, flush = false, className, children, ...rest }: CardProps) {
  return (
    <section className={['card', className].filter(Boolean).join(' ')} {...rest}>
      {(title || actions) && (
        <header className="card__header">
          {title && <h2 className="card__title">{title}</h2>}
          {actions && <div className="card__actions">{actions}</div>}
        </header>
      )}
      <div className={flush ? 'card__body card__body--flush' : 'card__body'}>{children}</div>
      {footer && <footer className="card__footer">{footer}</footer>}
    </section>
  );
}
