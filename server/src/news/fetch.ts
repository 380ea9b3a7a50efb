import { SourceError } from './source.js';

export interface FetchedBody {
  text: string;
  contentType: string;
}

/**
 * GETs a URL, reading at most `maxBytes` of its body, and aborting with `signal` (the
 * per-source timeout covers the body too, so a feed that trickles is cut off as well).
 * Errors are SourceErrors whose message names no URL: a key in a query string stays private.
 */
export async function fetchLimited(
  url: string,
  options: { signal: AbortSignal; maxBytes: number; accept: string; timeoutMs: number },
): Promise<FetchedBody> {
  let response: Response;
  try {
    response = await fetch(url, {
      signal: options.signal,
      redirect: 'follow',
      headers: { accept: options.accept, 'user-agent': 'Pipdesk news reader (+https://github.com/pipdesk)' },
    });
  } catch (err) {
    throw describeFailure(err, options.timeoutMs);
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => {});
    throw new SourceError(`HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`);
  }
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (Number.isFinite(declared) && declared > options.maxBytes) {
    await response.body?.cancel().catch(() => {});
    throw tooLarge(options.maxBytes);
  }
  const contentType = response.headers.get('content-type') ?? '';
  const chunks: Uint8Array[] = [];
  let total = 0;
  if (response.body) {
    const reader = response.body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        total += value.byteLength;
        if (total > options.maxBytes) {
          await reader.cancel().catch(() => {});
          throw tooLarge(options.maxBytes);
        }
        chunks.push(value);
      }
    } catch (err) {
      if (err instanceof SourceError) throw err;
      throw describeFailure(err, options.timeoutMs);
    }
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return { text: decode(bytes, contentType), contentType };
}

function tooLarge(maxBytes: number): SourceError {
  return new SourceError(`answer larger than ${Math.round(maxBytes / 1024)} KB`);
}

function describeFailure(err: unknown, timeoutMs: number): SourceError {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') return new SourceError(`timed out after ${timeoutMs} ms`);
  const code = e?.cause?.code;
  return new SourceError(code ? `connection failed (${code})` : `request failed (${e?.message ?? 'unknown error'})`);
}

/** Decodes by the charset the server names, else the XML declaration's, else UTF-8. */
function decode(bytes: Uint8Array, contentType: string): string {
  const fromHeader = /charset\s*=\s*"?([\w.:-]+)/i.exec(contentType)?.[1];
  const head = new TextDecoder('latin1').decode(bytes.subarray(0, 200));
  const fromDeclaration = /^\s*(?:\uFEFF)?<\?xml[^>]*encoding\s*=\s*["']([\w.:-]+)["']/i.exec(head)?.[1];
  const label = fromHeader ?? fromDeclaration ?? 'utf-8';
  try {
    return new TextDecoder(label).decode(bytes);
  } catch {
    return new TextDecoder('utf-8').decode(bytes);
  }
}
