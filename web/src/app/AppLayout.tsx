import { lazy, Suspense, useEffect, useId, useState } from 'react';
import { Outlet, useLocation } from 'react-router';
import { useSession, useTrader } from '../auth/SessionProvider';
import { CloseIcon, LogoMark, MenuIcon, ThemeToggle } from '../components';
import { academyLinks } from '../features/academy/links';
import { useAcademyMe } from '../features/academy/me';
import { Link, NavLink, useAccountSelection } from '../features/accounts';
import { ConnectionIndicator } from '../realtime/ConnectionStatus';
import './layout.css';

// Neither shows anything when the page opens (a notice of missed alerts once their list came, the
// shortcuts' help on `?`), so their code (the dialog, the key table) loads just after the first
// load instead of in it (docs/decisions.md, code splitting).
const AlertWatch = lazy(() => import('../features/alerts/AlertWatch').then((m) => ({ default: m.AlertWatch })));
// Only a trader with several accounts sees it (docs/screens.md#account-switcher); the others never load it.
const AccountSwitcher = lazy(() => import('../features/accounts/AccountSwitcher').then((m) => ({ default: m.AccountSwitcher })));
const HotkeysHelp = lazy(() => import('../features/tools/HotkeysHelp').then((m) => ({ default: m.HotkeysHelp })));

/** The header's navigation (docs/screens.md#header). Add a screen here when it should be in the menu. */
const NAV_LINKS = [
  { to: '/', label: 'Dashboard', end: true },
  { to: '/orders', label: 'Orders', end: false },
  { to: '/news', label: 'News', end: false },
  { to: '/performance', label: 'Performance', end: false },
  // Beside the spec's links, as Performance is (docs/screens.md#charts-page).
  { to: '/charts', label: 'Charts', end: false },
  { to: '/alerts', label: 'Alerts', end: false },
  { to: '/replay', label: 'Replay', end: false },
] as const;

/** The frame of every signed-in screen: header with navigation, status and the trader; then the page. */
export function AppLayout() {
  const trader = useTrader();
  const { logout } = useSession();
  const { pathname } = useLocation();
  const { accounts, selected } = useAccountSelection();
  const [menuOpen, setMenuOpen] = useState(false);
  const menuId = useId();
  // After the base links (docs/screens.md#header): Academy for instructors and admins, Leaderboard
  // for a cohort's traders (docs/screens.md#academy).
  const me = useAcademyMe();
  const extraLinks = academyLinks(typeof me.data === 'object' ? me.data : undefined);

  // A page change closes the mobile menu, and so does another account (a new page too).
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs on navigation on purpose
  useEffect(() => setMenuOpen(false), [pathname, selected]);

  useEffect(() => {
    if (!menuOpen) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') setMenuOpen(false);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [menuOpen]);

  return (
    <div className="app">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="app-header">
        <div className="app-header__bar">
          <Link to="/" className="brand">
            <LogoMark />
            <span>Pipdesk</span>
          </Link>
          <div className="app-header__status">
            <ConnectionIndicator />
            <ThemeToggle />
          </div>
          <button
            type="button"
            className="icon-btn menu-toggle"
            aria-expanded={menuOpen}
            aria-controls={menuId}
            aria-label={menuOpen ? 'Close menu' : 'Open menu'}
            onClick={() => setMenuOpen((open) => !open)}
          >
            {menuOpen ? <CloseIcon /> : <MenuIcon />}
          </button>
          <div id={menuId} className="app-menu" data-open={menuOpen || undefined}>
            <nav className="app-nav" aria-label="Main">
              {NAV_LINKS.map((link) => (
                <NavLink key={link.to} to={link.to} end={link.end} className="app-nav__link">
                  {link.label}
                </NavLink>
              ))}
              {extraLinks.map((link) => (
                <NavLink key={link.to} to={link.to} className="app-nav__link">
                  {link.label}
                </NavLink>
              ))}
            </nav>
            <div className="app-user">
              <span className="app-user__welcome" title={`Welcome ${trader.full_name}`}>
                Welcome <strong>{trader.full_name}</strong>
              </span>
              <NavLink to="/account/password" className="app-nav__link app-user__password">
                Change password
              </NavLink>
              <button type="button" className="btn btn--secondary btn--sm" onClick={() => void logout()}>
                Logout
              </button>
            </div>
          </div>
        </div>
        {/* A row of its own under the bar, at every width: the account traded on is always in view,
            and the bar has no room left beside the links and the trader at common widths. */}
        {accounts.length > 1 && (
          <Suspense fallback={null}>
            <AccountSwitcher />
          </Suspense>
        )}
      </header>
      <main id="main" className="app-main" tabIndex={-1}>
        {/* A new account is a new page: nothing of the other account's (an open dialog, a filled-in
            form, a position picked to close) stays on screen under this one's name. */}
        <Outlet key={selected ?? 'primary'} />
      </main>
      {/* On every page: the alerts that fired while the trader was away, and the `?` shortcuts help. */}
      <Suspense fallback={null}>
        <AlertWatch userId={trader.id} />
        <HotkeysHelp />
      </Suspense>
    </div>
  );
}
