import type { JournalEntryDto } from '@pipdesk/contract';
import { Num } from '../../components';
import { SideBadge } from '../trading/badges';
import { formatDateTime, formatLots, formatPnl, formatQuote } from '../trading/format';

/**
 * The parts of a journal entry that the trader's own journal and an instructor's read-only view
 * of it show alike: the trade's heading line and the instructors' comments.
 */
export function JournalEntryHead({ entry, headingId, digits }: { entry: JournalEntryDto; headingId: string; digits: number }) {
  const { trade } = entry;
  return (
    <header className="journal-entry__head">
      <h3 className="journal-entry__title" id={headingId}>
        <SideBadge side={trade.side} /> {formatLots(trade.quantity)} {trade.fx_pair_symbol} at{' '}
        <Num>{formatQuote(trade.price, digits)}</Num>
      </h3>
      <Num className="journal-entry__pnl" signOf={trade.realized_pnl}>
        {formatPnl(trade.realized_pnl)}
      </Num>
      <time className="journal-entry__time" dateTime={trade.executed_at}>
        {formatDateTime(trade.executed_at)}
      </time>
    </header>
  );
}

export function JournalComments({ comments }: { comments: JournalEntryDto['comments'] }) {
  if (comments.length === 0) return null;
  return (
    <section className="journal-comments" aria-label="Instructor comments">
      <h4 className="journal-comments__title">Instructor comments</h4>
      <ul>
        {comments.map((c) => (
          <li key={c.id} className="journal-comment">
            <p className="journal-comment__meta">
              <strong>{c.author.full_name}</strong> · <time dateTime={c.created_at}>{formatDateTime(c.created_at)}</time>
            </p>
            <p className="journal-comment__text">{c.text}</p>
          </li>
        ))}
      </ul>
    </section>
  );
}
