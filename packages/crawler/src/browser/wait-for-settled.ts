import type { Page } from 'playwright-core';

export interface SettleOptions {
  /** How long the DOM must have been unchanged, with no short timer pending and no request in flight. */
  quietMs?: number;
  /** Longest wait: a page that never settles (tickers, polling) is taken as it is then. */
  maxMs?: number;
  /** Requests of the page still being answered (from the network guard). */
  inFlight?: () => number;
  /** Time since the page's network was last active (a request started or ended). */
  sinceNetworkMs?: () => number;
  /** How long the network must have been quiet: a script loaded may start a worker or a fetch just after. */
  networkQuietMs?: number;
}

/** Timers up to this delay count as "the page is still working"; longer ones (and intervals) do not hold a render. */
const SHORT_TIMER_MS = 1_000;
const POLL_MS = 20;

/**
 * Installed before any script of the page: notes the time of the last DOM change and keeps count of pending short
 * timers, so the pool can tell a page that is still changing from one that is done. It reports only; a page that
 * tampers with it merely settles sooner or later, within the same bounds.
 */
export const SETTLE_TRACKER_SCRIPT = `(() => {
  const pending = new Set();
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
  const watch = () => new MutationObserver(() => { last = performance.now(); })
    .observe(document, { childList: true, subtree: true, characterData: true, attributes: true });
  if (typeof document !== 'undefined') watch();
  Object.defineProperty(globalThis, '__docshelfSettle', { value: () => [pending.size, performance.now() - last], configurable: false });
})();`;

export interface PageSnapshot {
  html: string;
  title: string;
}

// Nothing can start a request or change the DOM after `load` in a page without these: it is read at once.
const SCRIPTED = 'script, iframe, frame, object, embed, [onload]';

// The document as page.content() serialises it, with its title, read in the same round trip as the settle check.
const snapshotWhenSettled = (quietMs: number, networkBusy: number, networkQuiet: boolean) => `(() => {
  if (${networkBusy} > 0) return null;
  const scripted = document.querySelector(${JSON.stringify(SCRIPTED)}) !== null;
  const state = globalThis.__docshelfSettle ? globalThis.__docshelfSettle() : [0, Infinity];
  if (scripted && (${!networkQuiet} || state[0] > 0 || state[1] < ${quietMs})) return null;
  let html = document.doctype ? new XMLSerializer().serializeToString(document.doctype) : '';
  if (document.documentElement) html += document.documentElement.outerHTML;
  return { html, title: document.title };
})()`;

/**
 * Waits after `load` only while the page is still changing: a request in flight, a short timer pending or a DOM change
 * within the last `quietMs`, or a request that ended less than `networkQuietMs` ago (a script may start another).
 * Returns the page's HTML and title as soon as it is settled (a page without scripts at once, in one round trip), or
 * null when it did not settle within `maxMs` or navigated meanwhile, for the caller to read it as it is.
 */
export async function waitForPageToSettle(page: Page, options: SettleOptions = {}): Promise<PageSnapshot | null> {
  const {
    quietMs = 50,
    maxMs = 2_000,
    inFlight = () => 0,
    sinceNetworkMs = () => Infinity,
    networkQuietMs = 100,
  } = options;
  const deadline = Date.now() + maxMs;
  // The first look does not wait for the network's quiet period: a page without scripts is taken then.
  let first = true;
  while (Date.now() < deadline) {
    // A script navigating the page destroys the evaluation context; the new document is read as it is.
    // Waiting out the network's quiet period here costs no round trip to the page.
    const networkWaitMs = inFlight() > 0 ? POLL_MS : networkQuietMs - sinceNetworkMs();
    if (networkWaitMs > 0 && !(first && inFlight() === 0)) {
      await new Promise((resolve) => setTimeout(resolve, Math.min(networkWaitMs, Math.max(0, deadline - Date.now()))));
      continue;
    }
    first = false;
    let snapshot: PageSnapshot | null;
    try {
      snapshot = await page.evaluate<PageSnapshot | null>(snapshotWhenSettled(quietMs, inFlight(), networkWaitMs <= 0));
    } catch {
      return null;
    }
    if (snapshot) return snapshot;
    if (networkQuietMs - sinceNetworkMs() > 0) continue;
    await new Promise((resolve) => setTimeout(resolve, Math.min(POLL_MS, Math.max(0, deadline - Date.now()))));
  }
  return null;
}
