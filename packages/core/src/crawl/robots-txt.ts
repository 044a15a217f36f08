/** The rules of one robots.txt group that apply to us: the longest matching pattern wins, Allow on a tie. */
export interface RobotsRules {
  isAllowed(url: string): boolean;
  /** The group's `Crawl-delay` in seconds, when it has a valid one. */
  crawlDelaySeconds?: number;
}

export const ALLOW_ALL: RobotsRules = { isAllowed: () => true };

interface Rule {
  allow: boolean;
  pattern: string;
  regex: RegExp;
}

const toRegex = (pattern: string) =>
  new RegExp(
    '^' +
      pattern
        .replace(/[.+?^${}()|[\]\\]/g, '\\$&')
        .replace(/\*/g, '.*')
        .replace(/\\\$$/, '$'),
  );

/** Parses robots.txt for `agent` (case-insensitive), falling back to the `*` group. */
export function parseRobotsTxt(text: string, agent: string): RobotsRules {
  const groups: { agents: string[]; rules: Rule[]; crawlDelay?: number }[] = [];
  let current: { agents: string[]; rules: Rule[]; crawlDelay?: number } | undefined;
  let lastWasAgent = false;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/#.*/, '').trim();
    const colon = line.indexOf(':');
    if (colon === -1) continue;
    const field = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (field === 'user-agent') {
      if (!current || !lastWasAgent) groups.push((current = { agents: [], rules: [] }));
      current.agents.push(value.toLowerCase());
      lastWasAgent = true;
      continue;
    }
    lastWasAgent = false;
    if (current && field === 'crawl-delay') {
      const seconds = Number(value);
      if (Number.isFinite(seconds) && seconds >= 0) current.crawlDelay = seconds;
      continue;
    }
    if (!current || (field !== 'allow' && field !== 'disallow') || value === '') continue;
    current.rules.push({ allow: field === 'allow', pattern: value, regex: toRegex(value) });
  }
  const name = agent.toLowerCase();
  const group =
    groups.find((g) => g.agents.some((a) => a !== '*' && name.includes(a))) ?? groups.find((g) => g.agents.includes('*'));
  if (!group) return ALLOW_ALL;
  return {
    crawlDelaySeconds: group.crawlDelay,
    isAllowed(url: string) {
      const { pathname, search } = new URL(url);
      const target = pathname + search;
      let best: Rule | undefined;
      for (const rule of group.rules) {
        if (!rule.regex.test(target)) continue;
        const longer = !best || rule.pattern.length > best.pattern.length;
        const tieAllow = best && rule.pattern.length === best.pattern.length && rule.allow;
        if (longer || tieAllow) best = rule;
      }
      return !best || best.allow;
    },
  };
}
