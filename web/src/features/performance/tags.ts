import { JOURNAL_MAX_TAGS, JOURNAL_TAG_MAX_LENGTH } from '@pipdesk/contract';

// The journal's tags, by the rules the journal call applies (docs/performance.md#the-journal):
// trimmed, at most 32 characters, at most 10, a repeated tag kept once.

/** How many suggestions show under a tag field at once. */
export const MAX_TAG_SUGGESTIONS = 6;

/** `tags` with `tag` added, or unchanged when it is empty, too long, already there or one too many. */
export function addTag(tags: readonly string[], tag: string): readonly string[] {
  const t = tag.trim();
  if (t === '' || t.length > JOURNAL_TAG_MAX_LENGTH || tags.includes(t) || tags.length >= JOURNAL_MAX_TAGS) return tags;
  return [...tags, t];
}

/** Every distinct tag in these lists, in the order first met (the first list leads). */
export function unionTags(...lists: ReadonlyArray<readonly string[]>): string[] {
  const all = new Set<string>();
  for (const list of lists) for (const t of list) all.add(t);
  return [...all];
}

/** Every distinct tag in these lists, sorted as a person reads them (case and accents aside). */
export function mergeTags(...lists: ReadonlyArray<readonly string[]>): string[] {
  const all = new Set<string>();
  for (const list of lists) for (const t of list) all.add(t);
  return [...all].sort((a, b) => a.localeCompare(b, undefined, { sensitivity: 'base' }) || a.localeCompare(b));
}

/**
 * The trader's own tags worth offering while they type `typed` on a trade that has `chosen`:
 * those not on it yet that contain what was typed (any case), the ones starting with it first.
 */
export function tagSuggestions(known: readonly string[], chosen: readonly string[], typed: string): string[] {
  const q = typed.trim().toLowerCase();
  const open = known.filter((t) => !chosen.includes(t) && t.toLowerCase().includes(q));
  const starts = open.filter((t) => t.toLowerCase().startsWith(q));
  const inside = open.filter((t) => !t.toLowerCase().startsWith(q));
  return [...starts, ...inside].slice(0, MAX_TAG_SUGGESTIONS);
}
