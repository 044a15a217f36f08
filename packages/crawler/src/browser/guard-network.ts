import type { BrowserContext, Page, Request, Route, WebSocketRoute } from 'playwright-core';
import { BlockedUrlError, type AddressPolicy } from '../fetch/address-policy';
import { FetchFailedError, safeFetch, type SafeResponse } from '../fetch/safe-fetch';
import type { SubresourceCache } from './subresource-cache';

/** The guard of one page of a guarded context. */
export interface NetworkGuard {
  /** Request URLs refused by the policy (and WebSockets) since the last `reset`, in the order they were refused. */
  readonly blocked: string[];
  /** Starts a new render in the same context: forgets refusals and errors, stops what the previous page left running. */
  reset(): void;
  /** Why the main frame's own navigation failed, when it did in our handler rather than in Chromium. */
  readonly navigationError: () => Error | undefined;
  /** Answers the next main-frame navigation to `response.url` with this response instead of fetching it again. */
  serveDocument(response: SafeResponse): void;
  /** Requests being answered right now (the page's own, and those of the context no page can be told for). */
  inFlight(): number;
  /** When (`performance.now()`) a request of the page last started or was answered. */
  lastNetworkAt(): number;
  /** Stops in-flight fetches: the page they were for is gone. */
  dispose(): void;
}

