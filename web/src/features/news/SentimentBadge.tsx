import type { Sentiment } from '@pipdesk/contract';
import { Badge, type Tone } from '../../components';
import { SENTIMENT_TEXT } from './articles';

const TONE: Record<Sentiment, Tone> = { positive: 'profit', negative: 'loss', neutral: 'neutral' };
const ARROW: Record<Sentiment, string> = { positive: '▲', negative: '▼', neutral: '●' };

/** The article's sentiment in colour and in words, so it never rests on colour alone. */
export function SentimentBadge({ sentiment }: { sentiment: Sentiment }) {
  return (
    <Badge tone={TONE[sentiment]} className="news-sentiment">
      <span aria-hidden="true">{ARROW[sentiment]}</span>
      {SENTIMENT_TEXT[sentiment]}
    </Badge>
  );
}
