import type { JobPayload } from '../../jobs/registry';
import type { FoundLink } from '../../crawl/crawl-frontier';
import { buildPathFilter } from '../../crawl/path-patterns';
import { normalizePageUrl } from '../../crawl/page-url';
import { ALLOW_ALL, parseRobotsTxt, type RobotsRules } from '../../crawl/robots-txt';

export const CRAWLER_USER_AGENT = 'DocshelfBot';

type CrawlJob = JobPayload<'crawl-site'>;

/** The seeds, normalised and de-duplicated; discovery follows links only when there is a single seed. */
export function seedsOf(job: Pick<CrawlJob, 'urls'>): { seeds: string[]; discovery: boolean } {
  return { seeds: [...new Set(job.urls.map((u) => normalizePageUrl(u, u) ?? u))], discovery: job.urls.length === 1 };
}

export function robotsRulesOf(robotsTxt: string | null): RobotsRules {
  return robotsTxt === null ? ALLOW_ALL : parseRobotsTxt(robotsTxt, CRAWLER_USER_AGENT);
}

/**
 * Which found URLs a crawl takes: same origin as the seed (or where the seed redirected to), inside the
 * include/exclude paths. Every such URL counts as discovered; robots.txt decides whether it is crawled. Whether it
 * was seen before is the crawl's frontier's to say (crawl/crawl-frontier.ts).
 */
export class CrawlScope {
  readonly origins: Set<string>;
  private readonly inPaths: (url: string) => boolean;
  private readonly robots: RobotsRules;

  constructor(scope: { origins: string[]; includePaths: string[]; excludePaths: string[]; robotsTxt: string | null }) {
    this.origins = new Set(scope.origins);
    this.inPaths = buildPathFilter(scope.includePaths, scope.excludePaths);
    this.robots = robotsRulesOf(scope.robotsTxt);
  }

  allowedByRobots(url: string): boolean {
    return this.robots.isAllowed(url);
  }

  /** The in-scope ones of `urls`, in order, each with robots.txt's answer. */
  select(urls: string[]): FoundLink[] {
    return urls.flatMap((url) =>
      this.origins.has(new URL(url).origin) && this.inPaths(url) ? [{ url, allowed: this.robots.isAllowed(url) }] : [],
    );
  }

  /**
   * A crawled page's final URL, normalised, when it is in scope (then it is never crawled again under that URL). The
   * seed's final origin joins the scope first.
   */
  noteFinalUrl(finalUrl: string, seed: boolean): { finalOrigin?: string; finalUrl?: string } {
    const normalized = normalizePageUrl(finalUrl, finalUrl);
    if (!normalized) return {};
    const origin = new URL(normalized).origin;
    if (seed) this.origins.add(origin);
    return { ...(seed ? { finalOrigin: origin } : {}), ...(this.origins.has(origin) ? { finalUrl: normalized } : {}) };
  }
}
