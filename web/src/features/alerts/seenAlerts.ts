import type { Alert } from '@pipdesk/contract';

// Alerts fire with the browser closed (docs/charting.md#alerts); the next visit shows the ones
// this trader has not seen. What was seen is the newest fired alert already shown, kept per
// trader in this browser: one browser may serve several traders, one after the other.

/** The newest fired alert already shown: its time, and its id to order alerts fired in the same instant. */
export interface SeenMark {
  at: string;
  id: number;
}

const storageKey = (userId: number) => `pipdesk.alerts.seen.${userId}`;

export function readSeenMark(userId: number, storage: Storage = localStorage): SeenMark | null {
  try {
    const raw = storage.getItem(storageKey(userId));
    if (!raw) return null;
    const value = JSON.parse(raw) as Partial<SeenMark>;
    return typeof value.at === 'string' && typeof value.id === 'number' ? { at: value.at, id: value.id } : null;
  } catch {
    // A value another version wrote, or storage refused: start again.
    return null;
  }
}

export function writeSeenMark(userId: number, mark: SeenMark, storage: Storage = localStorage): void {
  try {
    storage.setItem(storageKey(userId), JSON.stringify(mark));
  } catch {
    // Private mode or a full storage: the worst case is an alert shown again next visit.
  }
}

function markOf(alert: Alert): SeenMark | null {
  return alert.triggered_at ? { at: alert.triggered_at, id: alert.id } : null;
}

/** Whether `a` fired after `b` (time, then id). */
function after(a: SeenMark, b: SeenMark): boolean {
  const ta = Date.parse(a.at);
  const tb = Date.parse(b.at);
  return ta !== tb ? ta > tb : a.id > b.id;
}

/**
 * The fired alerts not seen yet, oldest first (as they happened), and the mark once they are
 * shown; `mark` null (this browser never saw this trader's alerts) counts every one as unseen.
 */
export function unseenAlerts(triggered: readonly Alert[], mark: SeenMark | null): { unseen: Alert[]; next: SeenMark | null } {
  let next = mark;
  const unseen: Alert[] = [];
  for (const alert of triggered) {
    const m = markOf(alert);
    if (!m || (mark && !after(m, mark))) continue;
    unseen.push(alert);
    if (!next || after(m, next)) next = m;
  }
  unseen.sort((a, b) => Date.parse(a.triggered_at ?? '') - Date.parse(b.triggered_at ?? '') || a.id - b.id);
  return { unseen, next };
}
