/** The last API calls, for support: docs/screens.md#constants keeps at most 100 in session storage. */
export const API_LOG_KEY = 'pipdesk.apiLog';
export const API_LOG_LIMIT = 100;

export interface ApiLogEntry {
  method: string;
  /** Path only: no query string, no body, no header, so no token or password can end up here. */
  path: string;
  /** HTTP status; 0 when the request never got an answer. */
  status: number;
  duration_ms: number;
  /** ISO time the call started. */
  at: string;
}

export function readApiLog(): ApiLogEntry[] {
  try {
    const raw = window.sessionStorage.getItem(API_LOG_KEY);
    const parsed: unknown = raw ? JSON.parse(raw) : [];
    return Array.isArray(parsed) ? (parsed as ApiLogEntry[]) : [];
  } catch {
    return [];
  }
}

export function recordApiCall(entry: ApiLogEntry): void {
  const path = entry.path.split(/[?#]/, 1)[0] ?? '';
  const log = [...readApiLog(), { ...entry, path }].slice(-API_LOG_LIMIT);
  try {
    window.sessionStorage.setItem(API_LOG_KEY, JSON.stringify(log));
  } catch {
    // A full or blocked session storage must never break a call.
  }
}
