// The one module allowed to import React Router's links (biome.json, noRestrictedImports).
import {
  type LinkProps,
  type NavLinkProps,
  parsePath,
  Link as RouterLink,
  NavLink as RouterNavLink,
  type To,
} from 'react-router';
import { ACCOUNT_PARAM, useAccountSelection } from './AccountSelectionProvider';

/**
 * `to` with the selected account's `?account=` (docs/screens.md#account-switcher), unless it names
 * one already. A link's address is complete, so one opened in a new tab or copied shows the same
 * account; the provider's put-back covers the navigations that are not links.
 */
export function withAccount(to: To, account: number | undefined): To {
  if (account === undefined) return to;
  const path = typeof to === 'string' ? parsePath(to) : to;
  const params = new URLSearchParams(path.search);
  if (params.has(ACCOUNT_PARAM)) return to;
  params.set(ACCOUNT_PARAM, String(account));
  return { ...path, search: `?${params}` };
}

/** React Router's `Link`, keeping the selected account. Every in-app link of a signed-in screen is one. */
export function Link({ to, ...rest }: LinkProps) {
  const { selected } = useAccountSelection();
  return <RouterLink to={withAccount(to, selected)} {...rest} />;
}

/** React Router's `NavLink`, keeping the selected account (the current-page highlight reads the path only). */
export function NavLink({ to, ...rest }: NavLinkProps) {
  const { selected } = useAccountSelection();
  return <RouterNavLink to={withAccount(to, selected)} {...rest} />;
}
