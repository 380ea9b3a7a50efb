import {
  commonDataRange,
  REPLAY_DEFAULT_BALANCE,
  REPLAY_DEFAULT_LEVERAGE,
  type ReplayCreateRequest,
  replayCreateRequestSchema,
} from '@pipdesk/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { errorMessage } from '../../api';
import { Alert, Button, Card, Field, Input, Spinner } from '../../components';
import { createReplay, formatDataDay, formatSessionTime, replayKeys, useReplayData } from './api';

export const CREATE_FAILED = 'Failed to start the session';
export const PAIRS_FAILED = 'Failed to load the pairs with data';

interface ReplayDraft {
  symbols: string[];
  start: string;
  initial_balance: string;
  leverage: string;
}

const EMPTY: ReplayDraft = { symbols: [], start: '', initial_balance: '', leverage: '' };

const num = (text: string) => (text.trim() === '' ? undefined : Number(text));

/** The contract's checks, one message per field, worded as the server words them. */
export function checkReplay(d: ReplayDraft): { errors: Record<string, string>; request?: ReplayCreateRequest } {
  const parsed = replayCreateRequestSchema.safeParse({
    symbols: d.symbols,
    start: d.start,
    initial_balance: num(d.initial_balance),
    leverage: num(d.leverage),
  });
  if (parsed.success) return { errors: {}, request: parsed.data };
  const errors: Record<string, string> = {};
  for (const issue of parsed.error.issues) {
    const key = String(issue.path[0] ?? '');
    if (!errors[key]) errors[key] = issue.message;
  }
  return { errors };
}

/**
 * Starts a session (docs/screens.md#replay): 1 to 4 pairs, a start in UTC, optional balance and
 * leverage. The server's 400 (a start outside the data names the range) shows as it comes.
 */
export function ReplayForm() {
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState<ReplayDraft>(EMPTY);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const data = useReplayData();
  const pairs = data.data ?? [];
  // The range a session over the chosen pairs can start in: where all of them have data (the server's rule).
  const chosen = pairs.filter((p) => draft.symbols.includes(p.symbol));
  const range = commonDataRange(chosen.map((p) => ({ from: Date.parse(p.data_from), to: Date.parse(p.data_to) })));
  const startHint =
    chosen.length === 0
      ? 'A date and time inside the data of the chosen pairs'
      : range
        ? `The data of these pairs runs from ${formatSessionTime(new Date(range.from).toISOString())} to ${formatSessionTime(new Date(range.to).toISOString())}`
        : 'These pairs have no data in common';
  const create = useMutation({
    mutationFn: createReplay,
    onSuccess: () => {
      setDraft(EMPTY);
      // The new practice account joins the switcher's list, the session the list below.
      void queryClient.invalidateQueries({ queryKey: replayKeys.all });
      void queryClient.invalidateQueries({ queryKey: ['trading', 'accounts'] });
    },
  });
  const set = (change: Partial<ReplayDraft>) => setDraft((d) => ({ ...d, ...change }));
  const toggle = (symbol: string, on: boolean) =>
    setDraft((d) => ({ ...d, symbols: on ? [...d.symbols, symbol] : d.symbols.filter((s) => s !== symbol) }));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const { errors: found, request } = checkReplay(draft);
    setErrors(found);
    if (request) create.mutate(request);
  };
  return (
    <Card title="New session" aria-label="New session">
      <form className="replay-form" aria-label="New session" onSubmit={submit} noValidate>
        {create.isError && <Alert tone="error">{errorMessage(create.error, CREATE_FAILED)}</Alert>}
        {create.isSuccess && <p role="status">Session started</p>}
        <fieldset className="replay-form__pairs" aria-describedby={errors.symbols ? 'replay-pairs-error' : undefined}>
          <legend className="field__label">Pairs (1 to 4)</legend>
          {data.isPending && (
            <span role="status">
              <Spinner /> Loading pairs...
            </span>
          )}
          {data.isError && (
            <Alert
              tone="error"
              actions={
                <Button size="sm" onClick={() => void data.refetch()}>
                  Try Again
                </Button>
              }
            >
              {errorMessage(data.error, PAIRS_FAILED)}
            </Alert>
          )}
          {pairs.map(({ symbol, data_from, data_to }) => (
            <span key={symbol} className="replay-form__pair">
              <label>
                <input
                  type="checkbox"
                  checked={draft.symbols.includes(symbol)}
                  aria-describedby={`replay-range-${symbol}`}
                  onChange={(e) => toggle(symbol, e.target.checked)}
                />{' '}
                {symbol}
              </label>
              <span className="replay-form__range" id={`replay-range-${symbol}`}>
                {formatDataDay(data_from)} – {formatDataDay(Date.parse(data_to) - 1)}
              </span>
            </span>
          ))}
          {errors.symbols && (
            <p className="field__error" id="replay-pairs-error">
              {errors.symbols}
            </p>
          )}
        </fieldset>
        <Field label="Start (UTC)" hint={startHint} error={errors.start}>
          <Input type="datetime-local" value={draft.start} onChange={(e) => set({ start: e.target.value })} />
        </Field>
        <Field
          label="Initial balance (USD)"
          hint={`${REPLAY_DEFAULT_BALANCE.toLocaleString('en-US')} when empty`}
          error={errors.initial_balance}
        >
          <Input inputMode="decimal" value={draft.initial_balance} onChange={(e) => set({ initial_balance: e.target.value })} />
        </Field>
        <Field label="Leverage" hint={`${REPLAY_DEFAULT_LEVERAGE} when empty, as N:1`} error={errors.leverage}>
          <Input inputMode="numeric" value={draft.leverage} onChange={(e) => set({ leverage: e.target.value })} />
        </Field>
        <Button type="submit" variant="primary" busy={create.isPending}>
          Start session
        </Button>
      </form>
    </Card>
  );
}
