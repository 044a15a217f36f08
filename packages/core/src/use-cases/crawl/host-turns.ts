import { hostIntervalMs, REVALIDATION_TURN_SHARE, type HostThrottle } from '../../crawl/page-loader';

export interface PolitenessDeps {
  /** Politeness across workers; absent = no spacing. */
  throttle?: HostThrottle;
  politeness?: { hostPagesPerSecond: number; crawlDelayMaxMs: number };
}

/**
 * Waits for the host's turn. A conditional request waits for a share of it (REVALIDATION_TURN_SHARE); what it then owes
 * if the page comes whole is returned, to be taken once the answer is in (takeRestOfTurn).
 */
export async function takeTurn(
  deps: PolitenessDeps,
  page: { url: string; crawlDelayMs?: number },
  conditional: boolean,
  signal: AbortSignal,
): Promise<number> {
  if (!deps.throttle || !deps.politeness) return 0;
  const intervalMs = hostIntervalMs(
    deps.politeness.hostPagesPerSecond,
    page.crawlDelayMs,
    deps.politeness.crawlDelayMaxMs,
  );
  const share =
    conditional && page.crawlDelayMs === undefined ? Math.ceil(intervalMs * REVALIDATION_TURN_SHARE) : intervalMs;
  await deps.throttle.waitTurn(new URL(page.url).host, share, signal);
  return intervalMs - share;
}

/** A page that came whole after a conditional request takes the rest of its turn. */
export async function takeRestOfTurn(deps: PolitenessDeps, url: string, owed: number): Promise<void> {
  if (owed > 0 && deps.throttle) await deps.throttle.extendTurn(new URL(url).host, owed);
}
