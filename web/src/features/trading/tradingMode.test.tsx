import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { beforeEach, describe, expect, it } from 'vitest';
import { ApiClient, TokenStore } from '../../api';
import { FakeAuthServer } from '../../test/fakeAuthServer';
import { renderApp } from '../../test/render';
import { makePlatformData, serveTrading } from './testSupport';
import { DEMO_MODE_TEXT, TradingModeSwitch, tradingMode, useTradingMode } from './tradingMode';

const DEMO_STATUS = '/api/demo/account/status/';
let server: FakeAuthServer;

beforeEach(() => {
  server = new FakeAuthServer().install();
  server.signedInBefore();
});

/** What a screen would do with the switch, were there a control for it. */
function ModeProbe({ modeSwitch }: { modeSwitch: TradingModeSwitch }) {
  const { mode, switchTo } = useTradingMode(modeSwitch);
  const [error, setError] = useState('');
  return (
    <>
      <output aria-label="mode">{mode}</output>
      <button type="button" onClick={() => switchTo('demo').catch((err: Error) => setError(err.message))}>
        ask for demo
      </button>
      <p>{error}</p>
    </>
  );
}

describe('the trading mode (docs/screens.md#trading-mode)', () => {
  it('is live by default; asking for demo fails with Demo trading mode not yet implemented and stays live', async () => {
    server.on(DEMO_STATUS, () => ({
      status: 400,
      body: { success: false, error: 'Demo trading mode not yet implemented', code: 'DEMO_NOT_IMPLEMENTED' },
    }));
    const modeSwitch = new TradingModeSwitch(new ApiClient(new TokenStore()));
    render(<ModeProbe modeSwitch={modeSwitch} />);
    expect(screen.getByRole('status', { name: 'mode' })).toHaveTextContent('live');
    await userEvent.setup().click(screen.getByRole('button', { name: 'ask for demo' }));
    expect(await screen.findByText(DEMO_MODE_TEXT)).toBeVisible();
    expect(DEMO_MODE_TEXT).toBe('Demo trading mode not yet implemented');
    expect(server.callsTo(DEMO_STATUS)).toHaveLength(1);
    expect(screen.getByRole('status', { name: 'mode' })).toHaveTextContent('live');
    expect(modeSwitch.mode).toBe('live');
  });

  it("says the spec's text when the server gives none, and can't-reach when there is no answer", async () => {
    const modeSwitch = new TradingModeSwitch(new ApiClient(new TokenStore()));
    server.script(DEMO_STATUS, { status: 400, body: {} }, 'network-error');
    await expect(modeSwitch.switchTo('demo')).rejects.toThrow(DEMO_MODE_TEXT);
    await expect(modeSwitch.switchTo('demo')).rejects.toThrow("Can't reach the server. Check your connection.");
    await expect(modeSwitch.switchTo('live')).resolves.toBeUndefined();
    expect(modeSwitch.mode).toBe('live');
  });

  it('has no control on screen', async () => {
    serveTrading(server, () => makePlatformData());
    renderApp('/');
    expect(await screen.findByRole('heading', { level: 1, name: 'Trading Dashboard' })).toBeInTheDocument();
    await screen.findByRole('form', { name: 'Place Market Order' });
    const controls = ['button', 'link', 'checkbox', 'switch', 'radio', 'combobox', 'option', 'menuitem'] as const;
    for (const role of controls) expect(screen.queryAllByRole(role, { name: /demo|trading mode/i })).toEqual([]);
    expect(tradingMode.mode).toBe('live');
  });
});
