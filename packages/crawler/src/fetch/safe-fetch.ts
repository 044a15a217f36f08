import http, { type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import https from 'node:https';
import { BlockedUrlError, type AddressPolicy } from './address-policy';
import { FetchFailedError, describeNetworkError } from './fetch-failed-error';
import { readBody } from './read-body';

export { FetchFailedError, type FetchFailureKind } from './fetch-failed-error';

export interface SafeFetchOptions {
  policy: AddressPolicy;
  method?: 'GET' | 'HEAD' | 'POST';
  headers?: Record<string, string>;
  /** Sent with POST (and again on a 307/308 redirect); dropped when a redirect turns the request into a GET. */
  body?: Buffer;
  /** For the whole fetch, redirects included. */
  timeoutMs?: number;
  /** Limit on the decoded body. */
  maxBytes?: number;
  maxRedirects?: number;
  signal?: AbortSignal;
}

export interface SafeResponse {
  /** The final URL, after redirects. */
  url: string;
  status: number;
  /** Lower-cased names; multiple set-cookie values joined by "\n"; describes `body` (no content-encoding once decoded). */
  headers: Record<string, string>;
  /** Lower-cased mime type without parameters, '' when absent. */
  contentType: string;
  body: Buffer;
  /** Every redirect target followed, in order. */
  redirects: string[];
}

export const DEFAULT_USER_AGENT = 'DocshelfBot/0.1 (+https://github.com/docshelf)';
const DEFAULT_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
// Only what node:zlib can undo; a browser's "zstd" would come back undecodable.
const ACCEPT_ENCODING = 'gzip, deflate, br';
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const DROPPED_REQUEST_HEADERS = new Set([
  'host',
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'content-length',
  'accept-encoding',
  'proxy-authorization',
]);
const CREDENTIAL_HEADERS = ['authorization', 'cookie'];

function buildRequestHeaders(custom: Record<string, string> | undefined): Record<string, string> {
  const headers: Record<string, string> = { 'user-agent': DEFAULT_USER_AGENT, accept: DEFAULT_ACCEPT };
  for (const [name, value] of Object.entries(custom ?? {})) {
    const lower = name.toLowerCase();
    if (!DROPPED_REQUEST_HEADERS.has(lower) && !lower.startsWith(':')) headers[lower] = value;
  }
  headers['accept-encoding'] = ACCEPT_ENCODING;
  return headers;
}

function flattenHeaders(raw: IncomingHttpHeaders): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    headers[name] = Array.isArray(value) ? value.join(name === 'set-cookie' ? '\n' : ', ') : value;
  }
  return headers;
}

function parseMimeType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

// Keep-alive pools keyed by policy: a pooled socket is only reused by fetches whose policy checked its address. The
// global agent could hand us a socket someone else connected without any check.
const agentsByPolicy = new WeakMap<AddressPolicy, { http: http.Agent; https: https.Agent }>();

function getAgent(policy: AddressPolicy, protocol: string): http.Agent {
  let agents = agentsByPolicy.get(policy);
  if (!agents) {
    agents = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };
    agentsByPolicy.set(policy, agents);
  }
  return protocol === 'https:' ? agents.https : agents.http;
}

/**
 * A kept-alive socket the server closed while it sat in the pool fails the next request on it with ECONNRESET; a
 * GET or HEAD sent on such a reused socket is sent once more, on a fresh one, as browsers do.
 */
async function sendRequest(
  url: URL,
  method: string,
  headers: Record<string, string>,
  policy: AddressPolicy,
  signal: AbortSignal,
  body?: Buffer,
) {
  try {
    return await sendOnce(url, method, headers, policy, signal, body);
  } catch (error) {
    const stale =
      (error as { reusedSocket?: boolean; code?: string }).reusedSocket &&
      (error as { code?: string }).code === 'ECONNRESET';
    if (!stale || method === 'POST' || signal.aborted) throw error;
    return sendOnce(url, method, headers, policy, signal, body);
  }
}

