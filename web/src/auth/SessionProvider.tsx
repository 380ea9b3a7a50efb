import type { UserDto } from '@pipdesk/contract';
import { createContext, type ReactNode, useContext, useEffect, useMemo, useState, useSyncExternalStore } from 'react';
import { type ApiClient, api as defaultApi } from '../api';
import { SessionController, type SessionState } from './session';

interface SessionContextValue {
  state: SessionState;
  login(email: string, password: string): Promise<void>;
  logout(): Promise<void>;
  /** After a successful password change: lifts the change-password screen a temporary password put first. */
  passwordChanged(): void;
}

const SessionContext = createContext<SessionContextValue | null>(null);

/** Runs the session for the app below it. `client` is for tests; the app uses the shared one. */
export function SessionProvider({ children, client = defaultApi }: { children: ReactNode; client?: ApiClient }) {
  const [controller] = useState(() => new SessionController(client, client.tokens));
  const state = useSyncExternalStore(controller.subscribe, controller.getState);
  useEffect(() => {
    void controller.start();
    return () => controller.stop();
  }, [controller]);
  const value = useMemo<SessionContextValue>(
    () => ({
      state,
      login: (e, p) => controller.login(e, p),
      logout: () => controller.logout(),
      passwordChanged: () => controller.passwordChanged(),
    }),
    [state, controller],
  );
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionContextValue {
  const value = useContext(SessionContext);
  if (!value) throw new Error('useSession must be used inside <SessionProvider>');
  return value;
}

/** The signed-in trader; only for screens behind the sign-in (it throws elsewhere). */
export function useTrader(): UserDto {
  const { state } = useSession();
  if (state.status !== 'signed-in') throw new Error('useTrader needs a signed-in session');
  return state.user;
}
