import { tickerLabel, visibleTickers } from './articles';

/** At most 5 tickers, then "+N more" (docs/screens.md#news); the hidden ones are in the chip's tooltip. */
export function Tickers({ tickers }: { tickers: readonly string[] }) {
  if (tickers.length === 0) return null;
  const { shown, more } = visibleTickers(tickers);
  const hidden = tickers.slice(shown.length);
  return (
    <ul className="news-tickers" aria-label="Tickers">
      {shown.map((ticker) => (
        <li key={ticker} className="news-ticker" title={ticker}>
          {tickerLabel(ticker)}
        </li>
      ))}
      {more > 0 && (
        <li className="news-ticker news-ticker--more" title={hidden.map(tickerLabel).join(', ')}>
          {`+${more} more`}
        </li>
      )}
    </ul>
  );
}
