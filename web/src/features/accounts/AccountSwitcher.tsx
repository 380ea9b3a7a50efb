import type { AccountKind, AccountSummaryDto } from '@pipdesk/contract';
import { useId } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { Badge, Num, Select, type Tone } from '../../components';
import { formatUsd } from '../trading/format';
import { searchWithAccount, useAccountSelection } from './AccountSelectionProvider';
import './accounts.css';

/** The kind badge (docs/screens.md#account-switcher); here, in the lazily loaded switcher, not in the first load. */
export const ACCOUNT_KIND_LABELS: Record<AccountKind, string> = {
  primary: 'Primary',
  challenge: 'Challenge',
  practice: 'Practice',
};

const KIND_TONES: Record<AccountKind, Tone> = { primary: 'neutral', challenge: 'accent', practice: 'warning' };

/** What an option reads: the name, the kind (unless the name says it already) and the equity. */
export function accountOptionText(account: AccountSummaryDto): string {
  const kind = ACCOUNT_KIND_LABELS[account.kind];
  const parts = account.name === kind ? [account.name] : [account.name, kind];
  return `${parts.join(' · ')} · ${formatUsd(account.equity)}`;
}

/**
 * The header's account switcher (docs/screens.md#account-switcher): shown only when the trader has
 * more than one account. A native select, so a keyboard, a screen reader and a phone's picker all
 * work as they do everywhere; choosing pushes the same page with the new `?account=`, so Back
 * returns to the account before.
 */
export function AccountSwitcher() {
  const { accounts, selected } = useAccountSelection();
  const navigate = useNavigate();
  const location = useLocation();
  const id = useId();
  if (accounts.length < 2) return null;
  const current = accounts.find((a) => a.id === selected) ?? accounts[0]!;

  const choose = (value: string) => {
    // The primary account's id too: the selection then drops it from the address (one form per account).
    navigate({ pathname: location.pathname, search: searchWithAccount(location.search, Number(value)), hash: location.hash });
  };

  return (
    <div className="account-switcher">
      <div className="account-switcher__row">
        <label htmlFor={id} className="account-switcher__label">
          Account
        </label>
        <Select id={id} className="account-switcher__select" value={String(current.id)} onChange={(e) => choose(e.target.value)}>
          {accounts.map((a) => (
            <option key={a.id} value={a.id}>
              {accountOptionText(a)}
            </option>
          ))}
        </Select>
        {/* The selected option says both already; these are for the eye, at a glance. */}
        <span className="account-switcher__summary" aria-hidden="true">
          <Badge tone={KIND_TONES[current.kind]}>{ACCOUNT_KIND_LABELS[current.kind]}</Badge>
          <Num className="account-switcher__equity">{formatUsd(current.equity)}</Num>
        </span>
      </div>
    </div>
  );
}
