import type { Alert } from '@pipdesk/contract';

/** An ACTIVE EURUSD "bid above 1.10000" alert with a note; override what a test needs. */
export function makeAlert(overrides: Partial<Alert> = {}): Alert {
  return {
    id: 7,
    symbol: 'EURUSD',
    condition: 'bid_above',
    price: 1.1,
    note: 'breakout',
    status: 'ACTIVE',
    created_at: '2026-04-01T12:00:00.000Z',
    expires_at: null,
    triggered_at: null,
    triggered_price: null,
    ...overrides,
  };
}
