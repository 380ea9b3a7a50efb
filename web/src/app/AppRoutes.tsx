import type { ReactNode } from 'react';
import { Navigate, Route, Routes, useLocation } from 'react-router';
import { LoginPage } from '../auth/LoginPage';
import { useSession } from '../auth/SessionProvider';
import { LoadingScreen } from '../components';
import { AcademyPage } from '../features/academy/AcademyPage';
import { CohortPage } from '../features/academy/CohortPage';
import { LeaderboardPage } from '../features/academy/LeaderboardPage';
import { StudentPage } from '../features/academy/StudentPage';
import { useMustChangePassword } from '../features/account/api';
import { ChangePasswordPage, ForcedPasswordChange } from '../features/account/ChangePasswordPage';
import { AlertsPage } from '../features/alerts/AlertsPage';
import { DashboardPage } from '../features/dashboard/DashboardPage';
import { NewsPage } from '../features/news/NewsPage';
import { OrdersPage } from '../features/orders/OrdersPage';
import { PairPage } from '../features/pair/PairPage';
import { PerformancePage } from '../features/performance/PerformancePage';
import { LiveTradingProvider } from '../features/trading';
import { NoticeProvider } from '../notices/NoticeProvider';
import { AppLayout } from './AppLayout';

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
            {/* One trading socket and price feed for every signed-in screen (docs/screens.md#live-data-and-polling),
                and the notices that report what happened on any of them (docs/screens.md#notices). */}
            <NoticeProvider>
              <LiveTradingProvider>
                <AppLayout />
              </LiveTradingProvider>
            </NoticeProvider>
          </RequireSession>
        }
      >
        <Route index element={<DashboardPage />} />
        <Route path="pair/:symbol" element={<PairPage />} />
        <Route path="orders" element={<OrdersPage />} />
        <Route path="news" element={<NewsPage />} />
        <Route path="performance" element={<PerformancePage />} />
        <Route path="alerts" element={<AlertsPage />} />
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
