import type { Article } from '@pipdesk/contract';
import type { RecognizablePair } from './recognize.js';

/** What a source may ask of the catalogue (the market module's pairs). */
export interface NewsCatalogue {
  list(): readonly (RecognizablePair & { isActive: boolean; digits: number })[];
}

/**
 * One place news comes from. `latest` answers the source's general news; a source that can
 * ask for one pair's news (the Polygon API's `ticker=`) also has `forPair`, otherwise a pair's
 * news is the general news filtered by its tickers. Both throw on failure; the service keeps
 * a failure from ever failing a call.
 */
export interface NewsSource {
  /** Stable name shown in /api/health/ and the logs (never a secret). */
  readonly id: string;
  latest(signal: AbortSignal): Promise<Article[]>;
  forPair?(symbol: string, signal: AbortSignal): Promise<Article[]>;
}

/** A source failure with a message that is safe to log and to show in /api/health/. */
export class SourceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SourceError';
  }
}

/** Upper bounds that keep one misbehaving source from blowing memory. */
export interface SourceLimits {
  /** Bytes read from one answer before giving up (5 MB). */
  maxBytes: number;
  /** Articles kept from one answer (200). */
  maxItems: number;
}

export const DEFAULT_SOURCE_LIMITS: SourceLimits = { maxBytes: 5 * 1024 * 1024, maxItems: 200 };
