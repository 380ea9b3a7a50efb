import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { DEMO_PASSWORD, DEMO_USER, FakeAuthServer } from '../test/fakeAuthServer';
import { renderApp } from '../test/render';

async function signIn() {
  const user = userEvent.setup();
  await user.type(await screen.findByLabelText('Email address'), DEMO_USER.email);
  await user.type(screen.getByLabelText('Password'), DEMO_PASSWORD);
  await user.click(screen.getByRole('button', { name: 'Sign in' }));
}

describe('the way back after signing in', () => {
  beforeEach(() => {
    new FakeAuthServer().install();
  });

  it('never leaves the app for an address that only looks like a path (//host, /\\host)', async () => {
    for (const path of ['//evil.example/steal', '/\\evil.example/steal']) {
      const { unmount } = renderApp(`${window.location.origin}${path}`);
      expect(await screen.findByRole('heading', { name: 'Trading Platform Login' })).toBeInTheDocument();
      await signIn();
      expect(await screen.findByRole('heading', { name: 'Trading Dashboard' })).toBeInTheDocument();
      expect(window.location.origin).toBe('http://localhost:3000');
      expect(window.location.pathname).toBe('/');
      unmount();
      localStorage.clear();
      window.history.replaceState(null, '', '/');
    }
  });
});
