import { type ComponentPropsWithoutRef, type ReactNode, useEffect, useRef, useState } from 'react';

interface Overflow {
  /** Wider than its box: it scrolls sideways. */
  scrolls: boolean;
  /** Columns hidden on the left / on the right. */
  left: boolean;
  right: boolean;
}

const NO_OVERFLOW: Overflow = { scrolls: false, left: false, right: false };

/** Whether the box scrolls sideways and which edges hide columns, kept up to date as it resizes and scrolls. */
function useSidewaysOverflow() {
  const ref = useRef<HTMLDivElement>(null);
  const [overflow, setOverflow] = useState<Overflow>(NO_OVERFLOW);
  useEffect(() => {
    const box = ref.current;
    if (!box) return;
    const measure = () => {
      // A pixel of slack: zoomed layouts round widths.
      const hidden = box.scrollWidth - box.clientWidth;
      const next: Overflow = {
        scrolls: hidden > 1,
        left: hidden > 1 && box.scrollLeft > 1,
        right: hidden > 1 && box.scrollLeft < hidden - 1,
      };
      setOverflow((now) => (now.scrolls === next.scrolls && now.left === next.left && now.right === next.right ? now : next));
    };
    measure();
    box.addEventListener('scroll', measure, { passive: true });
    // The box resizes with the screen, the table with its rows.
    const resize = typeof ResizeObserver === 'undefined' ? null : new ResizeObserver(measure);
    if (resize) {
      resize.observe(box);
      if (box.firstElementChild) resize.observe(box.firstElementChild);
    } else window.addEventListener('resize', measure);
    return () => {
      box.removeEventListener('scroll', measure);
      resize?.disconnect();
      window.removeEventListener('resize', measure);
    };
  }, []);
  return { ref, overflow };
}

export interface TableProps extends ComponentPropsWithoutRef<'table'> {
  /** Names the scroll box for screen readers once it scrolls (the caption's words). */
  label?: string;
}

/**
 * A table that scrolls sideways on narrow screens instead of breaking the layout. When it does,
 * the edge that hides columns fades (the trader sees there is more), and the scroll box joins
 * the tab order so a keyboard can scroll it (axe: scrollable-region-focusable).
 */
export function Table({ className, children, label, ...rest }: TableProps) {
  const { ref, overflow } = useSidewaysOverflow();
  // Only a box that scrolls is a tab stop; one that fits adds nothing to the keyboard's path.
  const scrollBox = overflow.scrolls ? { tabIndex: 0, role: 'group', 'aria-label': label } : {};
  return (
    <div className="table-scroll" data-more-left={overflow.left || undefined} data-more-right={overflow.right || undefined}>
      <div ref={ref} className="table-wrap" {...scrollBox}>
        <table className={['table', className].filter(Boolean).join(' ')} {...rest}>
          {children}
        </table>
      </div>
    </div>
  );
}

export interface Column<Row> {
  key: string;
  header: ReactNode;
  cell: (row: Row) => ReactNode;
  /** Figures: right-aligned (all text already uses tabular numerals). */
  numeric?: boolean;
  /**
   * Stays in sight at the right edge while the other columns scroll sideways: a row's actions
   * (Close) must never need a horizontal scroll to be found (docs/screens.md#closing-a-position).
   */
  stickyEnd?: boolean;
}

function cellClass(c: Column<unknown>): string | undefined {
  return [c.numeric ? 'num' : '', c.stickyEnd ? 'table__sticky-end' : ''].filter(Boolean).join(' ') || undefined;
}

export interface DataTableProps<Row> {
  columns: Column<Row>[];
  rows: readonly Row[];
  rowKey: (row: Row) => string | number;
  /** Shown in one cell across the table when there are no rows ("No orders found."). */
  empty?: ReactNode;
  caption?: ReactNode;
}

export function DataTable<Row>({ columns, rows, rowKey, empty = 'Nothing to show.', caption }: DataTableProps<Row>) {
  return (
    <Table label={typeof caption === 'string' ? caption : undefined}>
      {caption && <caption className="sr-only">{caption}</caption>}
      <thead>
        <tr>
          {columns.map((c) => (
            <th key={c.key} scope="col" className={cellClass(c as Column<unknown>)}>
              {c.header}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.length === 0 ? (
          <tr>
            <td colSpan={columns.length} className="table__empty">
              {empty}
            </td>
          </tr>
        ) : (
          rows.map((row) => (
            <tr key={rowKey(row)}>
              {columns.map((c) => (
                <td key={c.key} className={cellClass(c as Column<unknown>)}>
                  {c.cell(row)}
                </td>
              ))}
            </tr>
          ))
        )}
      </tbody>
    </Table>
  );
}
