import { type ReactNode, useEffect } from 'react';

export interface PageProps {
  /** The page's heading, also the browser tab's title. */
  title: ReactNode;
  /** Plain text for the tab title when `title` is not a string. */
  documentTitle?: string;
  /** Small text above the heading (a back link, a breadcrumb). */
  eyebrow?: ReactNode;
  /** Buttons or badges on the right of the heading. */
  actions?: ReactNode;
  children?: ReactNode;
}

/** The frame of every screen behind the sign-in: heading row, then the content. */
export function Page({ title, documentTitle, eyebrow, actions, children }: PageProps) {
  const tabTitle = documentTitle ?? (typeof title === 'string' ? title : undefined);
  useEffect(() => {
    if (tabTitle) document.title = `${tabTitle} · Pipdesk`;
  }, [tabTitle]);
  return (
    <div className="page">
      <div className="page__head">
        <div className="page__heading">
          {eyebrow && <div className="page__eyebrow">{eyebrow}</div>}
          <h1 className="page__title">{title}</h1>
        </div>
        {actions && <div className="page__actions">{actions}</div>}
      </div>
      {children}
    </div>
  );
}