/** A context's network guard: one route handler for all its pages, each page with a guard of its own. */
export interface ContextGuard {
  forPage(page: Page): Promise<NetworkGuard>;
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

/**
 * Not needed to extract text: checked by the policy (so refusals are still reported) but never fetched, and not
 * counted as the page's network activity when the pool waits for the page to settle.
 */
const SKIPPED_RESOURCE_TYPES = new Set(['image', 'media', 'font']);
// Chromium asks for a page's icon itself once the page has loaded; no script sees the answer.
const FAVICON_PATH = /(^|\/)favicon\.[a-z]+$|\.ico$/i;

function isSkipped(request: Request): boolean {
  const type = request.resourceType();
  if (SKIPPED_RESOURCE_TYPES.has(type)) return true;
  return type === 'other' && FAVICON_PATH.test(new URL(request.url()).pathname);
}
const CACHED_RESOURCE_TYPES = new Set(['stylesheet', 'script']);

type AbortCode = Parameters<Route['abort']>[0];

// Chromium recomputes the framing headers for the body it is handed. Location goes too: a redirect Chromium followed
// from a fulfilled response would not come back through the route handler (observed with Chromium 156).
const UNFORWARDED_RESPONSE_HEADERS = new Set([
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'location',
]);

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

/** What one render of a page leaves with the guard; `reset` starts another. */
interface RenderState {
  blocked: string[];
  navigationError: Error | undefined;
  /** Aborted when the render ends: its fetches stop. */
  stop: AbortController;
  documents: Map<string, SafeResponse>;
}

/** What the guard keeps for one page (or, for requests no page can be told for, the context). */
interface PageState {
  render: RenderState;
  inFlight: number;
  lastActivity: number;
}

const newRender = (): RenderState => ({
  blocked: [],
  navigationError: undefined,
  stop: new AbortController(),
  documents: new Map(),
});
const newPageState = (): PageState => ({ render: newRender(), inFlight: 0, lastActivity: performance.now() });

/** The page a request is for; none for requests of workers and of pages the context does not know. */
function pageOf(request: Request): Page | undefined {
  try {
    return request.frame().page();
  } catch {
    return undefined;
  }
}

/**
 * Makes every HTTP request of the context go through safeFetch (policy-checked, from Node) and hands Chromium the
 * response, so Chromium never connects anywhere itself. safeFetch follows redirects, checking each hop, and Chromium
 * gets the final response under the URL it asked for; the pool navigates to a document's final URL itself. The pages
 * of a context (one site's tabs) each keep their own refusals, documents and requests in flight.
 */
export async function guardContextNetwork(
  context: BrowserContext,
  options: NetworkGuardOptions,
): Promise<ContextGuard> {
  const pages = new WeakMap<Page, PageState>();
  // Requests of workers (and of windows closed at once): checked and answered all the same, counted for every page.
  const unowned = newPageState();
  const stateOf = (page: Page | undefined) => (page && pages.get(page)) ?? unowned;

  // Chromium requests a document without its fragment.
  const documentKey = (url: string) => url.split('#')[0]!;

  function takeServedDocument(render: RenderState, request: Request): SafeResponse | undefined {
    const key = documentKey(request.url());
    const document = render.documents.get(key);
    if (!document || !isMainFrameNavigation(request)) return undefined;
    render.documents.delete(key);
    return document;
  }

  function fetchFor(request: Request, method: 'GET' | 'HEAD', signal: AbortSignal): Promise<SafeResponse> {
    const url = request.url();
    const headers = request.headers();
    const fetchIt = () =>
      safeFetch(url, {
        policy: options.policy,
        method,
        headers,
        timeoutMs: options.timeoutMs,
        maxBytes: options.maxBytes,
        signal,
      });
    const cacheable =
      options.cache &&
      method === 'GET' &&
      CACHED_RESOURCE_TYPES.has(request.resourceType()) &&
      !headers.cookie &&
      !headers.authorization;
    // Fetched without this page's signal: other pages may be waiting on the same fetch.
    const shared = () =>
      safeFetch(url, {
        policy: options.policy,
        method,
        headers,
        timeoutMs: options.timeoutMs,
        maxBytes: options.maxBytes,
      });
    return cacheable ? options.cache!.get(url, shared) : fetchIt();
  }

  async function fulfilThroughPolicy(route: Route): Promise<void> {
    const request = route.request();
    const url = request.url();
    const method = request.method();
    const state = stateOf(pageOf(request));
    // This render's: a later render of the same page starts its own.
    const render = state.render;
    const { signal } = render.stop;
    if ((method === 'GET' || method === 'HEAD') && isSkipped(request)) {
      const refused = await options.policy.assertUrlAllowed(url).then(
        () => undefined,
        (error: unknown) => error,
      );
      if (refused instanceof BlockedUrlError && !signal.aborted) render.blocked.push(url);
      await route.abort(refused ? chooseAbortCode(refused) : 'aborted').catch(() => undefined);
      return;
    }
    state.inFlight += 1;
    state.lastActivity = performance.now();
    // The request ends for the page when its answer is handed over, not when Chromium acknowledges it: a page's
    // `load` may arrive before that acknowledgement, and the settle check must not take it for later network activity.
    let open = true;
    const answered = () => {
      if (!open) return;
      open = false;
      state.inFlight -= 1;
      state.lastActivity = performance.now();
    };
    try {
      if (method !== 'GET' && method !== 'HEAD')
        throw new BlockedUrlError(url, `${method} requests are not sent while rendering`);
      const response = takeServedDocument(render, request) ?? (await fetchFor(request, method, signal));
      if (signal.aborted) throw signal.reason;
      answered();
      await route.fulfill({
        status: response.status,
        headers: selectForwardedHeaders(response.headers),
        body: response.body,
      });
    } catch (error) {
      const pageGone = signal.aborted;
      if (!pageGone && error instanceof BlockedUrlError) render.blocked.push(url);
      if (!pageGone && isMainFrameNavigation(request))
        render.navigationError = error instanceof Error ? error : new Error(String(error));
      answered();
      // The page may be closing; there is nobody left to tell.
      await route.abort(chooseAbortCode(error)).catch(() => undefined);
    } finally {
      answered();
    }
  }

  await context.route('**/*', fulfilThroughPolicy);
  // Playwright mocks the page's WebSocket class here (per page below, so a refusal is the page's); sockets opened
  // where that mock does not reach (workers) still go nowhere, as Chromium's only proxy is the pool's sinkhole.
  const refuseWebSocket = (state: () => PageState) => (socket: WebSocketRoute) => {
    state().render.blocked.push(socket.url());
    void socket.close({ code: 1008, reason: 'WebSockets are not opened while rendering' });
  };
  await context.routeWebSocket(
    () => true,
    refuseWebSocket(() => unowned),
  );

  return {
    async forPage(page: Page): Promise<NetworkGuard> {
      const state = newPageState();
      pages.set(page, state);
      await page.routeWebSocket(
        () => true,
        refuseWebSocket(() => state),
      );
      return {
        get blocked() {
          return state.render.blocked;
        },
        reset: () => {
          state.render.stop.abort();
          state.render = newRender();
        },
        navigationError: () => state.render.navigationError,
        serveDocument: (response) => state.render.documents.set(documentKey(response.url), response),
        inFlight: () => state.inFlight + unowned.inFlight,
        lastNetworkAt: () => Math.max(state.lastActivity, unowned.lastActivity),
        dispose: () => {
          state.render.stop.abort();
          pages.delete(page);
        },
      };
    },
  };
}
