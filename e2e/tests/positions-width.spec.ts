import { expect, test } from './support/session.js';
import { createTrader, placeFromDashboard, signInAs } from './support/traders.js';

/*
 * The dashboard's Open Positions at common desktop widths (docs/screens.md#closing-a-position):
 * a position's Close stays in sight, inside the table's visible box, without a horizontal
 * scroll, even with a trailing stop filled in (the widest row).
 */
for (const width of [1280, 1440, 1920]) {
  test.describe(`at ${width} px`, () => {
    test.use({ viewport: { width, height: 900 } });

    test('the Close of an open position is in sight without scrolling sideways', async ({ page }) => {
      await signInAs(page, createTrader(`Wide ${width}`));
      await placeFromDashboard(page, 'EURUSD', 'BUY', '0.10');
      const positions = page.getByRole('region', { name: 'Open Positions' });
      const close = positions.getByRole('button', { name: 'Close EURUSD position' });
      await expect(close).toBeVisible();
      const box = await close.boundingBox();
      const scroller = await positions.locator('.table-wrap').boundingBox();
      expect(box, 'the Close button has a box').not.toBeNull();
      expect(scroller, 'the table has a box').not.toBeNull();
      // Wholly inside the table's visible box and the window, with the table scrolled to its start.
      expect(await positions.locator('.table-wrap').evaluate((el) => el.scrollLeft)).toBe(0);
      expect(box!.x).toBeGreaterThanOrEqual(scroller!.x);
      expect(box!.x + box!.width).toBeLessThanOrEqual(scroller!.x + scroller!.width + 0.5);
      expect(box!.x + box!.width).toBeLessThanOrEqual(width);
      // And it is the element a click there reaches (not covered by the edge's fade or a cell).
      await close.click({ trial: true });
    });
  });
}
