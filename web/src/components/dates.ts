// The app's one date style (docs/screens.md#formatting): day, short month, year, in the trader's
// zone; tables add the time to the second. "23 Nov 2026" and "23 Nov 2026, 18:28:59".

// The parts come from en-US, whose short months are always three letters (en-GB now writes "Sept"),
// and are put in order here, so every browser prints the same.
const parts = new Intl.DateTimeFormat('en-US', {
  day: '2-digit',
  month: 'short',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
});

function pieces(when: string | number): Record<string, string> | null {
  const t = typeof when === 'number' ? when : Date.parse(when);
  if (!Number.isFinite(t)) return null;
  return Object.fromEntries(parts.formatToParts(t).map((p) => [p.type, p.value]));
}

/** A day: "01 Apr 2026"; '' for an unreadable time. */
export function formatDate(when: string | number): string {
  const p = pieces(when);
  return p ? `${p.day} ${p.month} ${p.year}` : '';
}

/** A moment to the second: "01 Apr 2026, 14:03:22"; '' for an unreadable time. */
export function formatDateTime(when: string | number): string {
  const p = pieces(when);
  return p ? `${p.day} ${p.month} ${p.year}, ${p.hour}:${p.minute}:${p.second}` : '';
}
