import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { expect, it } from 'vitest';
import { ConnectionIndicator, ConnectionStatusProvider, useSetConnectionStatus } from './ConnectionStatus';

function FakeSocket() {
  const setStatus = useSetConnectionStatus();
  return (
    <>
      <button type="button" onClick={() => setStatus('live')}>
        established
      </button>
      <button type="button" onClick={() => setStatus('connecting')}>
        closed
      </button>
    </>
  );
}

it('shows Connecting... until the trading socket reports live, then Live Updates', async () => {
  const user = userEvent.setup();
  render(
    <ConnectionStatusProvider>
      <ConnectionIndicator />
      <FakeSocket />
    </ConnectionStatusProvider>,
  );
  expect(screen.getByRole('status')).toHaveTextContent(/^Connecting\.\.\.$/);
  await user.click(screen.getByRole('button', { name: 'established' }));
  expect(screen.getByRole('status')).toHaveTextContent(/^Live Updates$/);
  await user.click(screen.getByRole('button', { name: 'closed' }));
  expect(screen.getByRole('status')).toHaveTextContent(/^Connecting\.\.\.$/);
});
