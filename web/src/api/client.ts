import {
  authOperations,
  type CallInput,
  type OkData,
  type OperationSpec,
  pathOf,
  refreshResponseSchema,
} from '@pipdesk/contract';
import { AccountSelection } from './accountSelection';
import { recordApiCall } from './apiLog';
import { ApiError, NetworkError, serverMessageOf } from './errors';
import type { TokenStore } from './tokens';

/** Anything with zod's `parse`: the contract's schemas type the answers. */
export interface Schema<T> {
  parse(value: unknown): T;
}

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export type QueryValue = string | number | boolean | null | undefined;

export interface RequestOptions<T> {
  method?: HttpMethod;
  /** Sent as JSON. */
  body?: unknown;
  /** Appended as a query string; null and undefined values are left out. */
  query?: Record<string, QueryValue>;
  /** Validates the whole JSON answer (envelope included). */
  schema: Schema<T>;
  /**
   * Whether a 401 renews the session (one refresh, one retry). Off for the sign-in calls
   * themselves, where a 401 is the answer and not an expired session.
   */
  renewOn401?: boolean;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** Lets the request outlive the page (logout on the way out). */
  keepalive?: boolean;
  /** Sends this bearer token instead of the stored one (logout after the tokens are cleared). */
  bearer?: string | null;
}

/** What `download` takes: a GET with a query, and the file type it accepts. */
export interface DownloadOptions extends Pick<RequestOptions<unknown>, 'query' | 'signal'> {
  /** The Accept header (e.g. `text/csv`); JSON when absent. */
  accept?: string;
}

interface RawAnswer {
  status: number;
  /** The parsed JSON (undefined when empty or not JSON); a Blob for a successful download. */
  body: unknown;
}

/** How a successful answer's body is read; a failure's is always read as JSON. */
type AnswerBody = 'json' | 'blob';

// The refresh answer's `refresh` is optional in docs/api.md#auth-calls; the old one is kept when absent.
const refreshAnswerSchema = enveloped(refreshResponseSchema.partial({ refresh: true }));

/** What a call may add to its input: how it is sent, not what it says. */
export interface CallOptions<T = unknown>
  extends Pick<RequestOptions<T>, 'signal' | 'keepalive' | 'bearer' | 'renewOn401' | 'headers'> {
  /** Sent as `Idempotency-Key` (the entry must be idempotent; docs/trading-rules.md#idempotency). */
  idempotencyKey?: string;
  /** Reads the answer's data with this schema instead of the entry's (a narrower view of it). */
  answer?: Schema<T>;
}

/** A call's arguments: its input may be left out when nothing in it is required. */
export type CallArgs<Op extends OperationSpec, T = OkData<Op>> =
  Record<string, never> extends CallInput<Op>
    ? [input?: CallInput<Op>, options?: CallOptions<T>]
    : [input: CallInput<Op>, options?: CallOptions<T>];

/** What `call` reads of a call's input, whatever the entry. */
interface CallInputShape {
  query?: Record<string, QueryValue>;
  body?: unknown;
  account?: number;
}

/** The path of a call under the client's base (`/api`), its parameters filled in. */
export function callPath(op: OperationSpec, input: { ids?: object; params?: object } | undefined): string {
  const path = pathOf(op, { ...(input?.ids as Record<string, string | number>), ...(input?.params as Record<string, string>) });
  return path.startsWith('/api/') ? path.slice('/api'.length) : path;
}

/** The schema of a call's whole answer: its data, inside the envelope unless the entry says it has none. */
function answerSchema<T>(op: OperationSpec, data: Schema<T> | undefined): Schema<T> {
  const schema = data ?? (op.ok?.data as Schema<T> | undefined) ?? (anyAnswer as Schema<T>);
  return op.ok?.envelope === false ? schema : enveloped(schema);
}

/** A success envelope `{success: true, data}` whose data `schema` validates. */
export function enveloped<T>(schema: Schema<T>): Schema<T> {
  return {
    parse(value: unknown): T {
      const v = value as { success?: unknown; data?: unknown } | null;
      if (v?.success !== true) throw new Error('not a success envelope');
      return schema.parse(v.data);
    },
  };
}

/** Accepts any answer; for calls whose answer is not read (logout). */
export const anyAnswer: Schema<unknown> = { parse: (v) => v };

/**
 * The typed HTTP client of every call (docs/api.md#conventions): JSON, the bearer token when one is stored,
 * the 401 rule (one refresh shared by concurrent callers, one retry, else the session ends)
 * and the API call log.
 */
