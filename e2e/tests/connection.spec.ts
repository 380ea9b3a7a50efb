import { expect, test } from './support/session.js';
import { createTrader, signInAs } from './support/traders.js';

/*
 * The header's connection state is honest (docs/screens.md#header): after the trading socket's
 * 5 reconnects are spent it reads Offline with a Retry button, and prices keep polling.
 */

test('with the trading socket blocked the header ends on Offline with Retry, prices keep polling, Retry goes live', async ({
  page,
}) => {
  test.setTimeout(90_000);
  let blocked = true;
  let attempts = 0;
  await page.routeWebSocket(/\/ws\/trading\/$/, (ws) => {
    attempts++;
    if (blocked) ws.close({ code: 1011, reason: 'blocked by the test' });
    else ws.connectToServer();
  });
  const polls: number[] = [];
  page.on('response', (r) => {
    if (r.url().endsWith('/api/trading/current-prices/') && r.status() === 200) polls.push(Date.now());
  });

  await signInAs(page, createTrader('Otto Offline'));
  const indicator = page.locator('.connection-indicator');
  const retry = page.getByRole('banner').getByRole('button', { name: 'Retry' });
  await expect(indicator).toHaveText('Connecting...');
  await expect(retry).toHaveCount(0);

  // The first attempt and 5 reconnects, 3 to 4 s apart.
  await expect(indicator).toHaveText('Offline', { timeout: 30_000 });
  expect(attempts).toBe(6);
  await expect(retry).toBeVisible();
  await expect(page.getByRole('status', { name: 'Data feed' })).toHaveText('Polling Mode (5s)');
  const pollsWhenOffline = polls.length;
  await expect.poll(() => polls.length, { timeout: 12_000 }).toBeGreaterThanOrEqual(pollsWhenOffline + 2);
  // Still Offline: nothing tries again by itself.
  await expect(indicator).toHaveText('Offline');
  expect(attempts).toBe(6);

  blocked = false;
  await retry.click();
  await expect(indicator).toHaveText('Live Updates');
  await expect(retry).toHaveCount(0);
  await expect(page.getByRole('status', { name: 'Data feed' })).toHaveText('Live Updates');
});
