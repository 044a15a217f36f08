import type { FrontierSummary } from '../../crawl/crawl-frontier';
import type { StagingStore } from '../../ports';
import { readStagedOutlines } from './staged-outlines';

/**
 * The pages handed out, in the order a breadth-first crawl would have taken them: the seeds, then each crawled page's
 * links (a seed's sitemap URLs first) as far as they were handed out, level by level. Pages fan out in whatever order
 * their jobs finish; this keeps the library's chunk order the same from one crawl to the next. The links are read
 * from the staged pages, kept as indexes into the pages handed out (4 bytes a link), never as the pages' text.
 */
export async function breadthFirstOrder(
  store: Pick<StagingStore, 'listStagedOutlines'>,
  crawlId: string,
  seeds: string[],
  summary: FrontierSummary,
  crawled: ReadonlySet<string>,
): Promise<string[]> {
  const handedOut = summary.scheduled.map((s) => s.url);
  const indexOf = new Map(handedOut.map((url, i) => [url, i]));
  const links: Array<Int32Array | undefined> = [];
  for await (const outlines of readStagedOutlines(store, crawlId)) {
    for (const outline of outlines) {
      const index = indexOf.get(outline.url);
      if (index === undefined || !crawled.has(outline.url)) continue;
      links[index] = Int32Array.from(outline.links.flatMap((link) => indexOf.get(link) ?? []));
    }
  }
  const order = [...seeds];
  const depth = new Map(seeds.map((url) => [url, 0]));
  for (let i = 0; i < order.length; i++) {
    const url = order[i]!;
    const d = depth.get(url)!;
    // A seed's sitemap URLs are taken whatever maxDepth says; other pages lead on only above maxDepth.
    if (d > 0 && d >= summary.maxDepth) continue;
    const index = indexOf.get(url);
    for (const next of (index === undefined ? undefined : links[index]) ?? []) {
      const link = handedOut[next]!;
      if (depth.has(link)) continue;
      depth.set(link, d + 1);
      order.push(link);
    }
  }
  // Handed out along a path this order does not retrace (a retried page whose links changed): last, as handed out.
  return [...order, ...handedOut.filter((url) => !depth.has(url))];
}