export class ApiClient {
  private refreshing: Promise<string> | null = null;
  private readonly sessionEndedListeners = new Set<() => void>();

  constructor(
    readonly tokens: TokenStore,
    private readonly baseUrl = '/api',
    /** The account the trading calls act on when their input names none (docs/accounts.md#choosing-the-account). */
    readonly selection = new AccountSelection(),
  ) {}

  /**
   * A call of the contract's map (docs/api.md#how-a-call-is-declared), named through its area's map:
   * `api.call(tradingOperations.cancelOrder, { ids: { id } })`. Its path, method, envelope and answer schema are the entry's; the answer's
   * data comes back typed. An entry with `account: true` acts on `input.account`, else on the
   * selected account; the primary one is never named, so its calls are exactly the spec's.
   */
  call<Op extends OperationSpec, T = OkData<Op>>(op: Op, ...[input, options = {}]: CallArgs<Op, T>): Promise<T> {
    const { idempotencyKey, answer, headers, ...rest } = options;
    const inp = input as CallInputShape | undefined;
    const query = this.queryOf(op, inp);
    return this.request(callPath(op, input), {
      ...rest,
      method: op.method,
      ...(inp?.body === undefined ? {} : { body: inp.body }),
      ...(query ? { query } : {}),
      headers: idempotencyKey === undefined ? headers : { ...headers, 'Idempotency-Key': idempotencyKey },
      schema: answerSchema(op, answer),
    });
  }

  /** A call whose answer is a file (the orders' CSV export): see `download`. */
  downloadCall<Op extends OperationSpec>(
    op: Op,
    input: CallInput<Op>,
    options: Pick<DownloadOptions, 'signal'> = {},
  ): Promise<Blob> {
    return this.download(callPath(op, input), {
      ...options,
      query: this.queryOf(op, input as CallInputShape),
      accept: op.ok?.contentType,
    });
  }

  /**
   * A call's query, with `account` for an entry that takes one: the input's, else (an entry acting on
   * the caller's accounts, `account: true`) the selected one. Any other kind of entry names another
   * person's account (an instructor reading a student's), which the selection is not.
   */
  private queryOf(op: OperationSpec, input: CallInputShape | undefined): Record<string, QueryValue> | undefined {
    const account = !op.account ? undefined : (input?.account ?? (op.account === true ? this.selection.current() : undefined));
    return account === undefined ? input?.query : { ...input?.query, account };
  }

  /**
   * A request to a path under the base; `options.schema` validates the whole answer. The building
   * block of `call`: feature code calls by the contract's entries, never by path.
   */
  async request<T>(path: string, options: RequestOptions<T>): Promise<T> {
    const answer = await this.withSession(path, options, 'json');
    try {
      return options.schema.parse(answer.body);
    } catch {
      throw new ApiError(answer.status, 'BAD_RESPONSE', serverMessageOf(answer.body), answer.body);
    }
  }

  /**
   * GET a file (the orders' CSV export) as a Blob: the bearer token and the 401 rule as every
   * call, since a plain link could not send the token; a failure is read as the JSON envelope.
   * The building block of `downloadCall`.
   */
  async download(path: string, options: DownloadOptions = {}): Promise<Blob> {
    const { accept, ...rest } = options;
    const answer = await this.withSession(
      path,
      { ...rest, method: 'GET', headers: accept ? { Accept: accept } : undefined },
      'blob',
    );
    return answer.body as Blob;
  }

  /**
   * Sends a call with the stored (or given) token and applies the 401 rule: one refresh shared by
   * concurrent callers, one retry, else the session ends. Any other non-2xx answer throws.
   */
  private async withSession(
    path: string,
    options: Omit<RequestOptions<unknown>, 'schema'>,
    read: AnswerBody,
  ): Promise<RawAnswer> {
    const sentWith = options.bearer !== undefined ? options.bearer : this.tokens.read().access;
    let answer = await this.send(path, options, sentWith, read);
    if (answer.status === 401 && options.renewOn401 !== false) {
      let access: string;
      try {
        access = await this.accessTokenNewerThan(sentWith);
      } catch (err) {
        // A refresh that got no answer says nothing about the session: keep it and report the outage.
        if (err instanceof NetworkError) throw err;
        this.endSession();
        throw this.failure(answer);
      }
      answer = await this.send(path, options, access, read);
      if (answer.status === 401) {
        this.endSession();
        throw this.failure(answer);
      }
    }
    if (answer.status < 200 || answer.status >= 300) throw this.failure(answer);
    return answer;
  }

