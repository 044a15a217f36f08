import type { Page } from 'playwright-core';

export interface SettleOptions {
  /** Longest wait for the network to go quiet (no request for 500 ms). */
  networkIdleMs?: number;
  /** How long the DOM must stay unchanged to count as rendered. */
  domQuietMs?: number;
  /** Longest wait for that quiet period. */
  domQuietMaxMs?: number;
}

// A string, not a function: page.evaluate would serialise whatever the test transpiler made of a function.
function buildDomQuietScript(quietMs: number, maxMs: number): string {
  return `new Promise((resolve) => {
    let quietTimer;
    const finish = () => { observer.disconnect(); clearTimeout(quietTimer); clearTimeout(maxTimer); resolve(true); };
    const observer = new MutationObserver(() => { clearTimeout(quietTimer); quietTimer = setTimeout(finish, ${quietMs}); });
    observer.observe(document, { childList: true, subtree: true, characterData: true, attributes: true });
    quietTimer = setTimeout(finish, ${quietMs});
    const maxTimer = setTimeout(finish, ${maxMs});
  })`;
}

/**
 * Waits, within bounds, for what scripts add after `load`: for the network to go idle and for the DOM to stop changing.
 * Both are watched at once, so a static page costs one idle period, not two. Pages that never settle (tickers,
 * polling) are taken as they are when the bounds run out.
 */
export async function waitForPageToSettle(page: Page, options: SettleOptions = {}): Promise<void> {
  const { networkIdleMs = 2_000, domQuietMs = 300, domQuietMaxMs = 2_000 } = options;
  await Promise.all([
    page.waitForLoadState('networkidle', { timeout: networkIdleMs }).catch(() => undefined),
    // A script navigating the page destroys the evaluation context; the new document is read as it is.
    page.evaluate(buildDomQuietScript(domQuietMs, domQuietMaxMs)).catch(() => undefined),
  ]);
}
