import {
  admissionKeyOf,
  type Admission,
  type CrawlFrontier,
  type FoundLink,
  type FrontierScope,
  type FrontierStart,
  type FrontierSummary,
  type PageLinks,
} from '@docshelf/core';

/** A URL found but never to be crawled (over budget, disallowed, after the deadline, or a final URL). */
const NOT_CRAWLED = 'x';

interface Frontier {
  scope: FrontierScope;
  budget: number;
  deadline?: number;
  maxDepth: number;
  late: number;
  depths: Map<string, number | typeof NOT_CRAWLED>;
  order: string[];
  admittedBy: Map<string, string[]>;
  /** The links of pages that are done, kept while maxDepth leaves room for a page's depth to drop. */
  links: Map<string, FoundLink[]>;
}

/**
 * The CrawlFrontier in one process, for the fast tests of the crawl use cases; the worker's is Redis-backed
 * (packages/queue). Both pass crawl-frontier.contract.ts.
 */
export class MemoryCrawlFrontier implements CrawlFrontier {
  private readonly crawls = new Map<string, Frontier>();

  async open(crawlId: string, start: FrontierStart): Promise<void> {
    const { found, scheduled, budget, maxDepth, deadline, ...scope } = start;
    const depths = new Map<string, number | typeof NOT_CRAWLED>(found.map((url) => [url, NOT_CRAWLED]));
    scheduled.forEach((url) => depths.set(url, 0));
    this.crawls.set(crawlId, {
      scope: { ...scope, origins: [...scope.origins] },
      budget,
      maxDepth,
      late: 0,
      depths,
      order: [...scheduled],
      admittedBy: new Map(),
      links: new Map(),
      ...(deadline === undefined ? {} : { deadline }),
    });
  }

  async scope(crawlId: string): Promise<FrontierScope | null> {
    const crawl = this.crawls.get(crawlId);
    return crawl ? { ...crawl.scope, origins: [...crawl.scope.origins] } : null;
  }

  async admit(crawlId: string, input: PageLinks): Promise<Admission> {
    const crawl = this.crawls.get(crawlId);
    if (!crawl) return { admitted: [], found: 0 };
    const key = admissionKeyOf(input.page, input.part);
    const earlier = crawl.admittedBy.get(key);
    if (earlier) return { admitted: [...earlier], found: 0 };
    const admitted: string[] = [];
    let found = 0;
    const work: Array<[string, number]> = [];
    const consider = (link: FoundLink, depth: number) => {
      const known = crawl.depths.get(link.url);
      if (known === undefined) {
        found += 1;
        if (!link.allowed || crawl.budget <= 0) return void crawl.depths.set(link.url, NOT_CRAWLED);
        crawl.budget -= 1;
        if (crawl.deadline !== undefined && input.now >= crawl.deadline) {
          crawl.late += 1;
          return void crawl.depths.set(link.url, NOT_CRAWLED);
        }
        crawl.depths.set(link.url, depth);
        crawl.order.push(link.url);
        admitted.push(link.url);
      } else if (known !== NOT_CRAWLED && known > depth) {
        crawl.depths.set(link.url, depth);
        if (depth < crawl.maxDepth && crawl.links.has(link.url)) work.push([link.url, depth]);
      }
    };
    if (input.finalOrigin && !crawl.scope.origins.includes(input.finalOrigin))
      crawl.scope.origins.push(input.finalOrigin);
    const known = crawl.depths.get(input.page);
    const depth = typeof known === 'number' ? known : 0;
    if (input.finalUrl && !crawl.depths.has(input.finalUrl)) {
      crawl.depths.set(input.finalUrl, NOT_CRAWLED);
      found += 1;
    }
    (input.sitemap ?? []).forEach((link) => consider(link, 1));
    if (depth < crawl.maxDepth) input.links.forEach((link) => consider(link, depth + 1));
    if (crawl.maxDepth >= 3)
      crawl.links.set(input.page, [...(input.part ? (crawl.links.get(input.page) ?? []) : []), ...input.links]);
    while (work.length > 0) {
      const [page, from] = work.shift()!;
      crawl.links.get(page)!.forEach((link) => consider(link, from + 1));
    }
    crawl.admittedBy.set(key, admitted);
    return { admitted: [...admitted], found };
  }

  async admitEach(crawlId: string, pages: PageLinks[]): Promise<Admission[]> {
    const admissions: Admission[] = [];
    for (const links of pages) admissions.push(await this.admit(crawlId, links));
    return admissions;
  }

  async admittedBy(crawlId: string, page: string): Promise<string[] | null> {
    const crawl = this.crawls.get(crawlId);
    const earlier = crawl?.admittedBy.get(page);
    if (!crawl || !earlier) return null;
    const all = [...earlier];
    for (
      let part = 1, more = crawl.admittedBy.get(admissionKeyOf(page, part));
      more;
      more = crawl.admittedBy.get(admissionKeyOf(page, ++part))
    )
      all.push(...more);
    return all;
  }

  async summary(crawlId: string): Promise<FrontierSummary | null> {
    const crawl = this.crawls.get(crawlId);
    if (!crawl) return null;
    return {
      found: crawl.depths.size,
      scheduled: crawl.order.map((url) => ({ url, depth: crawl.depths.get(url) as number })),
      late: crawl.late,
      maxDepth: crawl.maxDepth,
    };
  }

  async drop(crawlId: string): Promise<void> {
    this.crawls.delete(crawlId);
  }
}
