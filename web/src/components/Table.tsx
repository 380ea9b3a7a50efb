import type { ComponentPropsWithoutRef, ReactNode } from 'react';

/** A table that scrolls sideways on narrow screens instead of breaking the layout. */
export function Table({ className, children, ...rest }: ComponentPropsWithoutRef<'table'>) {
  return (
    <div className="table-wrap">
      <table className={['table', className].filter(Boolean).join(' ')} {...rest}>
        {children}
      </table>
    </div>
  );
}

export interface Column<Row> {
  key: string;
  header: ReactNode;
  cell: (row: Row) => ReactNode;
  /** Figures: right-aligned (all text already uses tabular numerals). */
  numeric?: boolean;
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
    <Table>
      {caption && <caption className="sr-only">{caption}</caption>}
      <thead>
        <tr>
          {columns.map((c) => (
            <th key={c.key} scope="col" className={c.numeric ? 'num' : undefined}>
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
                <td key={c.key} className={c.numeric ? 'num' : undefined}>
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
