import type { Browser, Page } from '@playwright/test';
import { expect, test } from './support/scripted-market.js';
import { placeFromDashboard, signInAs, TRADER_PASSWORD } from './support/traders.js';

/*
 * An evaluation from both sides (docs/evaluations.md, docs/screens.md#programs,
 * docs/screens.md#objectives-panel) on a scripted market: an instructor creates a two-phase
 * program and starts an attempt; the student switches to the challenge account, trades, watches
 * the Objectives panel move with the market, and is stopped by the daily loss limit with the
 * snapshot shown; the instructor's board shows the failure.
 */

async function newPage(browser: Browser, baseURL: string): Promise<Page> {
  const context = await browser.newContext({ baseURL });
  return context.newPage();
}

/** Calls the API as a user signed in through it (the admin's set-up needs no screen). */
async function apiAs(page: Page, email: string) {
  const login = await page.request.post('/api/auth/login/', { data: { email, password: TRADER_PASSWORD } });
  expect(login.status()).toBe(200);
  const token = ((await login.json()) as { data: { token: string } }).data.token;
  return async (method: 'POST' | 'GET', path: string, data?: unknown) => {
    const answer = await page.request.fetch(path, { method, headers: { authorization: `Bearer ${token}` }, data });
    expect(answer.status(), await answer.text()).toBeLessThan(300);
    return ((await answer.json()) as { data: Record<string, unknown> }).data;
  };
}

test('an instructor starts a two-phase evaluation; the student trades on it and is stopped by the daily loss', async ({
  browser,
  market,
}) => {
  test.setTimeout(120_000);
  const adminEmail = market.createTrader('Ada Admin');
  market.setRole(adminEmail, 'admin');
  const instructorEmail = market.createTrader('Ivan Instructor');
  market.setRole(instructorEmail, 'instructor');
  const studentEmail = market.createTrader('Stella Student');
  await market.tick('EURUSD', 1.1, 1.1002);

  // ---- The admin: a cohort with its instructor and the student.
  const adminPage = await newPage(browser, market.baseURL);
  const admin = await apiAs(adminPage, adminEmail);
  const cohort = await admin('POST', '/api/academy/cohorts/', {
    name: `Evaluated ${Date.now()}`,
    starting_balance: 10000,
    leverage: 100,
  });
  await admin('POST', `/api/academy/cohorts/${cohort.id}/instructors/`, { email: instructorEmail });
  await admin('POST', `/api/academy/cohorts/${cohort.id}/members/`, {
    students: [{ email: studentEmail, full_name: 'Stella Student' }],
  });

  // ---- The instructor: a two-phase program from the form, and an attempt for every member.
  const instructor = await newPage(browser, market.baseURL);
  await signInAs(instructor, instructorEmail);
  await instructor.goto(`/academy/cohorts/${cohort.id}`);
  const programs = instructor.getByRole('region', { name: 'Programs' });
  await programs.getByRole('button', { name: 'New program' }).click();
  const form = programs.getByRole('form', { name: 'New program' });
  await form.getByLabel('Name', { exact: true }).fill('Two-step challenge');
  await form.getByLabel('Leverage', { exact: true }).fill('100');
  await form.getByRole('button', { name: 'Add phase' }).click();
  await form.getByRole('button', { name: 'Create program' }).click();
  await expect(programs.getByText('Two-step challenge')).toBeVisible();
  await expect(programs.getByText(/Challenge: \+10%, daily −5%, max −10% · Verification: \+5%/)).toBeVisible();
  await programs.getByRole('button', { name: 'Start for all members' }).click();
  await expect(programs.getByText('Started 1')).toBeVisible();

  // ---- The student: the switcher, the challenge account, the Objectives panel.
  const student = await newPage(browser, market.baseURL);
  await signInAs(student, studentEmail);
  const switcher = student.getByRole('combobox', { name: 'Account' });
  await expect(switcher).toBeVisible();
  const challenge = await switcher.locator('option', { hasText: 'Two-step challenge' }).getAttribute('value');
  await switcher.selectOption(challenge ?? '');
  await expect(student).toHaveURL(/account=\d+/);
  const objectives = student.getByRole('region', { name: 'Objectives' });
  await expect(objectives.getByRole('heading', { name: 'Objectives: Challenge' })).toBeVisible();
  const daily = objectives.getByRole('row', { name: /Daily loss limit/ });
  // 10,000.00 at the start of the day: the floor is 9,500.00, all of the 500.00 left.
  await expect(daily).toContainText('$9,500.00');
  await expect(daily).toContainText('$500.00');
  await expect(student.getByRole('banner').getByText('Live Updates')).toBeVisible();

  // 0.10 lot: a pip (0.0001) is $1.00. Bought at the ask 1.1002, valued at the bid.
  await placeFromDashboard(student, 'EURUSD', 'BUY', '0.10');
  const notices = student.getByRole('region', { name: 'Notifications' });
  await expect(notices.getByText('Order filled')).toBeVisible();
  await market.tick('EURUSD', 1.0992, 1.0994);
  // Equity 10,000 − 10 pips = 9,990.00: 490.00 left above the floor, live.
  await expect(daily).toContainText('$490.00');

  // A loss of 500 pips: equity 9,500.00, at the floor. The attempt ends.
  await market.tick('EURUSD', 1.0502, 1.0504);
  await expect(notices.getByText('Evaluation failed')).toBeVisible();
  const failure = objectives.getByRole('alert');
  await expect(failure).toContainText('Failed: Daily loss limit');
  await expect(failure).toContainText('the equity was $9,500.00, at or below the floor of $9,500.00');
  await expect(objectives.getByText('Failed', { exact: true })).toBeVisible();

  // The account is read-only now.
  await placeFromDashboard(student, 'EURUSD', 'BUY', '0.10');
  await expect(student.getByText('This evaluation has ended: its account is read-only')).toBeVisible();

  // ---- The instructor's board shows it.
  await programs.getByRole('button', { name: 'Show attempts' }).click();
  const board = programs.getByRole('table', { name: 'Attempts' });
  await expect(board.getByRole('row', { name: /Stella Student/ })).toContainText('Failed Daily loss limit');
});
