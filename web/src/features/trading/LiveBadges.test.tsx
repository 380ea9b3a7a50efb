import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { expect, it } from 'vitest';
import { ConnectionStatusProvider, useSetConnectionStatus } from '../../realtime/ConnectionStatus';
import { LiveIndicator } from './LiveBadges';

function GaveUp() {
  const setStatus = useSetConnectionStatus();
  return (
    <button type="button" onClick={() => setStatus('offline')}>
      gave up
    </button>
  );
}

it("the pair page's positions indicator says Offline once the trading socket gave up, not Connecting... for ever", async () => {
  render(
    <ConnectionStatusProvider>
      <LiveIndicator />
      <GaveUp />
    </ConnectionStatusProvider>,
  );
  const indicator = screen.getByRole('status', { name: 'Positions feed' });
  expect(indicator).toHaveTextContent(/^Connecting\.\.\.$/);
  await userEvent.setup().click(screen.getByRole('button', { name: 'gave up' }));
  expect(indicator).toHaveTextContent(/^Offline$/);
});
