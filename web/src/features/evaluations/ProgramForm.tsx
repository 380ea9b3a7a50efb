import { type ProgramCreateRequest, programCreateRequestSchema } from '@pipdesk/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { errorMessage } from '../../api';
import { Alert, Button, Field, Input, Select } from '../../components';
import { createProgram, programKeys } from './programsApi';

// The form that creates an evaluation program (docs/screens.md#programs), apart from the Programs
// card that opens it.

interface PhaseDraft {
  name: string;
  profit_target_pct: string;
  max_daily_loss_pct: string;
  daily_loss_basis: 'balance' | 'max_balance_equity';
  max_loss_pct: string;
  max_loss_mode: 'static' | 'trailing_eod';
  min_trading_days: string;
  max_days: string;
  best_day_pct: string;
  require_stop_loss: boolean;
  max_lots: string;
}

interface ProgramDraft {
  name: string;
  initial_balance: string;
  leverage: string;
  time_zone: string;
  day_start: string;
  allow_self_start: boolean;
  phases: PhaseDraft[];
}

const newPhase = (name: string, target: string): PhaseDraft => ({
  name,
  profit_target_pct: target,
  max_daily_loss_pct: '5',
  daily_loss_basis: 'balance',
  max_loss_pct: '10',
  max_loss_mode: 'static',
  min_trading_days: '4',
  max_days: '30',
  best_day_pct: '',
  require_stop_loss: false,
  max_lots: '',
});

const NEW_PROGRAM: ProgramDraft = {
  name: '',
  initial_balance: '10000',
  leverage: '30',
  time_zone: 'Europe/Prague',
  day_start: '00:00',
  allow_self_start: false,
  phases: [newPhase('Challenge', '10')],
};

const num = (text: string) => (text.trim() === '' ? undefined : Number(text));
const orNull = (text: string) => (text.trim() === '' ? null : Number(text));

function requestOf(d: ProgramDraft): Record<string, unknown> {
  return {
    name: d.name,
    initial_balance: num(d.initial_balance),
    leverage: num(d.leverage),
    time_zone: d.time_zone,
    day_start: d.day_start,
    allow_self_start: d.allow_self_start,
    phases: d.phases.map((p) => ({
      name: p.name,
      profit_target_pct: num(p.profit_target_pct),
      max_daily_loss_pct: orNull(p.max_daily_loss_pct),
      daily_loss_basis: p.daily_loss_basis,
      max_loss_pct: num(p.max_loss_pct),
      max_loss_mode: p.max_loss_mode,
      min_trading_days: num(p.min_trading_days) ?? 0,
      max_days: orNull(p.max_days),
      best_day_pct: orNull(p.best_day_pct),
      require_stop_loss: p.require_stop_loss,
      max_lots: orNull(p.max_lots),
    })),
  };
}

/** The contract's checks, one message per field path (`phases.0.max_loss_pct`), worded as the server words them. */
export function checkProgram(d: ProgramDraft): { errors: Record<string, string>; request?: ProgramCreateRequest } {
  const parsed = programCreateRequestSchema.safeParse(requestOf(d));
  if (parsed.success) return { errors: {}, request: parsed.data };
  const errors: Record<string, string> = {};
  for (const issue of parsed.error.issues) {
    const key = issue.path.join('.');
    if (!errors[key]) errors[key] = issue.message;
  }
  return { errors };
}

