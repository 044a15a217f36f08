import type { BrowserContext, Request, Route } from 'playwright-core';
import { BlockedUrlError, type AddressPolicy } from '../fetch/address-policy';
import { FetchFailedError, safeFetch, type SafeResponse } from '../fetch/safe-fetch';
import type { SubresourceCache } from './subresource-cache';

export interface NetworkGuard {
  /** Request URLs refused by the policy (and WebSockets) since the last `reset`, in the order they were refused. */
  readonly blocked: string[];
  /** Starts a new render in the same context: forgets refusals and errors, stops what the previous page left running. */
  reset(): void;
  /** Why the main frame's own navigation failed, when it did in our handler rather than in Chromium. */
  readonly navigationError: () => Error | undefined;
  /** Answers the next main-frame navigation to `response.url` with this response instead of fetching it again. */
  serveDocument(response: SafeResponse): void;
  /** Requests being answered right now. */
  inFlight(): number;
  /** Milliseconds since a request of the page last started or ended. */
  sinceNetworkMs(): number;
  /** Stops in-flight fetches: the page they were for is gone. */
  dispose(): void;
}

export interface NetworkGuardOptions {
  policy: AddressPolicy;
  /** For each request the page makes. */
  timeoutMs: number;
  /** Limit on each response body (PAGE_MAX_BYTES). */
  maxBytes?: number;
  /** Stylesheets and scripts shared with the other pages of the pool. */
  cache?: SubresourceCache;
}

/** Not needed to extract text: checked by the policy (so refusals are still reported) but never fetched. */
const SKIPPED_RESOURCE_TYPES = new Set(['image', 'media', 'font']);
const CACHED_RESOURCE_TYPES = new Set(['stylesheet', 'script']);

type AbortCode = Parameters<Route['abort']>[0];

// Chromium recomputes the framing headers for the body it is handed. Location goes too: a redirect Chromium followed
// from a fulfilled response would not come back through the route handler (observed with Chromium 156).
const UNFORWARDED_RESPONSE_HEADERS = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'location']);

// WebRTC opens UDP flows the route handler never sees; docs pages do not need it.
export const DISABLE_WEBRTC_SCRIPT = `for (const name of ['RTCPeerConnection', 'webkitRTCPeerConnection', 'RTCDataChannel']) {
  try { Object.defineProperty(globalThis, name, { value: undefined, configurable: false, writable: false }); } catch {}
}`;

function selectForwardedHeaders(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !UNFORWARDED_RESPONSE_HEADERS.has(name)));
}

function chooseAbortCode(error: unknown): AbortCode {
  if (error instanceof BlockedUrlError) return 'blockedbyclient';
  if (!(error instanceof FetchFailedError)) return 'failed';
  const codes: Partial<Record<FetchFailedError['kind'], AbortCode>> = {
    dns: 'namenotresolved',
    'connection-refused': 'connectionrefused',
    'connection-reset': 'connectionreset',
    timeout: 'timedout',
  };
  return codes[error.kind] ?? 'failed';
}

function isMainFrameNavigation(request: Request): boolean {
  try {
    return request.isNavigationRequest() && request.frame().parentFrame() === null;
  } catch {
    // Service-worker requests have no frame.
    return false;
  }
}

/**
 * Makes every HTTP request of the context go through safeFetch (policy-checked, from Node) and hands Chromium the
 * response, so Chromium never connects anywhere itself. safeFetch follows redirects, checking each hop, and Chromium
 * gets the final response under the URL it asked for; the pool navigates to a document's final URL itself.
 */
export async function guardContextNetwork(context: BrowserContext, options: NetworkGuardOptions): Promise<NetworkGuard> {
  let blocked: string[] = [];
  let navigationError: Error | undefined;
  let stop = new AbortController();
  const documents = new Map<string, SafeResponse>();

  // Chromium requests a document without its fragment.
  const documentKey = (url: string) => url.split('#')[0]!;

  function takeServedDocument(request: Request): SafeResponse | undefined {
    const key = documentKey(request.url());
    const document = documents.get(key);
    if (!document || !isMainFrameNavigation(request)) return undefined;
    documents.delete(key);
    return document;
  }

  let inFlight = 0;
  let lastActivity = performance.now();

  function fetchFor(request: Request, method: 'GET' | 'HEAD', signal: AbortSignal): Promise<SafeResponse> {
    const url = request.url();
    const headers = request.headers();
    const fetchIt = () =>
      safeFetch(url, { policy: options.policy, method, headers, timeoutMs: options.timeoutMs, maxBytes: options.maxBytes, signal });
    const cacheable =
      options.cache && method === 'GET' && CACHED_RESOURCE_TYPES.has(request.resourceType()) && !headers.cookie && !headers.authorization;
    // Fetched without this page's signal: other pages may be waiting on the same fetch.
    const shared = () => safeFetch(url, { policy: options.policy, method, headers, timeoutMs: options.timeoutMs, maxBytes: options.maxBytes });
    return cacheable ? options.cache!.get(url, shared) : fetchIt();
  }

  async function fulfilThroughPolicy(route: Route): Promise<void> {
    const request = route.request();
    const url = request.url();
    const method = request.method();
    // This render's: a later render of the same context starts its own.
    const { signal } = stop;
    const refused = blocked;
    inFlight += 1;
    lastActivity = performance.now();
    try {
      if (method !== 'GET' && method !== 'HEAD') throw new BlockedUrlError(url, `${method} requests are not sent while rendering`);
      if (SKIPPED_RESOURCE_TYPES.has(request.resourceType())) {
        await options.policy.assertUrlAllowed(url);
        await route.abort('aborted').catch(() => undefined);
        return;
      }
      const response = takeServedDocument(request) ?? (await fetchFor(request, method, signal));
      if (signal.aborted) throw signal.reason;
      await route.fulfill({ status: response.status, headers: selectForwardedHeaders(response.headers), body: response.body });
    } catch (error) {
      const pageGone = signal.aborted;
      if (!pageGone && error instanceof BlockedUrlError) refused.push(url);
      if (!pageGone && isMainFrameNavigation(request)) navigationError = error instanceof Error ? error : new Error(String(error));
      // The page may be closing; there is nobody left to tell.
      await route.abort(chooseAbortCode(error)).catch(() => undefined);
    } finally {
      inFlight -= 1;
      lastActivity = performance.now();
    }
  }

  await context.route('**/*', fulfilThroughPolicy);
  // Playwright mocks the page's WebSocket class here; sockets opened where that mock does not reach (workers) still
  // go nowhere, as Chromium's only proxy is the pool's sinkhole.
  await context.routeWebSocket(
    () => true,
    (socket) => {
      blocked.push(socket.url());
      void socket.close({ code: 1008, reason: 'WebSockets are not opened while rendering' });
    },
  );

  return {
    get blocked() {
      return blocked;
    },
    reset: () => {
      stop.abort();
      stop = new AbortController();
      blocked = [];
      navigationError = undefined;
      documents.clear();
    },
    navigationError: () => navigationError,
    serveDocument: (response) => documents.set(documentKey(response.url), response),
    inFlight: () => inFlight,
    sinceNetworkMs: () => performance.now() - lastActivity,
    dispose: () => stop.abort(),
  };
}
