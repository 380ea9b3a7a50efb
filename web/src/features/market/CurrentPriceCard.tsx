import { type FxPair, formatPrice, roundPrice, spreadInPips } from '@pipdesk/contract';
import { Badge, Card, Num } from '../../components';
import { type PriceStream, usePriceStreamState } from './priceStream';
import { usePairPrice } from './queries';

/** A quote from any of the sources: the socket, the price call, the pair call. */
export interface Quote {
  bid: number;
  ask: number;
  timestamp: string;
}

/** The newer of the quotes by their timestamps (the socket may be down while polling goes on). */
export function newestQuote(...quotes: Array<Quote | null | undefined>): Quote | null {
  let newest: Quote | null = null;
  for (const q of quotes) if (q && (!newest || Date.parse(q.timestamp) > Date.parse(newest.timestamp))) newest = q;
  return newest;
}

/** "1.2": the spread in pips with one decimal, between the bid and ask as shown (at the pair's digits). */
export function spreadText(quote: Pick<Quote, 'bid' | 'ask'>, pair: Pick<FxPair, 'pip_size' | 'digits'>): string {
  const bid = roundPrice(quote.bid, pair.digits);
  const ask = roundPrice(quote.ask, pair.digits);
  return spreadInPips(bid, ask, pair.pip_size).toFixed(1);
}

/**
 * The pair's price now, live from the price socket; polled every 5 s (price call) while
 * the socket is down, so the card never freezes silently. `initial` (the pair call's price)
 * fills the card until either answers.
 */
export function usePairQuote(pair: FxPair, stream: PriceStream | null, initial?: Quote | null) {
  const { price: live, status, feedConnected } = usePriceStreamState(stream);
  const polled = usePairPrice(pair.symbol, { enabled: status !== 'live' });
  return {
    quote: newestQuote(live, polled.data, initial),
    live: status === 'live',
    /** The server said its price source stopped delivering. */
    feedDown: feedConnected === false,
  };
}

export interface CurrentPriceCardProps {
  pair: FxPair;
  /** The pair's price socket (usePriceStream). */
  stream: PriceStream | null;
  /** The price the pair call answered, shown until a fresher one arrives. */
  initialPrice?: Quote | null;
  /** The stream plays a replay session's market (a practice account), not the live one: the badge says so. */
  replay?: boolean;
}

/** The docs/screens.md#pair-page Current Price card: bid in red, ask in green, the spread in pips; prices at the pair's digits. */
export function CurrentPriceCard({ pair, stream, initialPrice, replay = false }: CurrentPriceCardProps) {
  const { quote, live, feedDown } = usePairQuote(pair, stream, initialPrice);
  return (
    <Card
      className="current-price"
      aria-label="Current Price"
      title="Current Price"
      actions={
        live && feedDown ? (
          <Badge tone="warning" dot>
            Feed interrupted
          </Badge>
        ) : live ? (
          <Badge tone="profit" dot pulse>
            {replay ? 'Replay feed' : 'Live feed'}
          </Badge>
        ) : (
          <Badge tone="warning" dot>
            Polling every 5s
          </Badge>
        )
      }
    >
      <dl className="quote-board">
        <div className="quote-board__item">
          <dt>Bid</dt>
          <dd>
            <Num tone="bid" className="quote-board__price" data-testid="bid">
              {quote ? formatPrice(quote.bid, pair.digits) : '—'}
            </Num>
          </dd>
        </div>
        <div className="quote-board__item">
          <dt>Ask</dt>
          <dd>
            <Num tone="ask" className="quote-board__price" data-testid="ask">
              {quote ? formatPrice(quote.ask, pair.digits) : '—'}
            </Num>
          </dd>
        </div>
        <div className="quote-board__item">
          <dt>Spread</dt>
          <dd>
            <Num className="quote-board__spread" data-testid="spread">
              {quote ? `${spreadText(quote, pair)} pips` : '—'}
            </Num>
          </dd>
        </div>
      </dl>
    </Card>
  );
}
