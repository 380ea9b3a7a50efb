import {
  type CohortCreateRequest,
  type CohortDto,
  type CohortPatchRequest,
  type CohortStatus,
  cohortCreateRequestSchema,
} from '@pipdesk/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { errorMessage } from '../../api';
import { Alert, Button, Field, Input, Select } from '../../components';
import { academyKeys, createCohort, updateCohort } from './api';

export const COHORT_SAVE_FAILED = 'Failed to save the cohort';

interface Draft {
  name: string;
  description: string;
  starting_balance: string;
  leverage: string;
  starts_at: string;
  ends_at: string;
  allow_self_reset: boolean;
  status: CohortStatus;
}

type Errors = Partial<Record<keyof Draft, string>>;

const NEW_COHORT: Draft = {
  name: '',
  description: '',
  starting_balance: '10000',
  leverage: '100',
  starts_at: '',
  ends_at: '',
  allow_self_reset: false,
  status: 'active',
};

function draftOf(c: CohortDto): Draft {
  return {
    name: c.name,
    description: c.description,
    starting_balance: String(c.starting_balance),
    leverage: String(c.leverage),
    starts_at: c.starts_at?.slice(0, 10) ?? '',
    ends_at: c.ends_at?.slice(0, 10) ?? '',
    allow_self_reset: c.allow_self_reset,
    status: c.status,
  };
}

/** The draft as the request: a typed amount stays as typed (the contract checks its decimals). */
function requestOf(d: Draft): Record<string, unknown> {
  return {
    name: d.name,
    description: d.description,
    starting_balance: d.starting_balance.trim() === '' ? undefined : Number(d.starting_balance),
    leverage: d.leverage.trim() === '' ? undefined : Number(d.leverage),
    starts_at: d.starts_at || null,
    ends_at: d.ends_at || null,
    allow_self_reset: d.allow_self_reset,
  };
}

/** The contract's own checks, one message per field, worded as the server words them. */
export function checkCohort(d: Draft): { errors: Errors; request?: CohortCreateRequest } {
  const parsed = cohortCreateRequestSchema.safeParse(requestOf(d));
  if (parsed.success) return { errors: {}, request: parsed.data };
  const errors: Errors = {};
  for (const issue of parsed.error.issues) {
    const key = issue.path[0] as keyof Draft | undefined;
    if (key && !errors[key]) errors[key] = issue.message;
  }
  return { errors };
}

export interface CohortFormProps {
  /** The cohort to edit; a new one without it. */
  cohort?: CohortDto;
  onSaved?: (cohort: CohortDto) => void;
  onCancel?: () => void;
}

/** Creates a cohort, or edits one (sending only what changed), for admins (docs/screens.md#academy). */
export function CohortForm({ cohort, onSaved, onCancel }: CohortFormProps) {
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState<Draft>(() => (cohort ? draftOf(cohort) : NEW_COHORT));
  const [errors, setErrors] = useState<Errors>({});
  const save = useMutation({
    mutationFn: (request: CohortCreateRequest) => {
      if (!cohort) return createCohort(request);
      const before = checkCohort(draftOf(cohort)).request;
      const patch: CohortPatchRequest = {};
      for (const [k, v] of Object.entries(request) as [keyof CohortCreateRequest, unknown][])
        if (!before || before[k] !== v) (patch as Record<string, unknown>)[k] = v;
      if (draft.status !== cohort.status) patch.status = draft.status;
      // Nothing changed: nothing to send (the server refuses an empty change).
      if (Object.keys(patch).length === 0) return Promise.resolve(cohort);
      return updateCohort(cohort.id, patch);
    },
    onSuccess: (saved) => {
      void queryClient.invalidateQueries({ queryKey: academyKeys.cohorts });
      if (!cohort) setDraft(NEW_COHORT);
      onSaved?.(saved);
    },
  });
  const set = (change: Partial<Draft>) => setDraft((d) => ({ ...d, ...change }));

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const { errors: found, request } = checkCohort(draft);
    setErrors(found);
    if (request) save.mutate(request);
  };

  return (
    <form className="cohort-form" aria-label={cohort ? 'Edit cohort' : 'New cohort'} onSubmit={submit} noValidate>
      {save.isError && <Alert tone="error">{errorMessage(save.error, COHORT_SAVE_FAILED)}</Alert>}
      <Field label="Name" error={errors.name}>
        <Input value={draft.name} onChange={(e) => set({ name: e.target.value })} required />
      </Field>
      <Field label="Description" error={errors.description}>
        <Input value={draft.description} onChange={(e) => set({ description: e.target.value })} />
      </Field>
      <Field label="Starting balance (USD)" error={errors.starting_balance}>
        <Input inputMode="decimal" value={draft.starting_balance} onChange={(e) => set({ starting_balance: e.target.value })} />
      </Field>
      <Field label="Leverage" hint="1 to 1000, as N:1" error={errors.leverage}>
        <Input inputMode="numeric" value={draft.leverage} onChange={(e) => set({ leverage: e.target.value })} />
      </Field>
      <Field label="Starts" error={errors.starts_at}>
        <Input type="date" value={draft.starts_at} onChange={(e) => set({ starts_at: e.target.value })} />
      </Field>
      <Field label="Ends" error={errors.ends_at}>
        <Input type="date" value={draft.ends_at} onChange={(e) => set({ ends_at: e.target.value })} />
      </Field>
      {cohort && (
        <Field label="Status">
          <Select value={draft.status} onChange={(e) => set({ status: e.target.value as CohortStatus })}>
            <option value="active">Active</option>
            <option value="archived">Archived</option>
          </Select>
        </Field>
      )}
      <label className="cohort-form__check">
        <input type="checkbox" checked={draft.allow_self_reset} onChange={(e) => set({ allow_self_reset: e.target.checked })} />{' '}
        Students may reset their own account
      </label>
      <div className="cohort-form__actions">
        <Button type="submit" variant="primary" busy={save.isPending}>
          {save.isPending ? 'Saving...' : cohort ? 'Save cohort' : 'Create cohort'}
        </Button>
        {onCancel && (
          <Button variant="ghost" onClick={onCancel}>
            Cancel
          </Button>
        )}
      </div>
    </form>
  );
}
