import type { Page } from 'playwright-core';

export interface SettleOptions {
  /** How long the DOM must have been unchanged, with no short timer or script request pending. */
  quietMs?: number;
  /** Longest wait: a page that never settles (tickers, polling) is taken as it is then. */
  maxMs?: number;
  /** Requests of the page still being answered (from the network guard). */
  inFlight?: () => number;
  /** When (`performance.now()`) a request of the page last started or was answered (from the network guard). */
  lastNetworkAt?: () => number;
  /** When the page's `load` event was seen: network activity before it is over by then. */
  loadedAt?: number;
  /**
   * How long the network must have been quiet after activity that followed `load`: a script loaded then may start a
   * worker or a fetch just after.
   */
  networkQuietMs?: number;
}

/** Timers up to this delay count as "the page is still working"; longer ones (and intervals) do not hold a render. */
const SHORT_TIMER_MS = 1_000;
const POLL_MS = 20;

/**
 * Installed before any script of the page: notes the time of the last DOM change or answered script request, and keeps
 * count of pending short timers and of the page's own `fetch` and `XMLHttpRequest` calls (counted when made, before
 * the request reaches the network guard), so the pool can tell a page that is still changing from one that is done.
 * It reports only; a page that tampers with it merely settles sooner or later, within the same bounds.
 */
export const SETTLE_TRACKER_SCRIPT = `(() => {
  const pending = new Set();
  let requests = 0;
  let last = performance.now();
  const nativeSet = globalThis.setTimeout, nativeClear = globalThis.clearTimeout;
  globalThis.setTimeout = function (fn, ms, ...args) {
    const delay = Number(ms) || 0;
    if (typeof fn !== 'function' || delay > ${SHORT_TIMER_MS}) return nativeSet.call(this, fn, ms, ...args);
    const id = nativeSet.call(this, function () { pending.delete(id); last = performance.now(); return fn.apply(this, arguments); }, ms, ...args);
    pending.add(id);
    return id;
  };
  globalThis.clearTimeout = function (id) { pending.delete(id); return nativeClear.call(this, id); };
  const answered = () => { requests -= 1; last = performance.now(); };
  const nativeFetch = globalThis.fetch;
  if (typeof nativeFetch === 'function') {
    globalThis.fetch = function () {
      const result = nativeFetch.apply(this, arguments);
      requests += 1;
      result.then(answered, answered);
      return result;
    };
  }
  if (typeof XMLHttpRequest === 'function') {
    const nativeSend = XMLHttpRequest.prototype.send;
    // Counted before sending: a synchronous request ends (loadend) inside send.
    XMLHttpRequest.prototype.send = function () {
      requests += 1;
      this.addEventListener('loadend', answered, { once: true });
      try {
        return nativeSend.apply(this, arguments);
      } catch (error) {
        this.removeEventListener('loadend', answered);
        requests -= 1;
        throw error;
      }
    };
  }
  const watch = () => new MutationObserver(() => { last = performance.now(); })
    .observe(document, { childList: true, subtree: true, characterData: true, attributes: true });
  // Watched from DOMContentLoaded on: the parser's own insertions would each make a mutation record.
  if (typeof document !== 'undefined') {
    if (document.readyState === 'loading')
      document.addEventListener('DOMContentLoaded', () => { last = performance.now(); watch(); }, { once: true });
    else watch();
  }
  Object.defineProperty(globalThis, '__docshelfSettle', { value: () => [pending.size + requests, performance.now() - last], configurable: false });
})();`;

export interface PageSnapshot {
  html: string;
  title: string;
}

// Nothing can start a request or change the DOM after `load` in a page without these: it is read at once.
const SCRIPTED = 'script, iframe, frame, object, embed, [onload]';

// The document as page.content() serialises it, with its title, read in the same round trip as the settle check.
const snapshotWhenSettled = (quietMs: number) => `(() => {
  const scripted = document.querySelector(${JSON.stringify(SCRIPTED)}) !== null;
  const state = globalThis.__docshelfSettle ? globalThis.__docshelfSettle() : [0, Infinity];
  if (scripted && (state[0] > 0 || state[1] < ${quietMs})) return null;
  let html = document.doctype ? new XMLSerializer().serializeToString(document.doctype) : '';
  if (document.documentElement) html += document.documentElement.outerHTML;
  return { html, title: document.title };
})()`;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

/**
 * Waits after `load` only while the page is still changing: a request in flight, a short timer or a script's request
 * pending, a DOM change within the last `quietMs`, or a request that started or ended after `load` less than
 * `networkQuietMs` ago (a script may start another). Returns the page's HTML and title as soon as it is settled (a
 * page whose network was done by `load` and whose DOM is quiet at once, in one round trip), or null when it did not
 * settle within `maxMs` or navigated meanwhile, for the caller to read it as it is.
 */
export async function waitForPageToSettle(page: Page, options: SettleOptions = {}): Promise<PageSnapshot | null> {
  const {
    quietMs = 50,
    maxMs = 2_000,
    inFlight = () => 0,
    lastNetworkAt = () => -Infinity,
    loadedAt = performance.now(),
    networkQuietMs = 100,
  } = options;
  const deadline = Date.now() + maxMs;
  const left = () => deadline - Date.now();
  while (left() > 0) {
    if (inFlight() > 0) {
      await sleep(Math.min(POLL_MS, left()));
      continue;
    }
    // Waiting out the network's quiet period here costs no round trip to the page.
    const lastNetwork = lastNetworkAt();
    const networkWaitMs = lastNetwork > loadedAt ? networkQuietMs - (performance.now() - lastNetwork) : 0;
    if (networkWaitMs > 0) {
      await sleep(Math.min(networkWaitMs, left()));
      continue;
    }
    let snapshot: PageSnapshot | null;
    try {
      // A script navigating the page destroys the evaluation context; the new document is read as it is.
      snapshot = await page.evaluate<PageSnapshot | null>(snapshotWhenSettled(quietMs));
    } catch {
      return null;
    }
    if (snapshot) return snapshot;
    await sleep(Math.min(POLL_MS, left()));
  }
  return null;
}
