import { tradingOperations } from '@pipdesk/contract';
import { api, callPath, type QueryValue, queryString } from '../../api';
import { type OrderFilters, ordersApiQuery } from './filters';

/** The name the saved file gets, as the server's Content-Disposition names it. */
export const ORDERS_EXPORT_FILE = 'orders.csv';
/** Shown when the export fails and the server gave no text of its own. */
export const EXPORT_FAILED = 'Failed to export orders';

/** The export's query: the list's filters exactly as the list sends them, without its paging (the export is every match). */
export function exportApiQuery(filters: OrderFilters): Record<string, QueryValue> {
  const { page: _page, page_size: _pageSize, ...query } = ordersApiQuery(filters, 1);
  return query;
}

/** The address `fetchOrdersCsv` downloads for these filters, under the API's base (the client's query string). */
export function exportUrl(filters: OrderFilters, base = '/api'): string {
  return `${base}${callPath(tradingOperations.exportOrders, {})}${queryString(exportApiQuery(filters))}`;
}

/**
 * Fetches the CSV of the filtered history (docs/orders.md#csv-export) as a file, through the API
 * client's `downloadCall`: the call needs the bearer token (a plain link could not send it) and
 * follows the client's 401 rule (docs/screens.md#sign-in-and-session: one shared refresh, one retry).
 */
export function fetchOrdersCsv(filters: OrderFilters): Promise<Blob> {
  return api.downloadCall(tradingOperations.exportOrders, { query: exportApiQuery(filters) });
}

const BLOB_KEEP_MS = 10_000;

/** Hands a blob to the browser as a download named `fileName`. */
export function saveBlob(blob: Blob, fileName: string): void {
  const href = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = href;
  link.download = fileName;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  // Some browsers read the blob after the click returns: free it a little later.
  setTimeout(() => URL.revokeObjectURL(href), BLOB_KEEP_MS);
}
