import { type LoginResponse, loginResponseSchema } from '@pipdesk/contract';
import type { NewTrader } from '../accounts/index.js';
import { type CreatedTrader, createTrader } from '../accounts/service.js';
import type { TestApp } from './helpers.js';

let counter = 0;

/** Creates a trader (user, profile, 10,000.00 USD account unless told otherwise) in a test app's database. */
export async function addTrader(t: TestApp, overrides: Partial<NewTrader> = {}): Promise<CreatedTrader & { password: string }> {
  counter += 1;
  const password = overrides.password ?? `password-${counter}-long-enough`;
  const trader = await createTrader(t.ctx, {
    email: `trader${counter}.${process.pid}@example.com`,
    fullName: `Trader ${counter}`,
    ...overrides,
    password,
  });
  return { ...trader, password };
}

/** Signs in through the API; fails the test unless the answer is 200. */
export async function signIn(t: TestApp, email: string, password: string, remoteAddress = '127.0.0.1'): Promise<LoginResponse> {
  const res = await t.app.inject({ method: 'POST', url: '/api/auth/login/', payload: { email, password }, remoteAddress });
  if (res.statusCode !== 200) throw new Error(`sign-in of ${email} answered ${res.statusCode}: ${res.body}`);
  return loginResponseSchema.parse(res.json().data);
}

/** A trader signed in through the API, with the header every protected call needs. */
export async function signedInTrader(t: TestApp, overrides: Partial<NewTrader> = {}) {
  const trader = await addTrader(t, overrides);
  const session = await signIn(t, trader.email, trader.password);
  return { ...trader, session, headers: { authorization: `Bearer ${session.token}` } };
}
