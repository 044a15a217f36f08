import { buildPathFilter } from './path-patterns';
import { parseRobotsTxt } from './robots-txt';
import { MAX_SITEMAP_URLS } from './link-bounds';
import { parseSitemap, readSitemapUrls, SITEMAP_INDEX_MAX_SITEMAPS } from './sitemap';

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

  it('matches percent-encoded paths against plain patterns, and names our agent by its product token', () => {
    const rules = parseRobotsTxt('User-agent: docshelfbot\nDisallow: /café/\nCrawl-delay: Infinity\n', 'DocshelfBot');
    expect(rules.isAllowed('https://d.test/caf%C3%A9/menu')).toBe(false);
    expect(rules.isAllowed('https://d.test/cafe/menu')).toBe(true);
    expect(rules.crawlDelaySeconds).toBeUndefined();
  });
});

describe('sitemap.xml', () => {
  it('lists <loc> entries and decodes entities', () => {
    const xml = `<?xml version="1.0"?><urlset><url><loc> https://d.test/a </loc></url><url><loc>https://d.test/b?x=1&amp;y=2</loc></url></urlset>`;
    expect(parseSitemap(xml)).toEqual({ kind: 'urlset', urls: ['https://d.test/a', 'https://d.test/b?x=1&y=2'] });
  });

  it('reads namespaced sitemaps and CDATA, and skips entries without a <loc> and the <loc> of extensions', () => {
    const xml = `<sm:urlset xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9"><sm:url><sm:loc>https://d.test/1</sm:loc></sm:url></sm:urlset>`;
    expect(parseSitemap(xml)).toEqual({ kind: 'urlset', urls: ['https://d.test/1'] });
    const images = `<urlset xmlns:image="http://www.google.com/schemas/sitemap-image/1.1"><url><loc><![CDATA[https://d.test/c?x=1&y=2]]></loc><image:image><image:loc>https://d.test/c.png</image:loc></image:image></url></urlset>`;
    expect(parseSitemap(images)).toEqual({ kind: 'urlset', urls: ['https://d.test/c?x=1&y=2'] });
    expect(
      parseSitemap('<urlset><url><lastmod>2024-01-01</lastmod></url><url><loc>https://d.test/x</loc></url></urlset>'),
    ).toEqual({
      kind: 'urlset',
      urls: ['https://d.test/x'],
    });
  });

  it('tells a sitemap index from a list of pages, and reads anything else as no pages', () => {
    const index = `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>https://d.test/docs.xml.gz</loc><lastmod>2024-01-01</lastmod></sitemap></sitemapindex>`;
    expect(parseSitemap(index)).toEqual({ kind: 'index', sitemaps: ['https://d.test/docs.xml.gz'] });
    for (const junk of [
      '',
      '<urlset/>',
      '<html><body>Not found</body></html>',
      '<urlset><url><loc>',
      '\u0000\u0001binary',
    ]) {
      expect(parseSitemap(junk)).toEqual({ kind: 'urlset', urls: [] });
    }
  });

  it('follows an index one level down, to a bounded number of its http(s) sitemaps', async () => {
    const urlset = (...locs: string[]) => `<urlset>${locs.map((l) => `<url><loc>${l}</loc></url>`).join('')}</urlset>`;
    const many = Array.from({ length: SITEMAP_INDEX_MAX_SITEMAPS + 5 }, (_, i) => `https://d.test/part-${i}.xml`);
    const files: Record<string, string> = {
      'https://d.test/sitemap.xml': `<sitemapindex>${[
        '/docs.xml.gz',
        'ftp://d.test/x.xml',
        'https://d.test/nested.xml',
        ...many,
      ]
        .map((l) => `<sitemap><loc>${l}</loc></sitemap>`)
        .join('')}</sitemapindex>`,
      'https://d.test/docs.xml.gz': urlset('https://d.test/docs/a', 'https://d.test/docs/b'),
      'https://d.test/nested.xml':
        '<sitemapindex><sitemap><loc>https://d.test/deeper.xml</loc></sitemap></sitemapindex>',
      'https://d.test/deeper.xml': urlset('https://d.test/too-deep'),
      ...Object.fromEntries(many.map((url, i) => [url, urlset(`https://d.test/page-${i}`)])),
    };
    const fetched: string[] = [];
    const { urls } = await readSitemapUrls((url) => {
      fetched.push(url);
      return Promise.resolve(files[url] ?? null);
    }, 'https://d.test/sitemap.xml');
    expect(urls.slice(0, 3)).toEqual(['https://d.test/docs/a', 'https://d.test/docs/b', 'https://d.test/page-0']);
    expect(urls).not.toContain('https://d.test/too-deep');
    expect(fetched).toHaveLength(1 + SITEMAP_INDEX_MAX_SITEMAPS);
    expect(fetched).not.toContain('ftp://d.test/x.xml');
    expect(fetched).not.toContain('https://d.test/deeper.xml');
  });

  it('takes at most MAX_SITEMAP_URLS of an index whose sitemaps list more, none over-long, and says what it skipped', async () => {
    const urlset = (...locs: string[]) => `<urlset>${locs.map((l) => `<url><loc>${l}</loc></url>`).join('')}</urlset>`;
    const children = ['https://d.test/one.xml', 'https://d.test/two.xml'];
    const big = (from: number) =>
      urlset(
        ...Array.from({ length: 60_000 }, (_, i) => `https://d.test/p${from + i}`),
        `https://d.test/${'x'.repeat(5_000)}`,
      );
    const files: Record<string, string> = {
      'https://d.test/sitemap.xml': `<sitemapindex>${children.map((loc) => `<sitemap><loc>${loc}</loc></sitemap>`).join('')}</sitemapindex>`,
      [children[0]!]: big(0),
      [children[1]!]: big(60_000),
    };
    const { urls, notes } = await readSitemapUrls(
      (url) => Promise.resolve(files[url] ?? null),
      'https://d.test/sitemap.xml',
    );
    expect(urls).toHaveLength(MAX_SITEMAP_URLS);
    expect(urls.at(-1)).toBe(`https://d.test/p${MAX_SITEMAP_URLS - 1}`);
    expect(notes).toEqual([
      '2 sitemap URLs over 4,096 characters skipped',
      `${(120_000 - MAX_SITEMAP_URLS).toLocaleString('en')} sitemap URLs beyond the first 100,000 skipped`,
    ]);
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
    // `**` at the end takes the section's own page; braces list alternatives.
    expect(allowed('https://d.test/docs')).toBe(true);
    const sections = buildPathFilter(['/{guide,api}/**'], ['**/.*']);
    expect(sections('https://d.test/api/widgets')).toBe(true);
    expect(sections('https://d.test/blog/widgets')).toBe(false);
    expect(sections('https://d.test/guide/.hidden')).toBe(false);
  });
});
