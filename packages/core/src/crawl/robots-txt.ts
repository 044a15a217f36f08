import robotsParser from 'robots-parser';

/** The rules of robots.txt that apply to us: the longest matching pattern wins, Allow on a tie. */
export interface RobotsRules {
  isAllowed(url: string): boolean;
  /** The applying group's `Crawl-delay` in seconds, when it has a valid one. */
  crawlDelaySeconds?: number;
}

export const ALLOW_ALL: RobotsRules = { isAllowed: () => true };

// The file's rules are applied to every origin in the crawl's scope (redirects may add one), so they are read for a
// fixed base and each URL's path and query are checked against it.
const BASE = 'http://robots.invalid';

/** Parses robots.txt (robots-parser) for `agent`'s product token, case-insensitive, falling back to the `*` group. */
export function parseRobotsTxt(text: string, agent: string): RobotsRules {
  const robots = robotsParser(`${BASE}/robots.txt`, text);
  const delay = robots.getCrawlDelay(agent);
  return {
    ...(delay !== undefined && Number.isFinite(delay) && delay >= 0 ? { crawlDelaySeconds: delay } : {}),
    isAllowed(url: string) {
      const { pathname, search } = new URL(url);
      return robots.isAllowed(BASE + pathname + search, agent) ?? true;
    },
  };
}
