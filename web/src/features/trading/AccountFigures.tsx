import type { TradingAccountDto } from '@pipdesk/contract';
import { Card, Num } from '../../components';
import { Link } from '../accounts';
import { formatLeverage, formatUsd } from './format';

/** The dashboard's four account cards (docs/screens.md#dashboard): Balance (to /orders), Margin Used, Free Margin, Leverage. */
export function AccountCards({ account }: { account: TradingAccountDto }) {
  return (
    <section className="account-cards" aria-label="Account">
      <Link to="/orders" className="account-card account-card--link" title="View transaction history">
        <span className="account-card__label">Balance</span>
        <Num className="account-card__value" data-testid="account-balance">
          {formatUsd(account.balance)}
        </Num>
        <span className="account-card__sub">
          Equity <Num data-testid="account-equity">{formatUsd(account.equity)}</Num>
        </span>
      </Link>
      <div className="account-card">
        <span className="account-card__label">Margin Used</span>
        <Num className="account-card__value" data-testid="account-margin-used">
          {formatUsd(account.margin_used)}
        </Num>
        <span className="account-card__sub">
          Margin level <Num>{account.margin_level === null ? '—' : `${account.margin_level.toFixed(2)}%`}</Num>
        </span>
      </div>
      <div className="account-card">
        <span className="account-card__label">Free Margin</span>
        <Num className="account-card__value" signOf={account.free_margin < 0 ? -1 : undefined} data-testid="account-free-margin">
          {formatUsd(account.free_margin)}
        </Num>
      </div>
      <div className="account-card">
        <span className="account-card__label">Leverage</span>
        <Num className="account-card__value" data-testid="account-leverage">
          {formatLeverage(account.leverage)}
        </Num>
      </div>
    </section>
  );
}

/** The pair page's Account Info card (docs/screens.md#pair-page): Balance, Equity, Free Margin, Leverage. */
export function AccountInfoCard({ account }: { account: TradingAccountDto }) {
  const rows: [string, string, number | undefined][] = [
    ['Balance', formatUsd(account.balance), undefined],
    ['Equity', formatUsd(account.equity), undefined],
    ['Free Margin', formatUsd(account.free_margin), account.free_margin < 0 ? -1 : undefined],
    ['Leverage', formatLeverage(account.leverage), undefined],
  ];
  return (
    <Card title="Account Info" aria-label="Account Info">
      <dl className="account-info">
        {rows.map(([label, value, sign]) => (
          <div key={label} className="account-info__row">
            <dt>{label}</dt>
            <dd>
              <Num signOf={sign}>{value}</Num>
            </dd>
          </div>
        ))}
      </dl>
    </Card>
  );
}
