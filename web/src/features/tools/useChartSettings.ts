import {
  type ChartLayout,
  type ChartSettings,
  chartSettingsSchema,
  DEFAULT_CHART_LAYOUT,
  chartingOperations as ops,
} from '@pipdesk/contract';
import { type QueryClient, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../api';
// The Charts page's cache entry of the layout: one copy of it, so a save of the settings keeps
// its charts and indicators, and theirs keeps the settings.
import { chartLayoutKey, fetchChartLayout } from '../chart/layout';

/** The layout in the cache, fetched when it is not there yet (the B/S keys read the one-click setting only when pressed). */
export function ensureChartLayout(queryClient: QueryClient): Promise<ChartLayout> {
  return queryClient.ensureQueryData({ queryKey: chartLayoutKey, queryFn: ({ signal }) => fetchChartLayout(signal) });
}

export interface ChartSettingsState {
  /** The kept settings, or the defaults (one-click off) until the layout has loaded. */
  settings: ChartSettings;
  /** The layout has loaded: only then can a change be saved without losing the rest of it. */
  ready: boolean;
  saving: boolean;
  /** Keeps a change of the settings (shown at once, put back if the server refuses it). */
  save(change: Partial<ChartSettings>): Promise<void>;
}

/**
 * The trader's chart settings (one-click trading and its lot size, docs/charting.md#layouts-and-chart-settings),
 * read from and written to the chart layout: a save PUTs the whole layout as the cache holds it,
 * its settings changed, so the charts and indicators stay as they were.
 */
export function useChartSettings(): ChartSettingsState {
  const queryClient = useQueryClient();
  const layout = useQuery({ queryKey: chartLayoutKey, queryFn: ({ signal }) => fetchChartLayout(signal) });
  const mutation = useMutation({
    mutationFn: (next: ChartLayout) => api.call(ops.saveChartLayout, { body: next }),
    onMutate: async (next) => {
      await queryClient.cancelQueries({ queryKey: chartLayoutKey });
      const before = queryClient.getQueryData<ChartLayout>(chartLayoutKey);
      queryClient.setQueryData(chartLayoutKey, next);
      return { before };
    },
    onError: (_err, _next, context) => {
      if (context?.before) queryClient.setQueryData(chartLayoutKey, context.before);
    },
    onSuccess: (saved) => queryClient.setQueryData(chartLayoutKey, saved),
  });

  const settings = layout.data?.settings ?? DEFAULT_CHART_LAYOUT.settings;
  return {
    settings,
    ready: layout.data !== undefined,
    saving: mutation.isPending,
    async save(change) {
      const current = queryClient.getQueryData<ChartLayout>(chartLayoutKey);
      if (!current) return;
      const next: ChartLayout = { ...current, settings: chartSettingsSchema.parse({ ...current.settings, ...change }) };
      await mutation.mutateAsync(next);
    },
  };
}
