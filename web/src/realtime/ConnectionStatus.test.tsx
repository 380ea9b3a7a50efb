import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { expect, it, vi } from 'vitest';
import { ConnectionIndicator, ConnectionStatusProvider, useSetConnectionRetry, useSetConnectionStatus } from './ConnectionStatus';

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

it('shows Offline with a Retry button once the socket gave up; Retry asks the socket to try again', async () => {
  const user = userEvent.setup();
  const retry = vi.fn();
  function GaveUp() {
    const setStatus = useSetConnectionStatus();
    const setRetry = useSetConnectionRetry();
    return (
      <button
        type="button"
        onClick={() => {
          setRetry(retry);
          setStatus('offline');
        }}
      >
        gave up
      </button>
    );
  }
  render(
    <ConnectionStatusProvider>
      <ConnectionIndicator />
      <GaveUp />
    </ConnectionStatusProvider>,
  );
  expect(screen.queryByRole('button', { name: 'Retry' })).toBeNull();
  await user.click(screen.getByRole('button', { name: 'gave up' }));
  expect(screen.getByRole('status')).toHaveTextContent(/^Offline$/);
  await user.click(screen.getByRole('button', { name: 'Retry' }));
  expect(retry).toHaveBeenCalledTimes(1);
});
