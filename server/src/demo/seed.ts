import type { AppContext } from '../core/context.js';

export const DEMO_EMAIL = 'demo@pipdesk.dev';
export const DEMO_PASSWORD = 'demo-trader-2026';
export const DEMO_NAME = 'Demo Trader';

/** Seeds the demo trader on a new database (DESIGN §7); does nothing when it exists. Implemented with the auth/accounts module. */
export async function seedDemo(_ctx: AppContext): Promise<void> {}
