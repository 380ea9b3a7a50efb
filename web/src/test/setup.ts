import '@testing-library/jest-dom/vitest';
import { cleanup, configure } from '@testing-library/react';
import { afterEach, vi } from 'vitest';

// Screens are lazy routes (app/AppRoutes.tsx): the first render of one waits for its module,
// which a loaded CI machine transforms in more than the library's default second. Waiting up to
// five seconds for what a user would see keeps such a test about the screen, not about the machine.
configure({ asyncUtilTimeout: 5_000 });

afterEach(() => {
  cleanup();
  vi.useRealTimers();
  vi.unstubAllGlobals();
  localStorage.clear();
  sessionStorage.clear();
  window.history.replaceState(null, '', '/');
  document.documentElement.removeAttribute('data-theme');
});