function sendOnce(
  url: URL,
  method: string,
  headers: Record<string, string>,
  policy: AddressPolicy,
  signal: AbortSignal,
  body?: Buffer,
) {
  return new Promise<IncomingMessage>((resolve, reject) => {
    const transport = url.protocol === 'https:' ? https : http;
    const agent = getAgent(policy, url.protocol);
    const withLength = body ? { ...headers, 'content-length': String(body.length) } : headers;
    const request = transport.request(
      url,
      { method, headers: withLength, agent, lookup: policy.lookupFor(portOf(url)), signal },
      resolve,
    );
    request.on('error', (error) => reject(Object.assign(error, { reusedSocket: request.reusedSocket })));
    request.end(body);
  });
}

/** The port a request to `url` connects to. */
function portOf(url: URL): number {
  return url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
}

/** Lets an abort interrupt steps that take no signal, such as DNS resolution. */
// Kept by hand: an abort with no deadline reads plainer here than p-timeout given an infinite timeout.
function raceWithAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function findRedirectTarget(response: IncomingMessage, current: URL): URL | null {
  const location = response.headers.location;
  if (!REDIRECT_STATUSES.has(response.statusCode ?? 0) || !location) return null;
  try {
    return new URL(location, current);
  } catch {
    throw new FetchFailedError(current.href, 'bad-response', `invalid redirect location ${JSON.stringify(location)}`);
  }
}

function skipBody(response: IncomingMessage): { body: Buffer; decoded: boolean } {
  response.resume();
  return { body: Buffer.alloc(0), decoded: false };
}

/**
 * Fetches a user-supplied URL without letting it reach a non-public address: the policy checks the first URL and every
 * redirect hop before connecting, and its lookup checks the address actually connected to.
 */
export async function safeFetch(url: string, options: SafeFetchOptions): Promise<SafeResponse> {
  const { policy, timeoutMs = 15_000, maxBytes = 10 * 1024 * 1024, maxRedirects = 5 } = options;
  let method: 'GET' | 'HEAD' | 'POST' = options.method ?? 'GET';
  let body = method === 'POST' ? options.body : undefined;
  const headers = buildRequestHeaders(options.headers);
  if (!URL.canParse(url)) throw new BlockedUrlError(url, 'not a valid absolute URL');
  let current = new URL(url);
  const deadline = AbortSignal.timeout(timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
  const redirects: string[] = [];
  try {
    for (;;) {
      await raceWithAbort(policy.assertUrlAllowed(current), signal);
      const response = await sendRequest(current, method, headers, policy, signal, body);
      const target = findRedirectTarget(response, current);
      if (target) {
        response.resume();
        if (redirects.length >= maxRedirects) {
          throw new FetchFailedError(url, 'too-many-redirects', `too many redirects (more than ${maxRedirects})`);
        }
        if (target.origin !== current.origin) CREDENTIAL_HEADERS.forEach((name) => delete headers[name]);
        if (response.statusCode === 303 && method !== 'HEAD') method = 'GET';
        if (method === 'POST' && (response.statusCode === 301 || response.statusCode === 302)) method = 'GET';
        if (method !== 'POST') body = undefined;
        redirects.push(target.href);
        current = target;
        continue;
      }
      const { body: responseBody, decoded } =
        method === 'HEAD' ? skipBody(response) : await readBody(response, current.href, maxBytes);
      const responseHeaders = flattenHeaders(response.headers);
      if (decoded) {
        delete responseHeaders['content-encoding'];
        delete responseHeaders['content-length'];
      }
      return {
        url: current.href,
        status: response.statusCode ?? 0,
        headers: responseHeaders,
        contentType: parseMimeType(responseHeaders['content-type']),
        body: responseBody,
        redirects,
      };
    }
  } catch (error) {
    if (deadline.aborted) {
      throw new FetchFailedError(current.href, 'timeout', `timeout after ${timeoutMs}ms`, { cause: error });
    }
    if (options.signal?.aborted) throw options.signal.reason;
    if (error instanceof BlockedUrlError || error instanceof FetchFailedError) throw error;
    throw describeNetworkError(current, error);
  }
}
