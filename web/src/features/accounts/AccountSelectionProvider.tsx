import type { AccountSummaryDto } from '@pipdesk/contract';
import { createContext, type ReactNode, useContext, useEffect, useLayoutEffect, useRef } from 'react';
import { type Location, useLocation, useNavigate, useNavigationType } from 'react-router';
import { accountSelection, parseAccountId } from '../../api';
import { LoadingScreen } from '../../components';
import { useTradingAccounts } from './api';

/** The URL's query parameter naming the selected account (docs/screens.md#account-switcher). */
export const ACCOUNT_PARAM = 'account';

export interface AccountSelectionValue {
  /** The trader's accounts, the primary one first; empty until they are known. */
  accounts: readonly AccountSummaryDto[];
  /** The selected account's id; undefined for the primary one. */
  selected: number | undefined;
}

// Without the provider (a screen's own tests): the primary account, as the spec's app.
const AccountSelectionContext = createContext<AccountSelectionValue>({ accounts: [], selected: undefined });

/** The trader's accounts and the selected one (undefined: the primary). */
export function useAccountSelection(): AccountSelectionValue {
  return useContext(AccountSelectionContext);
}

/** The account named by a location's `?account=`, when it is a well-formed id. */
export function accountInSearch(search: string): number | undefined {
  return parseAccountId(new URLSearchParams(search).get(ACCOUNT_PARAM));
}

/** `search` with `?account=` set to `account`, or removed for undefined. */
export function searchWithAccount(search: string, account: number | undefined): string {
  const params = new URLSearchParams(search);
  if (account === undefined) params.delete(ACCOUNT_PARAM);
  else params.set(ACCOUNT_PARAM, String(account));
  const text = params.toString();
  return text ? `?${text}` : '';
}

/**
 * The selected account, from the URL (docs/screens.md#account-switcher): a link, a reload and Back
 * keep it because the address holds it. Mount it once, inside the sign-in, around everything that
 * reads the trader's data (the live feed, the layout, the screens).
 *
 * - `?account=` naming one of the trader's accounts selects it; the primary account's id, an id
 *   the accounts call does not list, or anything else falls back to the primary account and the
 *   parameter is dropped (a replace, so Back does not return to it).
 * - An in-app navigation that leaves the parameter out (a form's filters written to the address, a
 *   redirect) keeps the account and puts the parameter back; links carry it already (`./links`).
 *   Back, Forward and a reload (a POP) take the address as it is: its account is the one it had.
 */
export function AccountSelectionProvider({ children }: { children: ReactNode }) {
  const location = useLocation();
  const navigationType = useNavigationType();
  const navigate = useNavigate();
  const accounts = useTradingAccounts();
  const list = accounts.data;
  // The account of the last committed render: what a navigation without the parameter keeps.
  const lastSelected = useRef<number | undefined>(undefined);

  const named = accountInSearch(location.search);
  const dropped = named === undefined && navigationType !== 'POP' ? lastSelected.current : undefined;
  const wanted = named ?? dropped;
  // Until the list is known an id is taken on trust (the server checks it anyway, 404); a list
  // that failed to load leaves it so, rather than moving the trader to another account.
  const known = wanted === undefined || !list || list.some((a) => a.id === wanted);
  const primary = list?.find((a) => a.kind === 'primary');
  const selected = !known || wanted === primary?.id ? undefined : wanted;
  // While an account named in the address is checked, nothing shows: a screen of the primary
  // account under an address naming another, or a burst of 404s for an id not the trader's.
  const checking = named !== undefined && accounts.isPending;

  // Written during render, not in an effect: the screens below hash their query keys and send
  // their calls with it in this same render (app/queryClient.ts). It is a pure function of the
  // address and the accounts, so a render React throws away writes what the next one writes.
  if (!checking) accountSelection.select(selected);

  useLayoutEffect(() => {
    if (!checking) lastSelected.current = selected;
  }, [checking, selected]);

  // The address says what is selected: put back a parameter a navigation left out, drop one that
  // named the primary account or none of the trader's.
  useEffect(() => {
    if (checking || named === selected) return;
    navigate(
      { pathname: location.pathname, search: searchWithAccount(location.search, selected), hash: location.hash },
      { replace: true, state: (location as Location<unknown>).state },
    );
  }, [checking, named, selected, location, navigate]);

  // Signed out (the provider leaves): the next trader starts on their primary account. Selected
  // again on mount, for StrictMode's mount, unmount, mount in development.
  useEffect(() => {
    accountSelection.select(lastSelected.current);
    return () => accountSelection.select(undefined);
  }, []);

  if (checking) return <LoadingScreen />;
  return (
    <AccountSelectionContext.Provider value={{ accounts: list ?? [], selected }}>{children}</AccountSelectionContext.Provider>
  );
}
