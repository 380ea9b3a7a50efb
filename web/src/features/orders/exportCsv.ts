import { ApiError, api, NetworkError, type QueryValue } from '../../api';
import { type OrderFilters, ordersApiQuery } from './filters';

/** The export call (docs/orders.md#csv-export). */
export const ORDERS_EXPORT_PATH = '/trading/orders/export.csv';
/** The name the saved file gets, as the server's Content-Disposition names it. */
export const ORDERS_EXPORT_FILE = 'orders.csv';
/** Shown when the export fails and the server gave no text of its own. */
export const EXPORT_FAILED = 'Failed to export orders';

/** The export's query: the list's filters exactly as the list sends them, without its paging (the export is every match). */
export function exportApiQuery(filters: OrderFilters): Record<string, QueryValue> {
  const { page: _page, page_size: _pageSize, ...query } = ordersApiQuery(filters, 1);
  return query;
}

/** The address of the export for these filters, under the API's base. */
export function exportUrl(filters: OrderFilters, base = '/api'): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(exportApiQuery(filters)))
    if (v !== null && v !== undefined && v !== '') params.set(k, String(v));
  const qs = params.toString();
  return `${base}${ORDERS_EXPORT_PATH}${qs ? `?${qs}` : ''}`;
}

async function fetchCsv(url: string, bearer: string | null): Promise<Response> {
  try {
    return await fetch(url, { headers: { Accept: 'text/csv', ...(bearer ? { Authorization: `Bearer ${bearer}` } : {}) } });
  } catch (err) {
    throw new NetworkError(err instanceof Error ? err.message : '');
  }
}

async function failure(response: Response): Promise<ApiError> {
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    body = undefined;
  }
  const b = body as { code?: unknown; error?: unknown } | undefined;
  return new ApiError(
    response.status,
    typeof b?.code === 'string' ? b.code : `HTTP_${response.status}`,
    typeof b?.error === 'string' ? b.error : undefined,
    body,
  );
}

/**
 * Fetches the CSV of the filtered history as a file. The call is authenticated with the bearer
 * token (a plain link could not send it), so the answer is read as a blob; the 401 rule is the
 * API client's (docs/screens.md#sign-in-and-session: one shared refresh, one retry).
 */
export async function fetchOrdersCsv(filters: OrderFilters): Promise<Blob> {
  const url = exportUrl(filters);
  const sentWith = api.tokens.read().access;
  let response = await fetchCsv(url, sentWith);
  if (response.status === 401) {
    let access: string;
    try {
      const current = api.tokens.read().access;
      access = current && current !== sentWith ? current : await api.refreshTokens();
    } catch (err) {
      if (err instanceof NetworkError) throw err;
      api.endSession();
      throw await failure(response);
    }
    response = await fetchCsv(url, access);
    if (response.status === 401) {
      api.endSession();
      throw await failure(response);
    }
  }
  if (!response.ok) throw await failure(response);
  return response.blob();
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