/** The form that creates a program, each rule explained beside it (docs/evaluations.md#the-rules). */
export function ProgramForm({ cohortId, onDone }: { cohortId: number; onDone: () => void }) {
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState<ProgramDraft>(NEW_PROGRAM);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const save = useMutation({
    mutationFn: (request: ProgramCreateRequest) => createProgram(cohortId, request),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: programKeys.programs(cohortId) });
      onDone();
    },
  });
  const set = (change: Partial<ProgramDraft>) => setDraft((d) => ({ ...d, ...change }));
  const setPhase = (i: number, change: Partial<PhaseDraft>) =>
    setDraft((d) => ({ ...d, phases: d.phases.map((p, k) => (k === i ? { ...p, ...change } : p)) }));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const { errors: found, request } = checkProgram(draft);
    setErrors(found);
    if (request) save.mutate(request);
  };
  return (
    <form className="cohort-form program-form" aria-label="New program" onSubmit={submit} noValidate>
      {save.isError && <Alert tone="error">{errorMessage(save.error, 'Failed to create the program')}</Alert>}
      {errors.phases && <Alert tone="error">{`Phases: ${errors.phases}`}</Alert>}
      <Field label="Name" error={errors.name}>
        <Input value={draft.name} onChange={(e) => set({ name: e.target.value })} />
      </Field>
      <Field label="Initial balance (USD)" hint="Each attempt's account opens with it" error={errors.initial_balance}>
        <Input inputMode="decimal" value={draft.initial_balance} onChange={(e) => set({ initial_balance: e.target.value })} />
      </Field>
      <Field label="Leverage" hint="1 to 1000, as N:1" error={errors.leverage}>
        <Input inputMode="numeric" value={draft.leverage} onChange={(e) => set({ leverage: e.target.value })} />
      </Field>
      <Field label="Time zone" hint="The trading day is counted on this zone's clock (IANA name)" error={errors.time_zone}>
        <Input value={draft.time_zone} onChange={(e) => set({ time_zone: e.target.value })} />
      </Field>
      <Field label="Day starts at" hint="HH:MM; the daily loss limit starts again then" error={errors.day_start}>
        <Input value={draft.day_start} onChange={(e) => set({ day_start: e.target.value })} />
      </Field>
      <label className="cohort-form__check">
        <input type="checkbox" checked={draft.allow_self_start} onChange={(e) => set({ allow_self_start: e.target.checked })} />{' '}
        Students may start an attempt themselves
      </label>
      {draft.phases.map((phase, i) => {
        const e = (field: string) => errors[`phases.${i}.${field}`];
        return (
          // biome-ignore lint/suspicious/noArrayIndexKey: phases are only added and removed at the end
          <fieldset key={i} className="program-form__phase">
            <legend>{`Phase ${i + 1}`}</legend>
            <Field label="Phase name" error={e('name')}>
              <Input value={phase.name} onChange={(ev) => setPhase(i, { name: ev.target.value })} />
            </Field>
            <Field
              label="Profit target (%)"
              hint="The balance to reach, as a share of the initial balance"
              error={e('profit_target_pct')}
            >
              <Input
                inputMode="decimal"
                value={phase.profit_target_pct}
                onChange={(ev) => setPhase(i, { profit_target_pct: ev.target.value })}
              />
            </Field>
            <Field
              label="Daily loss limit (%)"
              hint="Equity may not fall this far below the day's basis (a share of the initial balance); empty for none"
              error={e('max_daily_loss_pct')}
            >
              <Input
                inputMode="decimal"
                value={phase.max_daily_loss_pct}
                onChange={(ev) => setPhase(i, { max_daily_loss_pct: ev.target.value })}
              />
            </Field>
            <Field
              label="Day's basis"
              hint="What the daily limit is counted from at each day start"
              error={e('daily_loss_basis')}
            >
              <Select
                value={phase.daily_loss_basis}
                onChange={(ev) => setPhase(i, { daily_loss_basis: ev.target.value as PhaseDraft['daily_loss_basis'] })}
              >
                <option value="balance">The balance</option>
                <option value="max_balance_equity">The larger of balance and equity</option>
              </Select>
            </Field>
            <Field
              label="Maximum loss (%)"
              hint="Equity may never fall this far below the initial balance"
              error={e('max_loss_pct')}
            >
              <Input
                inputMode="decimal"
                value={phase.max_loss_pct}
                onChange={(ev) => setPhase(i, { max_loss_pct: ev.target.value })}
              />
            </Field>
            <Field label="Maximum loss counted from" error={e('max_loss_mode')}>
              <Select
                value={phase.max_loss_mode}
                onChange={(ev) => setPhase(i, { max_loss_mode: ev.target.value as PhaseDraft['max_loss_mode'] })}
              >
                <option value="static">The initial balance (static)</option>
                <option value="trailing_eod">The highest day-end balance (trailing)</option>
              </Select>
            </Field>
            <Field
              label="Minimum trading days"
              hint="Days with at least one of the student's fills"
              error={e('min_trading_days')}
            >
              <Input
                inputMode="numeric"
                value={phase.min_trading_days}
                onChange={(ev) => setPhase(i, { min_trading_days: ev.target.value })}
              />
            </Field>
            <Field label="Days allowed" hint="The phase fails if not passed by then; empty for no limit" error={e('max_days')}>
              <Input inputMode="numeric" value={phase.max_days} onChange={(ev) => setPhase(i, { max_days: ev.target.value })} />
            </Field>
            <Field
              label="Best day at most (%)"
              hint="Of the phase's total profit; empty for no such rule"
              error={e('best_day_pct')}
            >
              <Input
                inputMode="decimal"
                value={phase.best_day_pct}
                onChange={(ev) => setPhase(i, { best_day_pct: ev.target.value })}
              />
            </Field>
            <Field label="Maximum lots per order" hint="Empty for no limit" error={e('max_lots')}>
              <Input inputMode="decimal" value={phase.max_lots} onChange={(ev) => setPhase(i, { max_lots: ev.target.value })} />
            </Field>
            <label className="cohort-form__check">
              <input
                type="checkbox"
                checked={phase.require_stop_loss}
                onChange={(ev) => setPhase(i, { require_stop_loss: ev.target.checked })}
              />{' '}
              Every position needs a stop loss
            </label>
          </fieldset>
        );
      })}
      <div className="cohort-form__actions">
        {draft.phases.length < 3 && (
          <Button
            variant="secondary"
            type="button"
            onClick={() =>
              set({ phases: [...draft.phases, newPhase(draft.phases.length === 1 ? 'Verification' : 'Phase 3', '5')] })
            }
          >
            Add phase
          </Button>
        )}
        {draft.phases.length > 1 && (
          <Button variant="secondary" type="button" onClick={() => set({ phases: draft.phases.slice(0, -1) })}>
            Remove last phase
          </Button>
        )}
        <Button variant="primary" type="submit" busy={save.isPending}>
          Create program
        </Button>
        <Button variant="secondary" type="button" onClick={onDone}>
          Cancel
        </Button>
      </div>
    </form>
  );
}
