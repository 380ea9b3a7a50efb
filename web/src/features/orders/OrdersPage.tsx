import { ORDERS_PAGE_SIZE } from '@pipdesk/contract';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useEffect, useId, useState } from 'react';
import { useSearchParams } from 'react-router';
import { errorMessage } from '../../api';
import { Alert, Button, Card, CommitOnPauseInput, Field, Input, Page, Pagination, Select, Spinner } from '../../components';
import { digitsLookup, ErrorBox, fetchOrders, tradingKeys, usePlatformData } from '../trading';
import '../trading/trading.css';
import { EXPORT_FAILED, fetchOrdersCsv, ORDERS_EXPORT_FILE, saveBlob } from './exportCsv';
import {
  clearedFilters,
  type FilterKey,
  hasActiveFilters,
  type OrderFilters,
  ordersApiQuery,
  paginationText,
  readFilters,
  readPage,
  SIDE_OPTIONS,
  SORT_OPTIONS,
  STATUS_OPTIONS,
  TYPE_OPTIONS,
  withFilter,
  withPage,
} from './filters';
import { OrderHistoryTable } from './OrderHistoryTable';
import './orders.css';

/** docs/screens.md#error-texts. */
export const ORDERS_LOAD_FAILED = 'Failed to load orders';
/** Typing in Currency Pair waits this long before the list follows, so each keystroke is not a request. */
export const PAIR_FILTER_DEBOUNCE_MS = 400;

/** Route `/orders`: the Order History with filters in the address (docs/screens.md#orders-page). */
export function OrdersPage() {
  const [params, setParams] = useSearchParams();
  const filters = readFilters(params);
  const page = readPage(params);
  const apiQuery = ordersApiQuery(filters, page);
  const [showFilters, setShowFilters] = useState(() => hasActiveFilters(filters));
  const filtersId = useId();
  const exportHintId = useId();
  const platform = usePlatformData();
  const digits = digitsLookup(platform.data?.fx_pairs);

  const orders = useQuery({
    queryKey: tradingKeys.ordersPage(apiQuery),
    queryFn: ({ signal }) => fetchOrders(apiQuery, signal),
    placeholderData: keepPreviousData,
  });

  const setFilter = (key: FilterKey, value: string) => setParams(withFilter(params, key, value), { replace: true });

  const count = orders.data?.count ?? 0;
  const totalPages = Math.max(1, Math.ceil(count / ORDERS_PAGE_SIZE));
  // A shared link to a page past the end (orders were fewer by now) lands on the last page.
  const beyondEnd = orders.isSuccess && !orders.isPlaceholderData && page > totalPages;
  useEffect(() => {
    if (beyondEnd) setParams(withPage(params, totalPages), { replace: true });
  }, [beyondEnd, params, setParams, totalPages]);

  const texts = paginationText(page, count);
  const exporter = useCsvExport();

  return (
    <Page
      title="Order History"
      actions={
        <>
          <Button
            variant="secondary"
            aria-expanded={showFilters}
            aria-controls={filtersId}
            onClick={() => setShowFilters((s) => !s)}
          >
            {showFilters ? 'Hide Filters' : 'Show Filters'}
          </Button>
          <Button
            variant="secondary"
            busy={exporter.busy}
            aria-describedby={exportHintId}
            onClick={() => void exporter.run(filters)}
          >
            {exporter.busy ? 'Exporting...' : 'Export CSV'}
          </Button>
          <span id={exportHintId} className="sr-only">
            Downloads every order that matches the filters as a CSV file
          </span>
        </>
      }
    >
      {exporter.error && (
        <Alert tone="error" dismissible onDismiss={exporter.dismiss}>
          {exporter.error}
        </Alert>
      )}
      {showFilters && (
        <Card id={filtersId} aria-label="Filters" className="orders-filters">
          <div className="orders-filters__grid">
            <CommitOnPauseInput
              label="Currency Pair"
              className="orders-filters__pair"
              value={filters.fx_pair}
              onCommit={(v) => setFilter('fx_pair', v)}
              delayMs={PAIR_FILTER_DEBOUNCE_MS}
              placeholder="e.g. EURUSD"
              maxLength={20}
            />
            <Field label="Side">
              <Select value={filters.side} onChange={(e) => setFilter('side', e.target.value)}>
                {SIDE_OPTIONS.map((o) => (
                  <option key={o.value} value={o.value}>
                    {o.label}
                  </option>
                ))}
              </Select>
            </Field>
            <Field label="Status">
              <Select value={filters.status} onChange={(e) => setFilter('status', e.target.value)}>
                {STATUS_OPTIONS.map((o) => (
                  <option key={o.value} value={o.value}>
                    {o.label}
                  </option>
                ))}
              </Select>
            </Field>
            <Field label="Order Type">
              <Select value={filters.order_type} onChange={(e) => setFilter('order_type', e.target.value)}>
                {TYPE_OPTIONS.map((o) => (
                  <option key={o.value} value={o.value}>
                    {o.label}
                  </option>
                ))}
              </Select>
            </Field>
            <Field label="From Date">
              <Input
                type="date"
                value={filters.date_from}
                max={filters.date_to || undefined}
                onChange={(e) => setFilter('date_from', e.target.value)}
              />
            </Field>
            <Field label="To Date">
              <Input
                type="date"
                value={filters.date_to}
                min={filters.date_from || undefined}
                onChange={(e) => setFilter('date_to', e.target.value)}
              />
            </Field>
            <Field label="Sort By">
              <Select value={filters.ordering} onChange={(e) => setFilter('ordering', e.target.value)}>
                {SORT_OPTIONS.map((o) => (
                  <option key={o.value} value={o.value}>
                    {o.label}
                  </option>
                ))}
              </Select>
            </Field>
            <div className="orders-filters__actions">
              <Button variant="ghost" onClick={() => setParams(clearedFilters(params), { replace: true })}>
                Clear Filters
              </Button>
            </div>
          </div>
        </Card>
      )}

      {orders.isError && !orders.data ? (
        <ErrorBox message={ORDERS_LOAD_FAILED} onRetry={() => void orders.refetch()} retrying={orders.isFetching} />
      ) : orders.isPending ? (
        <div className="orders-loading" role="status">
          <Spinner /> <span>Loading orders...</span>
        </div>
      ) : (
        <>
          {orders.isError && (
            <ErrorBox message={ORDERS_LOAD_FAILED} onRetry={() => void orders.refetch()} retrying={orders.isFetching} />
          )}
          <Card flush className="trading-table" aria-label="Orders" aria-busy={orders.isFetching || undefined}>
            <OrderHistoryTable orders={orders.data.results} digits={digits} empty="No orders found" caption="Orders" />
          </Card>
          <Pagination
            label="Pagination"
            page={page}
            totalPages={totalPages}
            texts={texts}
            busy={orders.isPlaceholderData}
            onPage={(p) => setParams(withPage(params, p))}
          />
        </>
      )}
    </Page>
  );
}

/**
 * The Export CSV control's state: the filtered history (docs/orders.md#csv-export) fetched with the
 * trader's token and saved as a file; a failure shows the server's text.
 */
function useCsvExport() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = async (filters: OrderFilters) => {
    setBusy(true);
    setError(null);
    try {
      saveBlob(await fetchOrdersCsv(filters), ORDERS_EXPORT_FILE);
    } catch (err) {
      setError(errorMessage(err, EXPORT_FAILED));
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, run, dismiss: () => setError(null) };
}
