import { expect, signInAsDemo, test } from './support/session.js';

/*
 * The chart's timeframes, indicators and the Charts page (docs/screens.md#timeframe-selector,
 * docs/screens.md#charts-page, docs/charting.md#indicators) against the real server and the real
 * charting library: no page error may happen while they draw.
 */

test('the pair page chart switches to H1 with its history, draws RSI in a pane of its own with a legend, and back to 1H', async ({
  page,
}) => {
  await signInAsDemo(page);
  await page.goto('/pair/EURUSD');
  const chart = page.getByTestId('price-chart');
  await expect(chart).toHaveAttribute('data-candles', '60');

  await page.getByRole('group', { name: 'Chart timeframe' }).getByRole('button', { name: 'H1' }).click();
  await expect(chart).toHaveAttribute('data-timeframe', 'h1');
  await expect(chart).toHaveAttribute('data-candles', /^[1-9]\d*$/);
  const times = ((await chart.getAttribute('data-candle-times')) ?? '').split(',').map(Number);
  for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(3_600_000);
  expect(times.every((t) => t % 3_600_000 === 0)).toBe(true);

  // Dragging the chart to the right scrolls back in time: older candles load with `before`.
  const loaded = Number(await chart.getAttribute('data-candles'));
  const box = (await chart.boundingBox())!;
  for (let i = 0; i < 4; i++) {
    await page.mouse.move(box.x + 60, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width - 120, box.y + box.height / 2, { steps: 8 });
    await page.mouse.up();
  }
  await expect.poll(async () => Number(await chart.getAttribute('data-candles'))).toBeGreaterThan(loaded);

  await page.getByRole('button', { name: 'Indicators', exact: true }).click();
  await page.getByRole('combobox', { name: 'Indicator to add' }).selectOption({ label: 'Relative strength index' });
  await page.getByRole('button', { name: 'Add', exact: true }).click();
  await page.keyboard.press('Escape');
  await expect(chart).toHaveAttribute('data-panes', '1');
  await expect(page.getByTestId('indicator-legend')).toContainText(/RSI 14 \d+\.\d{2}/);

  // Kept for the trader: a new visit draws it again.
  await page.waitForTimeout(1500);
  await page.reload();
  await expect(page.getByTestId('indicator-legend')).toContainText('RSI 14');

  await page.getByRole('button', { name: '1H', exact: true }).click();
  await expect(chart).toHaveAttribute('data-range', '1h');
  await expect(chart).toHaveAttribute('data-candles', '60');

  // Leave the trader's layout as it was for the other journeys.
  await page.getByRole('button', { name: /Indicators/ }).click();
  await page.getByRole('button', { name: 'Remove RSI 14' }).click();
  await expect(chart).not.toHaveAttribute('data-panes');
  await page.waitForTimeout(1500);
});

test('the Charts page shows two charts, each with its own pair and timeframe, kept across visits', async ({ page }) => {
  await signInAsDemo(page);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Charts' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Charts' })).toBeVisible();
  await expect(page.getByRole('region', { name: 'Chart 1: EURUSD H1' })).toBeVisible();

  await page.getByRole('button', { name: '2 charts' }).click();
  const second = page.getByRole('region', { name: /^Chart 2: / });
  await expect(second).toBeVisible();
  await second.getByRole('button', { name: 'M15' }).click();
  await expect(page.getByTestId('chart-panel-1')).toHaveAttribute('data-timeframe', 'm15');
  await expect(page.getByTestId('chart-panel-1')).toHaveAttribute('data-candles', /^[1-9]\d*$/);
  await expect(page.getByTestId('chart-panel-0')).toHaveAttribute('data-candles', /^[1-9]\d*$/);

  await page.waitForTimeout(1500);
  await page.reload();
  await expect(page.getByRole('region', { name: /^Chart 2: [A-Z]{6} M15$/ })).toBeVisible();

  await page.getByRole('button', { name: '1 chart' }).click();
  await expect(page.getByRole('region', { name: /^Chart 2: / })).toHaveCount(0);
  await page.waitForTimeout(1500);
});
