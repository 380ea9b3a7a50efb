import { type FxPair, formatPrice } from '@pipdesk/contract';
import { Card, Num } from '../../components';
import { Link } from '../accounts';
import { PairFlags } from './flags';
import { useCurrentPrices } from './queries';

/** Bid and ask of a pair, from whichever source the caller has. */
export type PairQuotes = Readonly<Record<string, { bid: number; ask: number } | undefined>>;

export interface PairsGridProps {
  /** The catalogue (platform-data's `fx_pairs`); inactive pairs are left out. */
  pairs: readonly FxPair[];
  /**
   * Live prices by symbol (e.g. from the trading socket's price_update). Without them the
   * grid polls current-prices every 5 s itself (docs/screens.md#live-data-and-polling).
   */
  prices?: PairQuotes;
}

/** The dashboard's Available Currency Pairs (docs/screens.md#dashboard): each pair links to /pair/{symbol}. */
export function PairsGrid({ pairs, prices }: PairsGridProps) {
  const polled = useCurrentPrices({ enabled: !prices });
  const quotes: PairQuotes = prices ?? polled.data ?? {};
  const active = pairs.filter((p) => p.is_active);
  return (
    <Card className="pairs-grid-card" aria-label="Available Currency Pairs" title="Available Currency Pairs">
      {active.length === 0 ? (
        <p className="pairs-grid__empty">No currency pairs available.</p>
      ) : (
        <ul className="pairs-grid">
          {active.map((pair) => (
            <li key={pair.symbol}>
              <PairTile pair={pair} quote={quotes[pair.symbol]} />
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}

function PairTile({ pair, quote }: { pair: FxPair; quote: { bid: number; ask: number } | undefined }) {
  const price = (value: number | undefined) => (value === undefined ? '—' : formatPrice(value, pair.digits));
  return (
    <Link to={`/pair/${pair.symbol}`} className="pair-tile" data-symbol={pair.symbol}>
      <span className="pair-tile__head">
        <PairFlags symbol={pair.symbol} size={16} />
        <span className="pair-tile__symbol">{pair.symbol}</span>
      </span>
      <span className="pair-tile__name">{pair.name}</span>
      <span className="pair-tile__quotes">
        <span className="pair-tile__quote">
          <span className="pair-tile__label">Bid</span>
          <Num tone="bid">{price(quote?.bid)}</Num>
        </span>
        <span className="pair-tile__quote">
          <span className="pair-tile__label">Ask</span>
          <Num tone="ask">{price(quote?.ask)}</Num>
        </span>
      </span>
    </Link>
  );
}
