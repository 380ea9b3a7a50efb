/**
 * Which of the trader's accounts the app acts on (docs/accounts.md, docs/screens.md#account-switcher):
 * an account id, or undefined for the primary account (calls then name none, as the spec's always
 * did). The URL's `?account=` is the truth; the accounts feature copies it here so that code outside
 * React (the API client, the query cache's keys, the trading socket) reads the same value.
 */
export class AccountSelection {
  private selected: number | undefined;

  /** The selected account's id; undefined for the primary one. */
  current(): number | undefined {
    return this.selected;
  }

  /** Selects an account (undefined: the primary one). */
  select(account: number | undefined): void {
    this.selected = account;
  }

  /**
   * Runs `fn` with `account` selected, then selects again the one before: a request's follow-up
   * (a mutation's `onSuccess` writing the cache) acts on the account the request was for.
   */
  runAs<T>(account: number | undefined, fn: () => T): T {
    const before = this.selected;
    this.selected = account;
    try {
      return fn();
    } finally {
      this.selected = before;
    }
  }
}

/** A positive integer of at most 15 digits, as the server's account gate takes (docs/accounts.md#choosing-the-account). */
export function parseAccountId(value: string | null | undefined): number | undefined {
  if (!value || !/^[1-9]\d{0,14}$/.test(value)) return undefined;
  return Number(value);
}
