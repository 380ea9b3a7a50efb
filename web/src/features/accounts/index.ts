// Several accounts per trader, the web part (docs/accounts.md, docs/screens.md#account-switcher):
// the selection from the URL and the links that keep it. The header's switcher (`AccountSwitcher.tsx`)
// is imported by path, lazily: a trader with one account never loads it.
export {
  ACCOUNT_PARAM,
  AccountSelectionProvider,
  type AccountSelectionValue,
  accountInSearch,
  searchWithAccount,
  useAccountSelection,
} from './AccountSelectionProvider';
export { accountsKey, useTradingAccounts } from './api';
export { Link, NavLink, withAccount } from './links';
