import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, Page } from '@playwright/test';
import type { AxeResults } from 'axe-core';
import { expect, submitLogin, test } from './support/session.js';
import { createTrader, placeFromDashboard, setRole, signInAs } from './support/traders.js';

/*
 * The academy (docs/screens.md#academy, #change-password) against the real server: an admin
 * creates a cohort, adds an instructor and imports two students from a CSV file; a student signs
 * in with the temporary password, must change it, and trades; the instructor sees the trade on
 * the live roster, comments on it and resets the student; the student sees the comment and the
 * restored balance.
 *
 * Found by: regions "Roster", "Import students", "Import preview", "Import result", "Instructors",
 * "Account Info", "Trade Journal"; test ids roster-row-<userId>, temporary-password-<email>,
 * journal-entry-<tradeId>, account-balance.
 */

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core's serious and critical violations on the page as it stands (as the accessibility journey runs it). */
async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(axeSource);
  const results = await page.evaluate(() =>
    (window as unknown as { axe: { run(context: Document): Promise<AxeResults> } }).axe.run(document),
  );
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(' | ')}`);
}

async function newPage(browser: Browser): Promise<Page> {
  const context = await browser.newContext();
  return context.newPage();
}

async function accessToken(page: Page): Promise<string> {
  const token = await page.evaluate(() => localStorage.getItem('pipdesk.accessToken'));
  expect(token).toBeTruthy();
  return token ?? '';
}

test('an admin imports students; a student changes the temporary password and trades; the instructor comments and resets', async ({
  page,
  browser,
}) => {
  // Three people, a dozen screens and a few orders on a loaded two-core machine.
  test.setTimeout(240_000);
  const stamp = Date.now();
  const adminEmail = createTrader('Ada Admin');
  setRole(adminEmail, 'admin');
  const instructorEmail = createTrader('Ian Instructor');
  setRole(instructorEmail, 'instructor');
  const students = [
    { email: `sam-${stamp}@school.test`, name: 'Sam Student' },
    { email: `tia-${stamp}@school.test`, name: 'Tia Student' },
  ];
  const cohortName = `Cohort ${stamp}`;

  // ---- The admin: a cohort, its instructor, two students from a CSV file.
  const admin = page;
  await signInAs(admin, adminEmail);
  await admin.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Academy' }).click();
  await expect(admin.getByRole('heading', { level: 1, name: 'Academy' })).toBeVisible();
  const form = admin.getByRole('form', { name: 'New cohort' });
  await form.getByLabel('Name').fill(cohortName);
  await form.getByLabel('Starting balance (USD)').fill('10000');
  await form.getByLabel('Leverage').fill('100');
  await form.getByRole('button', { name: 'Create cohort' }).click();
  await admin.getByRole('link', { name: cohortName }).click();
  await expect(admin.getByRole('heading', { level: 1, name: cohortName })).toBeVisible();

  const instructors = admin.getByRole('region', { name: 'Instructors' });
  await instructors.getByLabel('Instructor e-mail').fill(instructorEmail);
  await instructors.getByRole('button', { name: 'Add instructor' }).click();
  await expect(instructors.getByText('Ian Instructor')).toBeVisible();

  const importCard = admin.getByRole('region', { name: 'Import students' });
  const csv = `email,full_name\n${students.map((s) => `${s.email},${s.name}`).join('\n')}\nnot-an-address,Nobody\n`;
  await importCard.getByLabel('Or choose a CSV file').setInputFiles({
    name: 'students.csv',
    mimeType: 'text/csv',
    buffer: Buffer.from(csv),
  });
  const preview = importCard.getByRole('region', { name: 'Import preview' });
  await expect(preview.getByRole('row')).toHaveCount(4);
  await expect(preview.getByRole('row').nth(3)).toContainText('Not an e-mail address: not-an-address');
  await importCard.getByRole('button', { name: 'Import 2 students' }).click();
  const result = importCard.getByRole('region', { name: 'Import result' });
  await expect(result.getByText('2 created, 0 added, 0 not imported')).toBeVisible();
  const temporary = (await result.getByTestId(`temporary-password-${students[0]!.email}`).textContent()) ?? '';
  expect(temporary.length).toBeGreaterThanOrEqual(8);
  expect(await seriousViolations(admin), 'serious or critical axe violations on the cohort page').toEqual([]);
  const downloading = admin.waitForEvent('download');
  await result.getByRole('button', { name: 'Download passwords (CSV)' }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toBe('temporary-passwords.csv');
  const file = readFileSync((await download.path()) ?? '', 'utf8');
  expect(file).toContain(`${students[0]!.email},${temporary}`);
  expect(file).toContain(students[1]!.email);

  // ---- The student: the temporary password must change before anything else; then a trade.
  const student = await newPage(browser);
  await student.goto('/login');
  await submitLogin(student, students[0]!.email, temporary);
  await expect(student.getByRole('heading', { level: 1, name: 'Change password' })).toBeVisible();
  await expect(student).toHaveURL(/\/account\/password$/);
  await student.goto('/orders');
  await expect(student).toHaveURL(/\/account\/password$/);
  await student.getByLabel('Temporary password').fill(temporary);
  await student.getByLabel('New password', { exact: true }).fill('sam-new-password-1');
  await student.getByLabel('Confirm new password').fill('sam-new-password-1');
  await student.getByRole('button', { name: 'Change password' }).click();
  await expect(student.getByRole('heading', { level: 1, name: 'Trading Dashboard' })).toBeVisible();
  await expect(student.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Leaderboard' })).toBeVisible();

  await expect(async () => {
    const placed = student.waitForResponse((r) => r.url().endsWith('/api/trading/place-market-order/'));
    await placeFromDashboard(student, 'EURUSD', 'BUY', '0.10');
    expect((await placed).status()).toBe(201);
  }).toPass({ timeout: 30_000 });

  // ---- The instructor: the open trade on the live roster, without a reload.
  const instructor = await newPage(browser);
  await signInAs(instructor, instructorEmail);
  await instructor.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Academy' }).click();
  await instructor.getByRole('link', { name: cohortName }).click();
  const roster = instructor.getByRole('region', { name: 'Roster' });
  const samRow = roster.getByRole('row').filter({ hasText: students[0]!.email });
  await expect(samRow).toContainText('1 / 0');
  await expect(samRow.getByText('No stop loss')).toBeVisible();

  // The student closes it; the roster follows by itself.
  const token = await accessToken(student);
  const positions = await student.request.get('/api/trading/platform-data/', { headers: { Authorization: `Bearer ${token}` } });
  const positionId = (await positions.json()).data.open_positions[0].id as number;
  const closed = await student.request.post(`/api/trading/close-position/${positionId}/`, {
    headers: { Authorization: `Bearer ${token}` },
    data: {},
  });
  expect(closed.status()).toBe(200);
  await expect(samRow).toContainText('0 / 0', { timeout: 20_000 });

  // The student page: comment on the closed trade, then reset.
  await samRow.getByRole('link', { name: 'Sam Student' }).click();
  await expect(instructor.getByRole('heading', { level: 1, name: 'Sam Student' })).toBeVisible();
  const entry = instructor.getByRole('region', { name: 'Trade Journal' }).getByRole('article').first();
  await entry.getByLabel('Comment', { exact: true }).fill('Good exit. Next time set a stop loss first.');
  await entry.getByRole('button', { name: 'Add comment' }).click();
  await expect(entry.getByRole('region', { name: 'Instructor comments' })).toContainText(
    'Good exit. Next time set a stop loss first.',
  );

  // The student sees it in their journal (before the reset: the journal lists the current period, docs/performance.md).
  await student.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Performance' }).click();
  const studentJournal = student.getByRole('region', { name: 'Trade Journal' });
  await expect(studentJournal.getByText('Good exit. Next time set a stop loss first.')).toBeVisible();

  expect(await seriousViolations(instructor), 'serious or critical axe violations on the student page').toEqual([]);
  await instructor.getByRole('button', { name: 'Reset account' }).click();
  const confirm = instructor.getByRole('alertdialog', { name: 'Confirm reset' });
  await confirm.getByRole('button', { name: 'Yes, reset' }).click();
  await expect(instructor.getByText('Account reset')).toBeVisible();
  await expect(instructor.getByRole('region', { name: 'Account Info' })).toContainText('Balance$10,000.00');

  // ---- The student: the restored balance.
  await student.goto('/');
  await expect(student.getByTestId('account-balance')).toHaveText('$10,000.00');
});
