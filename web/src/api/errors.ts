/** The server answered with a failure (a non-2xx status, `success: false`, or an unexpected shape). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    /** The server's own text (`error`, else `detail`, else `message`), when it sent one. */
    readonly serverMessage: string | undefined,
    /** The parsed answer, for callers that read more (a rejected order's `data`). */
    readonly body: unknown,
  ) {
    super(serverMessage ?? `Request failed with status ${status}`);
    this.name = 'ApiError';
  }
}

/** The request got no answer at all (offline, DNS, connection refused, CORS). */
export class NetworkError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NetworkError';
  }
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

/** The server's human text in an error answer, in the spec's order: error, detail, message. */
export function serverMessageOf(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const b = body as Record<string, unknown>;
  return text(b.error) ?? text(b.detail) ?? text(b.message);
}

/** What a call with no answer reads where the screen has no text of its own (docs/screens.md#error-texts). */
export const NETWORK_FAILURE_TEXT = "Can't reach the server. Check your connection.";

/**
 * The text shown for a failed call, with the docs/screens.md#error-texts precedence: the server's error, detail or
 * message; else `failedText` (the server answered without one); else the exception's own
 * message; else `unexpectedText` (or `failedText` without one). A call that got no answer at
 * all (a `NetworkError`) reads the screen's `unexpectedText` when the spec gives one, else
 * `NETWORK_FAILURE_TEXT`: never the browser's "Failed to fetch".
 */
export function errorMessage(err: unknown, failedText: string, unexpectedText?: string): string {
  if (err instanceof ApiError) return err.serverMessage ?? failedText;
  if (err instanceof NetworkError) return unexpectedText ?? NETWORK_FAILURE_TEXT;
  if (err instanceof Error && err.message.trim() !== '') return err.message;
  return unexpectedText ?? failedText;
}
