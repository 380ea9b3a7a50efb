/**
 * The access and refresh tokens, kept in localStorage (docs/screens.md#sign-in-and-session: "kept in browser storage")
 * so a reload and a second tab stay signed in.
 */
export interface StoredTokens {
  access: string | null;
  refresh: string | null;
}

/** Why the tokens changed: `external` when another tab of this browser wrote them. */
export type TokenChange = StoredTokens & { external: boolean };

const ACCESS_KEY = 'pipdesk.accessToken';
const REFRESH_KEY = 'pipdesk.refreshToken';

function storage(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    // Storage can be blocked (privacy settings); the session then lives for this page only.
    return null;
  }
}

export class TokenStore {
  private readonly listeners = new Set<(change: TokenChange) => void>();
  private memory: StoredTokens = { access: null, refresh: null };

  read(): StoredTokens {
    const s = storage();
    if (!s) return { ...this.memory };
    return { access: s.getItem(ACCESS_KEY), refresh: s.getItem(REFRESH_KEY) };
  }

  /** Stores a new access token and, when given, a new refresh token (the refresh answer may omit it). */
  save(tokens: { access: string; refresh?: string | null }): void {
    const s = storage();
    const refresh = tokens.refresh ?? this.read().refresh;
    if (s) {
      s.setItem(ACCESS_KEY, tokens.access);
      if (refresh) s.setItem(REFRESH_KEY, refresh);
    } else this.memory = { access: tokens.access, refresh };
    this.emit(false);
  }

  clear(): void {
    const s = storage();
    if (s) {
      s.removeItem(ACCESS_KEY);
      s.removeItem(REFRESH_KEY);
    } else this.memory = { access: null, refresh: null };
    this.emit(false);
  }

  /** Called on every change, including changes made by another tab of this browser. */
  subscribe(listener: (change: TokenChange) => void): () => void {
    this.listeners.add(listener);
    const onStorage = (e: StorageEvent) => {
      if (e.key === null || e.key === ACCESS_KEY || e.key === REFRESH_KEY) listener({ ...this.read(), external: true });
    };
    window.addEventListener('storage', onStorage);
    return () => {
      this.listeners.delete(listener);
      window.removeEventListener('storage', onStorage);
    };
  }

  private emit(external: boolean): void {
    const change = { ...this.read(), external };
    for (const l of [...this.listeners]) l(change);
  }
}
