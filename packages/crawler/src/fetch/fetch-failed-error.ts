export type FetchFailureKind =
  | 'dns'
  | 'connection-refused'
  | 'connection-reset'
  | 'timeout'
  | 'too-many-redirects'
  | 'too-large'
  | 'tls'
  | 'bad-response'
  | 'network';

/** A fetch that got no usable response. HTTP error statuses are responses, not this. */
export class FetchFailedError extends Error {
  readonly code = 'FETCH_FAILED';

  constructor(
    readonly url: string,
    readonly kind: FetchFailureKind,
    detail: string,
    options?: { cause?: unknown },
  ) {
    super(`Fetch of ${url} failed: ${detail}`, options);
    this.name = 'FetchFailedError';
  }
}

const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NODATA', 'EAI_NONAME']);
const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|ERR_OSSL_)/;

/** Turns a node:net / node:http / node:dns error into a FetchFailedError that says what happened. */
export function describeNetworkError(url: URL, error: unknown): FetchFailedError {
  const err = error as NodeJS.ErrnoException;
  const code = typeof err?.code === 'string' ? err.code : '';
  const where = url.host;
  const fail = (kind: FetchFailureKind, detail: string) =>
    new FetchFailedError(url.href, kind, detail, { cause: error });
  if (DNS_CODES.has(code)) return fail('dns', `DNS lookup failed for ${url.hostname} (${code})`);
  if (code === 'ECONNREFUSED') return fail('connection-refused', `connection refused by ${where}`);
  if (code === 'ECONNRESET' || code === 'EPIPE') return fail('connection-reset', `connection reset by ${where}`);
  if (code === 'ETIMEDOUT') return fail('timeout', `connection to ${where} timed out`);
  if (TLS_CODE.test(code)) return fail('tls', `TLS error with ${where}: ${err.message}`);
  if (code.startsWith('HPE_')) return fail('bad-response', `invalid HTTP response from ${where}: ${err.message}`);
  if (code === 'Z_DATA_ERROR' || code === 'Z_BUF_ERROR' || code.startsWith('ERR__')) {
    return fail('bad-response', `could not decode the response body: ${err.message}`);
  }
  return fail('network', err?.message ? `${err.message}${code ? ` (${code})` : ''}` : String(error));
}