  /**
   * Renews the tokens with the stored refresh token. Concurrent callers share one attempt,
   * within this tab and (where the browser has Web Locks) across tabs: refresh tokens are
   * single-use, and a second use would revoke the whole session.
   */
  refreshTokens(): Promise<string> {
    this.refreshing ??= this.runRefresh().finally(() => {
      this.refreshing = null;
    });
    return this.refreshing;
  }

  /** Called when the session ends because the server refused to renew it. */
  onSessionEnded(listener: () => void): () => void {
    this.sessionEndedListeners.add(listener);
    return () => this.sessionEndedListeners.delete(listener);
  }

  /** Clears the tokens and sends the trader to /login. */
  endSession(): void {
    this.tokens.clear();
    if (this.sessionEndedListeners.size === 0) {
      window.location.assign('/login');
      return;
    }
    for (const l of [...this.sessionEndedListeners]) l();
  }

  private async accessTokenNewerThan(sentWith: string | null): Promise<string> {
    // Another caller may have renewed the tokens while this request was on its way.
    const current = this.tokens.read().access;
    if (current && current !== sentWith) return current;
    return this.refreshTokens();
  }

  private async runRefresh(): Promise<string> {
    const seenRefresh = this.tokens.read().refresh;
    return withRefreshLock(async () => {
      const stored = this.tokens.read();
      // Another tab renewed while we waited for the lock: use its tokens instead of spending ours.
      if (stored.access && stored.refresh && stored.refresh !== seenRefresh) return stored.access;
      if (!stored.refresh) throw new ApiError(401, 'NO_REFRESH_TOKEN', undefined, undefined);
      const answer = await this.send(
        callPath(authOperations.refresh, {}),
        { method: 'POST', body: { refresh: stored.refresh } },
        stored.access,
      );
      if (answer.status < 200 || answer.status >= 300) throw this.failure(answer);
      let data: { access: string; refresh?: string | undefined };
      try {
        data = refreshAnswerSchema.parse(answer.body);
      } catch {
        throw new ApiError(answer.status, 'BAD_RESPONSE', serverMessageOf(answer.body), answer.body);
      }
      this.tokens.save({ access: data.access, refresh: data.refresh ?? null });
      return data.access;
    });
  }

  private failure(answer: RawAnswer): ApiError {
    const body = answer.body as { code?: unknown } | undefined;
    const code = typeof body?.code === 'string' ? body.code : `HTTP_${answer.status}`;
    return new ApiError(answer.status, code, serverMessageOf(answer.body), answer.body);
  }

  private async send(
    path: string,
    options: Omit<RequestOptions<unknown>, 'schema'>,
    bearer: string | null | undefined,
    read: AnswerBody = 'json',
  ): Promise<RawAnswer> {
    const method = options.method ?? 'GET';
    const headers: Record<string, string> = { Accept: 'application/json', ...options.headers };
    if (options.body !== undefined) headers['Content-Type'] = 'application/json';
    if (bearer) headers.Authorization = `Bearer ${bearer}`;
    const url = `${this.baseUrl}${path}${queryString(options.query)}`;
    const at = new Date().toISOString();
    const started = performance.now();
    const log = (status: number) =>
      recordApiCall({ method, path: `${this.baseUrl}${path}`, status, duration_ms: Math.round(performance.now() - started), at });
    let response: Response;
    try {
      response = await fetch(url, {
        method,
        headers,
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
        signal: options.signal,
        keepalive: options.keepalive,
      });
    } catch (err) {
      log(0);
      if (err instanceof DOMException && err.name === 'AbortError') throw err;
      throw new NetworkError(err instanceof Error ? err.message : '');
    }
    let body: unknown;
    if (read === 'blob' && response.ok) body = await response.blob();
    else {
      try {
        const raw = await response.text();
        body = raw === '' ? undefined : JSON.parse(raw);
      } catch {
        body = undefined;
      }
    }
    log(response.status);
    return { status: response.status, body };
  }
}

/** `?a=1&b=x` for a call's query (null, undefined and '' left out); '' when nothing is left. */
export function queryString(query: Record<string, QueryValue> | undefined): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== null && v !== undefined && v !== '') params.set(k, String(v));
  const s = params.toString();
  return s ? `?${s}` : '';
}

async function withRefreshLock<T>(fn: () => Promise<T>): Promise<T> {
  const locks = typeof navigator !== 'undefined' ? navigator.locks : undefined;
  if (!locks) return fn();
  // The lock resolves with the callback's promise; awaiting it gives the callback's value.
  return (await locks.request('pipdesk-token-refresh', fn)) as T;
}
