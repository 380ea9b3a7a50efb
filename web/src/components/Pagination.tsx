import { Button } from './Button';

export interface PaginationProps {
  /** The bar's accessible name (the Orders page's is "Pagination"). */
  label: string;
  page: number;
  totalPages: number;
  /** The bar's words: "Page X of Y" and "Showing a to b of n …", as the list words them. */
  texts: { pages: string; showing: string };
  /** The shown page is a placeholder while the next one loads: neither button moves until it arrives. */
  busy?: boolean;
  onPage: (page: number) => void;
}

/** A list's Previous / Next bar with the page and what is shown (docs/screens.md#orders-page). */
export function Pagination({ label, page, totalPages, texts, busy = false, onPage }: PaginationProps) {
  return (
    <nav className="pagination" aria-label={label}>
      <Button size="sm" variant="secondary" disabled={page <= 1 || busy} onClick={() => onPage(page - 1)}>
        Previous
      </Button>
      <span className="pagination__page">{texts.pages}</span>
      <Button size="sm" variant="secondary" disabled={page >= totalPages || busy} onClick={() => onPage(page + 1)}>
        Next
      </Button>
      <span className="pagination__showing">{texts.showing}</span>
    </nav>
  );
}
