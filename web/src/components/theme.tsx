import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo, useState } from 'react';
import { MoonIcon, SunIcon } from './icons';

export type Theme = 'dark' | 'light';

/** Read before React starts by public/theme-init.js too, so the first paint has the right colours. */
export const THEME_KEY = 'pipdesk.theme';

/** The system's preference (public/theme-init.js asks the same query). */
const LIGHT_QUERY = '(prefers-color-scheme: light)';

/** The theme the trader picked in this browser, or null while they have not. */
function pickedTheme(): Theme | null {
  try {
    const stored = window.localStorage.getItem(THEME_KEY);
    return stored === 'light' || stored === 'dark' ? stored : null;
  } catch {
    return null;
  }
}

function lightQuery(): MediaQueryList | null {
  return typeof window.matchMedia === 'function' ? window.matchMedia(LIGHT_QUERY) : null;
}

/** The system's colour scheme; dark (the trading default) when the browser does not say. */
function systemTheme(): Theme {
  return lightQuery()?.matches ? 'light' : 'dark';
}

interface ThemeContextValue {
  theme: Theme;
  setTheme(theme: Theme): void;
  toggleTheme(): void;
}

const ThemeContext = createContext<ThemeContextValue | null>(null);

/**
 * The theme follows the system's `prefers-color-scheme` (dark when it says nothing) until the
 * trader picks one with the toggle; the pick is remembered per browser and then wins.
 */
export function ThemeProvider({ children }: { children: ReactNode }) {
  const [picked, setPicked] = useState<Theme | null>(pickedTheme);
  const [system, setSystem] = useState<Theme>(systemTheme);
  const theme = picked ?? system;

  useEffect(() => {
    const query = lightQuery();
    if (!query) return;
    const follow = () => setSystem(query.matches ? 'light' : 'dark');
    follow();
    query.addEventListener('change', follow);
    return () => query.removeEventListener('change', follow);
  }, []);

  useEffect(() => {
    const root = document.documentElement;
    root.dataset.theme = theme;
    root.style.colorScheme = theme;
  }, [theme]);

  const setTheme = useCallback((next: Theme) => {
    setPicked(next);
    try {
      window.localStorage.setItem(THEME_KEY, next);
    } catch {
      // Not remembered when storage is blocked; the choice still applies to this page.
    }
  }, []);
  const value = useMemo<ThemeContextValue>(
    () => ({ theme, setTheme, toggleTheme: () => setTheme(theme === 'dark' ? 'light' : 'dark') }),
    [theme, setTheme],
  );
  return <ThemeContext.Provider value={value}>{children}</ThemeContext.Provider>;
}

export function useTheme(): ThemeContextValue {
  const value = useContext(ThemeContext);
  if (!value) throw new Error('useTheme must be used inside <ThemeProvider>');
  return value;
}

/** The header's switch between the dark and the light theme. */
export function ThemeToggle() {
  const { theme, toggleTheme } = useTheme();
  const label = theme === 'dark' ? 'Switch to light theme' : 'Switch to dark theme';
  return (
    <button type="button" className="icon-btn" onClick={toggleTheme} aria-label={label} title={label}>
      {theme === 'dark' ? <SunIcon /> : <MoonIcon />}
    </button>
  );
}
