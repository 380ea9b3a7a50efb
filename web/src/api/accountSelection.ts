/**
 * Which of the trader's accounts the app acts on (docs/accounts.md, docs/screens.md#account-switcher):
 * an account id, or undefined for the primary account (calls then name none, as the spec's always
 * did). The URL's `?account=` is the truth; the accounts feature copies it here so that code outside
 * React (the API client, the query cache's keys, the trading socket) reads the same value.
 */
export class AccountSelection {
  private selected: number | undefined;
  private readonly listeners = new Set<() => void>();

  /** The selected account's id; undefined for the primary one. */
  current(): number | undefined {
    return this.selected;
  }

  /** Selects an account (undefined: the primary one); listeners hear of a change only. */
  select(account: number | undefined): void {
    if (this.selected === account) return;
    this.selected = account;
    for (const l of [...this.listeners]) l();
  }

  /** Called after every change (the shape `useSyncExternalStore` takes). */
  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  /** For `useSyncExternalStore`. */
  snapshot = (): number | undefined => this.selected;
}

/** A positive integer of at most 15 digits, as the server's account gate takes (docs/accounts.md#choosing-the-account). */
export function parseAccountId(value: string | null | undefined): number | undefined {
  if (!value || !/^[1-9]\d{0,14}$/.test(value)) return undefined;
  return Number(value);
}
