import type { JobPayload } from '../../jobs/registry';
import { buildPathFilter } from '../../crawl/path-patterns';
import { normalizePageUrl } from '../../crawl/page-url';
import { ALLOW_ALL, parseRobotsTxt, type RobotsRules } from '../../crawl/robots-txt';

export const CRAWLER_USER_AGENT = 'DocshelfBot';

type CrawlJob = JobPayload<'crawl-site'>;

/** The seeds, normalised and de-duplicated; discovery follows links only when there is a single seed. */
export function seedsOf(job: CrawlJob): { seeds: string[]; discovery: boolean } {
  return { seeds: [...new Set(job.urls.map((u) => normalizePageUrl(u, u) ?? u))], discovery: job.urls.length === 1 };
}

export function robotsRulesOf(robotsTxt: string | null): RobotsRules {
  return robotsTxt === null ? ALLOW_ALL : parseRobotsTxt(robotsTxt, CRAWLER_USER_AGENT);
}

/**
 * Which discovered URLs a crawl takes: same origin as the seed (or where the seed redirected to), inside the
 * include/exclude paths, not seen before. Every such URL counts as discovered; robots.txt decides whether it is queued.
 */
export class CrawlScope {
  readonly origins: Set<string>;
  readonly found: Set<string>;
  private readonly inPaths: (url: string) => boolean;
  private readonly robots: RobotsRules;

  constructor(job: CrawlJob, state: { origins: string[]; found: string[]; robotsTxt: string | null }) {
    this.origins = new Set(state.origins);
    this.found = new Set(state.found);
    this.inPaths = buildPathFilter(job.options.includePaths, job.options.excludePaths);
    this.robots = robotsRulesOf(state.robotsTxt);
  }

  allowedByRobots(url: string): boolean {
    return this.robots.isAllowed(url);
  }

  /** Adds `url` to `queue` when it is new, in scope and allowed. */
  admit(url: string, queue: string[]): void {
    if (this.found.has(url) || !this.origins.has(new URL(url).origin) || !this.inPaths(url)) return;
    this.found.add(url);
    if (this.robots.isAllowed(url)) queue.push(url);
  }

  /** A crawled page's final URL: on the first level its origin joins the scope; the page under it is crawled already. */
  noteFinalUrl(finalUrl: string, firstLevel: boolean): void {
    const normalized = normalizePageUrl(finalUrl, finalUrl);
    if (!normalized) return;
    const origin = new URL(normalized).origin;
    if (firstLevel) this.origins.add(origin);
    if (this.origins.has(origin)) this.found.add(normalized);
  }
}
