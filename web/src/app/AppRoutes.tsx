import { type ComponentType, lazy, type ReactNode, Suspense } from 'react';
import { Navigate, Route, Routes, useLocation } from 'react-router';
import { useSession } from '../auth/SessionProvider';
import { LoadingScreen, Spinner } from '../components';
import { useMustChangePassword } from '../features/account/api';
import { AccountSelectionProvider } from '../features/accounts';
import { DashboardPage } from '../features/dashboard/DashboardPage';
import { LiveTradingProvider } from '../features/trading';
import { NoticeProvider } from '../notices/NoticeProvider';
import { AppLayout } from './AppLayout';

/**
 * A screen loaded when it is first opened: the dashboard's first load stays small (at most 150 KB
 * of gzipped JS, bench/web-bundle.mjs) while the charting and indicator libraries, the academy and
 * the other screens come with the page that needs them. The sign-in and password screens too: a
 * signed-in trader opening the dashboard needs neither.
 */
function lazyPage(load: () => Promise<ComponentType>) {
  const Screen = lazy(() => load().then((component) => ({ default: component })));
  return function LazyPage() {
    return (
      <Suspense
        fallback={
          <div className="pair-loading" role="status">
            <Spinner />
            <span>Loading...</span>
          </div>
        }
      >
        <Screen />
      </Suspense>
    );
  };
}

const LoginPage = lazyPage(() => import('../auth/LoginPage').then((m) => m.LoginPage));
const ChangePasswordPage = lazyPage(() => import('../features/account/ChangePasswordPage').then((m) => m.ChangePasswordPage));
const ForcedPasswordChange = lazyPage(() => import('../features/account/ChangePasswordPage').then((m) => m.ForcedPasswordChange));
const PairPage = lazyPage(() => import('../features/pair/PairPage').then((m) => m.PairPage));
const ChartsPage = lazyPage(() => import('../features/chart/ChartsPage').then((m) => m.ChartsPage));
const OrdersPage = lazyPage(() => import('../features/orders/OrdersPage').then((m) => m.OrdersPage));
const NewsPage = lazyPage(() => import('../features/news/NewsPage').then((m) => m.NewsPage));
const PerformancePage = lazyPage(() => import('../features/performance/PerformancePage').then((m) => m.PerformancePage));
const AcademyPage = lazyPage(() => import('../features/academy/AcademyPage').then((m) => m.AcademyPage));
const CohortPage = lazyPage(() => import('../features/academy/CohortPage').then((m) => m.CohortPage));
const StudentPage = lazyPage(() => import('../features/academy/StudentPage').then((m) => m.StudentPage));
const LeaderboardPage = lazyPage(() => import('../features/academy/LeaderboardPage').then((m) => m.LeaderboardPage));
const ReplayPage = lazyPage(() => import('../features/replay/ReplayPage').then((m) => m.ReplayPage));
const AlertsPage = lazyPage(() => import('../features/alerts/AlertsPage').then((m) => m.AlertsPage));

/** Where the trader was going when the sign-in screen came up. */
interface LoginLocationState {
  from?: string;
}

/**
 * Screens behind the sign-in: the loading text while the session is checked, else /login.
 * The sign-in returns to the page asked for, or left when the session expired; never after a
 * Logout, when the next to sign in may be someone else (docs/screens.md#sign-in-and-session).
 */
function RequireSession({ children }: { children: ReactNode }) {
  const { state } = useSession();
  const location = useLocation();
  if (state.status === 'checking') return <LoadingScreen />;
  if (state.status === 'signed-out') {
    if (state.loggedOut) return <Navigate to="/login" replace />;
    const from = `${location.pathname}${location.search}${location.hash}`;
    return <Navigate to="/login" replace state={{ from } satisfies LoginLocationState} />;
  }
  return <RequirePasswordChanged>{children}</RequirePasswordChanged>;
}

/** The change-password screen path; a temporary password keeps the user there (docs/screens.md#change-password). */
const PASSWORD_PATH = '/account/password';

/** A temporary password blocks every screen but the change-password one, shown without the app around it. */
function RequirePasswordChanged({ children }: { children: ReactNode }) {
  const mustChange = useMustChangePassword();
  const location = useLocation();
  if (!mustChange) return children;
  if (location.pathname !== PASSWORD_PATH) return <Navigate to={PASSWORD_PATH} replace />;
  return <ForcedPasswordChange />;
}

/**
 * A path of this app to return to. `//host/x` and `/\\host/x` are addresses of another site
 * (the browser reads them so), which the router refuses by throwing: the app would go blank.
 */
function isAppPath(path: string): boolean {
  return path.startsWith('/') && !/^\/[/\\]/.test(path) && !path.startsWith('/login');
}

function LoginRoute() {
  const { state } = useSession();
  const location = useLocation();
  if (state.status === 'checking') return <LoadingScreen />;
  if (state.status === 'signed-in') {
    const from = (location.state as LoginLocationState | null)?.from;
    return <Navigate to={from && isAppPath(from) ? from : '/'} replace />;
  }
  return <LoginPage />;
}

/** The routes of docs/screens.md#routes. A new screen is one more <Route> under the layout. */
export function AppRoutes() {
  return (
    <Routes>
      <Route path="/login" element={<LoginRoute />} />
      <Route
        element={
          <RequireSession>
            {/* The account every screen, socket and notice follows, from the address (docs/screens.md#account-switcher);
                one trading socket and price feed for every signed-in screen (docs/screens.md#live-data-and-polling),
                and the notices that report what happened on any of them (docs/screens.md#notices). */}
            <AccountSelectionProvider>
              <NoticeProvider>
                <LiveTradingProvider>
                  <AppLayout />
                </LiveTradingProvider>
              </NoticeProvider>
            </AccountSelectionProvider>
          </RequireSession>
        }
      >
        <Route index element={<DashboardPage />} />
        <Route path="pair/:symbol" element={<PairPage />} />
        <Route path="charts" element={<ChartsPage />} />
        <Route path="orders" element={<OrdersPage />} />
        <Route path="news" element={<NewsPage />} />
        <Route path="performance" element={<PerformancePage />} />
        <Route path="alerts" element={<AlertsPage />} />
        <Route path="replay" element={<ReplayPage />} />
        <Route path="academy" element={<AcademyPage />} />
        <Route path="academy/cohorts/:cohortId" element={<CohortPage />} />
        <Route path="academy/students/:studentId" element={<StudentPage />} />
        <Route path="leaderboard" element={<LeaderboardPage />} />
        <Route path="account/password" element={<ChangePasswordPage />} />
        <Route path="*" element={<Navigate to="/" replace />} />
      </Route>
    </Routes>
  );
}
