import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { StagedPageOutline, StagingStore } from '../../ports';

/** Outlines read per call: a few hundred pages' links and line keys. */
const OUTLINES_PER_READ = 500;

/**
 * Every staged page's outline (links and line keys, never its text), a read at a time with a turn of the event loop
 * between reads, so a commit of ten thousand pages keeps renewing its job's lock.
 */
export async function* readStagedOutlines(
  store: Pick<StagingStore, 'listStagedOutlines'>,
  stagingId: string,
): AsyncGenerator<StagedPageOutline[]> {
  for (let afterUrl: string | undefined; ;) {
    const outlines = await store.listStagedOutlines(stagingId, {
      ...(afterUrl === undefined ? {} : { afterUrl }),
      limit: OUTLINES_PER_READ,
    });
    if (outlines.length > 0) yield outlines;
    if (outlines.length < OUTLINES_PER_READ) return;
    afterUrl = outlines.at(-1)!.url;
    await yieldToEventLoop();
  }
}
