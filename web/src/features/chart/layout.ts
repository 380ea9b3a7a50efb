import { type ChartLayout, chartLayoutSchema, DEFAULT_CHART_LAYOUT, chartingOperations as ops } from '@pipdesk/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useRef } from 'react';
import { api } from '../../api';

export const chartLayoutKey = ['charting', 'chart-layout'] as const;

/** A change is saved once the trader has paused this long: dragging a parameter up sends one PUT, not ten. */
export const LAYOUT_SAVE_DELAY_MS = 800;

export function fetchChartLayout(signal?: AbortSignal): Promise<ChartLayout> {
  return api.call(ops.getChartLayout, {}, { signal });
}

export function saveChartLayout(layout: ChartLayout): Promise<ChartLayout> {
  return api.call(ops.saveChartLayout, { body: layout });
}

export interface EditableLayout {
  /** The trader's layout as last changed here, or as loaded; null while loading (or when it failed). */
  layout: ChartLayout | null;
  isPending: boolean;
  /** The layout could not be read: the default is shown, and changes are still saved. */
  loadFailed: boolean;
  /** The last save was refused or failed (the change stays on screen). */
  saveFailed: boolean;
  /** Applies a change at once on every chart that reads the layout, and saves it after a pause. */
  update: (change: (layout: ChartLayout) => ChartLayout) => void;
}

/**
 * The trader's chart layout, indicators and chart settings (GET/PUT trading/chart-layout/,
 * docs/charting.md). Changes go to the query cache at once and to the server debounced; a change
 * still waiting when the page is left is sent then.
 */
export function useEditableLayout(): EditableLayout {
  const queryClient = useQueryClient();
  const query = useQuery({
    queryKey: chartLayoutKey,
    queryFn: ({ signal }) => fetchChartLayout(signal),
    staleTime: 5 * 60_000,
  });
  const save = useMutation({ mutationFn: saveChartLayout });
  const pending = useRef(false);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const saveRef = useRef(save.mutate);
  saveRef.current = save.mutate;

  const flush = useCallback(() => {
    if (timer.current !== null) clearTimeout(timer.current);
    timer.current = null;
    if (!pending.current) return;
    pending.current = false;
    // The cache as it is now: a settings change saved meanwhile (one-click) is kept, not overwritten.
    const layout = queryClient.getQueryData<ChartLayout>(chartLayoutKey);
    if (layout) saveRef.current(layout);
  }, [queryClient]);

  useEffect(() => flush, [flush]);

  const update = useCallback(
    (change: (layout: ChartLayout) => ChartLayout) => {
      const current = queryClient.getQueryData<ChartLayout>(chartLayoutKey) ?? DEFAULT_CHART_LAYOUT;
      const parsed = chartLayoutSchema.safeParse(change(current));
      // The controls only make layouts the contract accepts; anything else stays unsaved rather than refused.
      if (!parsed.success) return;
      queryClient.setQueryData(chartLayoutKey, parsed.data);
      pending.current = true;
      if (timer.current !== null) clearTimeout(timer.current);
      timer.current = setTimeout(flush, LAYOUT_SAVE_DELAY_MS);
    },
    [queryClient, flush],
  );

  return {
    layout: query.data ?? (query.isError ? DEFAULT_CHART_LAYOUT : null),
    isPending: query.isPending,
    loadFailed: query.isError,
    saveFailed: save.isError,
    update,
  };
}
