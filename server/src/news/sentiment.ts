import type { Sentiment } from '@pipdesk/contract';

/**
 * A small market-news lexicon: words a headline uses for things going up or well, and for
 * things going down or badly. Used only when a source gives no sentiment of its own.
 */
const POSITIVE = new Set([
  'rise',
  'rises',
  'rising',
  'rose',
  'gain',
  'gains',
  'gained',
  'gaining',
  'climb',
  'climbs',
  'climbed',
  'climbing',
  'rally',
  'rallies',
  'rallied',
  'rallying',
  'surge',
  'surges',
  'surged',
  'soar',
  'soars',
  'soared',
  'jump',
  'jumps',
  'jumped',
  'advance',
  'advances',
  'advanced',
  'strengthen',
  'strengthens',
  'strengthened',
  'firmer',
  'firms',
  'higher',
  'high',
  'highs',
  'bullish',
  'rebound',
  'rebounds',
  'rebounded',
  'recover',
  'recovers',
  'recovered',
  'recovery',
  'upbeat',
  'optimism',
  'optimistic',
  'beat',
  'beats',
  'strong',
  'stronger',
  'robust',
  'boost',
  'boosts',
  'boosted',
  'growth',
  'expands',
  'expansion',
  'improve',
  'improves',
  'improved',
  'outperform',
  'outperforms',
  'upgrade',
  'upgraded',
  'positive',
  'confidence',
  'support',
  'supported',
  'hawkish',
  'buoyed',
  'lifts',
  'lifted',
]);

const NEGATIVE = new Set([
  'fall',
  'falls',
  'fell',
  'falling',
  'drop',
  'drops',
  'dropped',
  'dropping',
  'slide',
  'slides',
  'slid',
  'sliding',
  'slump',
  'slumps',
  'slumped',
  'decline',
  'declines',
  'declined',
  'declining',
  'tumble',
  'tumbles',
  'tumbled',
  'plunge',
  'plunges',
  'plunged',
  'sink',
  'sinks',
  'sank',
  'slip',
  'slips',
  'slipped',
  'weaken',
  'weakens',
  'weakened',
  'weaker',
  'weak',
  'lower',
  'low',
  'lows',
  'bearish',
  'loss',
  'losses',
  'lose',
  'loses',
  'miss',
  'misses',
  'missed',
  'fear',
  'fears',
  'worry',
  'worries',
  'concern',
  'concerns',
  'recession',
  'crisis',
  'selloff',
  'sell-off',
  'slowdown',
  'slows',
  'contraction',
  'contracts',
  'downgrade',
  'downgraded',
  'negative',
  'turmoil',
  'uncertainty',
  'pressure',
  'pressured',
  'dovish',
  'default',
  'tariff',
  'tariffs',
  'war',
  'slumping',
  'retreat',
  'retreats',
  'retreated',
  'crash',
  'crashes',
]);

const NEGATORS = new Set(['not', 'no', "n't", 'never', 'without', 'fails', 'failed']);

/**
 * Scores text by counting lexicon words (a word right after a negation counts the other way)
 * and calls it positive or negative only when one side clearly wins.
 */
export function lexiconSentiment(text: string): Sentiment {
  const words = text.toLowerCase().match(/[a-z]+(?:-[a-z]+)?|n't/g) ?? [];
  let score = 0;
  for (let i = 0; i < words.length; i++) {
    const word = words[i] as string;
    const sign = POSITIVE.has(word) ? 1 : NEGATIVE.has(word) ? -1 : 0;
    if (sign === 0) continue;
    const negated = (i > 0 && NEGATORS.has(words[i - 1] as string)) || (i > 1 && NEGATORS.has(words[i - 2] as string));
    score += negated ? -sign : sign;
  }
  if (score >= 1) return 'positive';
  if (score <= -1) return 'negative';
  return 'neutral';
}

/** A source's own sentiment label, if it is one of ours (`Bullish` and `Bearish` count too). */
export function normalizeSentiment(raw: unknown): Sentiment | undefined {
  if (typeof raw !== 'string') return undefined;
  const value = raw.trim().toLowerCase();
  if (value === 'positive' || value === 'bullish') return 'positive';
  if (value === 'negative' || value === 'bearish') return 'negative';
  if (value === 'neutral' || value === 'mixed') return 'neutral';
  return undefined;
}
