import {
  REPLAY_DEFAULT_BALANCE,
  REPLAY_DEFAULT_LEVERAGE,
  type ReplayCreateRequest,
  replayCreateRequestSchema,
} from '@pipdesk/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { errorMessage } from '../../api';
import { Alert, Button, Card, Field, Input } from '../../components';
import { createReplay, REPLAY_PAIRS, replayKeys } from './api';

export const CREATE_FAILED = 'Failed to start the session';

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
          {REPLAY_PAIRS.map((symbol) => (
            <label key={symbol} className="replay-form__pair">
              <input
                type="checkbox"
                checked={draft.symbols.includes(symbol)}
                onChange={(e) => toggle(symbol, e.target.checked)}
              />{' '}
              {symbol}
            </label>
          ))}
          {errors.symbols && (
            <p className="field__error" id="replay-pairs-error">
              {errors.symbols}
            </p>
          )}
        </fieldset>
        <Field label="Start (UTC)" hint="A date and time inside the data" error={errors.start}>
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
