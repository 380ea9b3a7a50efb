import type { FxPair } from '@pipdesk/contract';
import { ApiError } from '../../api';
import { buttonClass, Page } from '../../components';
import { Link } from '../accounts';
import { PairFlags } from './flags';

/** The pair page's back link to the platform (the dashboard). */
export function BackToPlatformLink() {
  return (
    <Link to="/" className="back-link">
      <span aria-hidden="true">←</span> Back to Platform
    </Link>
  );
}

/** The pair page's title: both flags, the symbol and the name. Give it to `<Page title>` with `documentTitle={pair.symbol}`. */
export function PairTitle({ pair }: { pair: Pick<FxPair, 'symbol' | 'name'> }) {
  return (
    <span className="pair-title">
      <PairFlags symbol={pair.symbol} size={22} />
      <span className="pair-title__symbol">{pair.symbol}</span>
      <span className="pair-title__name">{pair.name}</span>
    </span>
  );
}

export const PAIR_NOT_FOUND_TITLE = 'Currency pair not found';

/** Whether the pair call failed because there is no such pair (404; 400 for a symbol too long to be one). */
export function isPairNotFound(error: unknown): boolean {
  return error instanceof ApiError && (error.status === 404 || error.status === 400);
}

/** The pair page of an unknown pair (docs/screens.md#pair-page). */
export function PairNotFound({ symbol }: { symbol: string }) {
  const shown = symbol.toUpperCase().slice(0, 20);
  return (
    <Page title={PAIR_NOT_FOUND_TITLE} eyebrow={<BackToPlatformLink />}>
      <div className="pair-not-found">
        <p>Currency pair {shown} not found</p>
        <Link to="/" className={buttonClass('secondary')}>
          See the available pairs
        </Link>
      </div>
    </Page>
  );
}
