import { type AlertCondition, type CreateAlertRequest, createAlertRequestSchema } from '@pipdesk/contract';

// What the alert forms (the Alerts page's and the chart's dialog) check before sending: the
// contract's schema, so the words are the server's (docs/charting.md#alerts).

export interface AlertDraft {
  symbol: string;
  condition: AlertCondition;
  priceText: string;
  note: string;
  /** A `datetime-local` value in the trader's zone, or '' for no expiry. */
  expiresText: string;
}

export type AlertDraftField = 'symbol' | 'price' | 'note' | 'expires_at';

export interface AlertDraftCheck {
  request: CreateAlertRequest | null;
  errors: Partial<Record<AlertDraftField, string>>;
}

const capital = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** The request a draft makes, or what is wrong with it, field by field; `now` for the expiry. */
export function checkAlertDraft(draft: AlertDraft, now: number): AlertDraftCheck {
  const errors: AlertDraftCheck['errors'] = {};
  if (draft.priceText.trim() === '') errors.price = 'Enter a price';
  const expires = draft.expiresText ? Date.parse(draft.expiresText) : null;
  if (expires !== null && (!Number.isFinite(expires) || expires <= now)) errors.expires_at = 'Expiry must be in the future';
  const parsed = createAlertRequestSchema.safeParse({
    symbol: draft.symbol,
    condition: draft.condition,
    price: Number(draft.priceText.trim()),
    ...(draft.note.trim() ? { note: draft.note.trim() } : {}),
    ...(expires !== null && Number.isFinite(expires) ? { expires_at: new Date(expires).toISOString() } : {}),
  });
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const field = issue.path[0] as AlertDraftField | 'condition';
      if (field === 'condition') continue;
      errors[field] ??= capital(issue.message);
    }
  }
  return { request: parsed.success && Object.keys(errors).length === 0 ? parsed.data : null, errors };
}
