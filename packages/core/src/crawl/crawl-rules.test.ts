import { buildPathFilter } from './path-patterns';
import { parseRobotsTxt } from './robots-txt';
import { parseSitemapUrls } from './sitemap';

describe('robots.txt', () => {
  const robots = `
# comment
User-agent: OtherBot
Disallow: /

User-agent: *
Disallow: /private/
Allow: /private/open
Disallow: /*.pdf$
`;

  it('applies the * group with longest-match precedence', () => {
    const rules = parseRobotsTxt(robots, 'DocshelfBot');
    expect(rules.isAllowed('https://d.test/guide')).toBe(true);
    expect(rules.isAllowed('https://d.test/private/x')).toBe(false);
    expect(rules.isAllowed('https://d.test/private/open/page')).toBe(true);
    expect(rules.isAllowed('https://d.test/a/file.pdf')).toBe(false);
    expect(rules.isAllowed('https://d.test/a/file.pdf?x=1')).toBe(true);
  });

  it('prefers a group naming the agent', () => {
    expect(parseRobotsTxt(robots, 'OtherBot/2.0').isAllowed('https://d.test/guide')).toBe(false);
    expect(parseRobotsTxt('', 'DocshelfBot').isAllowed('https://d.test/x')).toBe(true);
  });

  it("reads the applying group's Crawl-delay", () => {
    const delayed = 'User-agent: OtherBot\nCrawl-delay: 30\n\nUser-agent: *\nCrawl-delay: 2.5\nDisallow: /private/\n';
    expect(parseRobotsTxt(delayed, 'DocshelfBot').crawlDelaySeconds).toBe(2.5);
    expect(parseRobotsTxt(delayed, 'OtherBot').crawlDelaySeconds).toBe(30);
    expect(parseRobotsTxt(robots, 'DocshelfBot').crawlDelaySeconds).toBeUndefined();
    expect(parseRobotsTxt('User-agent: *\nCrawl-delay: soon\n', 'DocshelfBot').crawlDelaySeconds).toBeUndefined();
  });
});

describe('sitemap.xml', () => {
  it('lists <loc> entries and decodes entities', () => {
    const xml = `<?xml version="1.0"?><urlset><url><loc> https://d.test/a </loc></url><url><loc>https://d.test/b?x=1&amp;y=2</loc></url></urlset>`;
    expect(parseSitemapUrls(xml)).toEqual(['https://d.test/a', 'https://d.test/b?x=1&y=2']);
  });
});

describe('path patterns', () => {
  it('matches includes and excludes on the path', () => {
    const allowed = buildPathFilter(['/docs/**'], ['/docs/legacy/**', '/docs/*.pdf']);
    expect(allowed('https://d.test/docs/guide/intro')).toBe(true);
    expect(allowed('https://d.test/blog/post')).toBe(false);
    expect(allowed('https://d.test/docs/legacy/old')).toBe(false);
    expect(allowed('https://d.test/docs/file.pdf')).toBe(false);
    expect(buildPathFilter([], [])('https://d.test/anything')).toBe(true);
  });
});
