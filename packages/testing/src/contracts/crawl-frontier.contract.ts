import type { CrawlFrontier, FoundLink, FrontierStart } from '@docshelf/core';

export interface CrawlFrontierHarness {
  frontier: CrawlFrontier;
  cleanup(): Promise<void>;
}

const O = 'https://docs.test';
const u = (path: string) => `${O}${path}`;
const ok = (...paths: string[]): FoundLink[] => paths.map((p) => ({ url: u(p), allowed: true }));
let counter = 0;
const crawlId = () => `00000000-0000-4000-8000-${String(++counter).padStart(12, '0')}`;

const start = (overrides: Partial<FrontierStart> = {}): FrontierStart => ({
  origins: [O],
  includePaths: [],
  excludePaths: ['/private/**'],
  robotsTxt: 'User-agent: *\nDisallow: /private/\n',
  useSitemap: false,
  found: [u('/')],
  scheduled: [u('/')],
  budget: 149,
  maxDepth: 1,
  ...overrides,
});

/** Behaviour every CrawlFrontier must show; `create` returns a fresh frontier per test. */
export function describeCrawlFrontierContract(label: string, create: () => Promise<CrawlFrontierHarness>): void {
  describe(`CrawlFrontier contract: ${label}`, () => {
    let harness: CrawlFrontierHarness;
    let frontier: CrawlFrontier;
    const now = Date.now();

    beforeEach(async () => {
      harness = await create();
      frontier = harness.frontier;
    });
    afterEach(async () => harness.cleanup());

    it('keeps the scope it was opened with and starts with the seeds handed out at depth 0', async () => {
      const id = crawlId();
      await frontier.open(id, start({ found: [u('/'), u('/private/x')] }));
      expect(await frontier.scope(id)).toEqual({
        origins: [O],
        includePaths: [],
        excludePaths: ['/private/**'],
        robotsTxt: 'User-agent: *\nDisallow: /private/\n',
        useSitemap: false,
      });
      expect(await frontier.summary(id)).toEqual({
        found: 2,
        scheduled: [{ url: u('/'), depth: 0 }],
        late: 0,
        maxDepth: 1,
      });
      expect(await frontier.scope(crawlId())).toBeNull();
      expect(await frontier.summary(crawlId())).toBeNull();
    });

    it('hands each URL out once, in link order, while the budget lasts; disallowed and surplus URLs are found only', async () => {
      const id = crawlId();
      await frontier.open(id, start({ budget: 3 }));
      const seed = await frontier.admit(id, {
        page: u('/'),
        now,
        links: [...ok('/a', '/b', '/a'), { url: u('/private/c'), allowed: false }, ...ok('/', '/d', '/e')],
      });
      expect(seed).toEqual({ admitted: [u('/a'), u('/b'), u('/d')], found: 5 });
      expect(await frontier.summary(id)).toEqual({
        found: 6,
        scheduled: [u('/'), u('/a'), u('/b'), u('/d')].map((url, i) => ({ url, depth: i === 0 ? 0 : 1 })),
        late: 0,
        maxDepth: 1,
      });
    });

    it('admits several pages in one call as one call each would, in order, a repeated page answered as before', async () => {
      const id = crawlId();
      await frontier.open(id, start({ budget: 3, maxDepth: 2 }));
      await frontier.admit(id, { page: u('/'), now, links: ok('/a', '/b') });
      expect(
        await frontier.admitEach(id, [
          { page: u('/a'), now, links: ok('/b', '/c', '/d') },
          { page: u('/b'), now, links: ok('/c', '/e') },
          { page: u('/a'), now, links: ok('/f') },
        ]),
      ).toEqual([
        { admitted: [u('/c')], found: 2 },
        { admitted: [], found: 1 },
        { admitted: [u('/c')], found: 0 },
      ]);
      expect(await frontier.admitEach(id, [])).toEqual([]);
      expect(await frontier.admitEach(crawlId(), [{ page: u('/'), now, links: ok('/a') }])).toEqual([
        { admitted: [], found: 0 },
      ]);
    });

    it('admits a page in parts as at once: each part answered once, admittedBy joining them, links kept in order', async () => {
      const whole = crawlId();
      const parted = crawlId();
      for (const id of [whole, parted]) await frontier.open(id, start({ budget: 10, maxDepth: 3 }));
      const seedLinks = ok('/a', '/b', '/c', '/d');
      const atOnce = await frontier.admit(whole, { page: u('/'), now, sitemap: ok('/s'), links: seedLinks });
      const parts = await frontier.admitEach(parted, [
        { page: u('/'), now, sitemap: ok('/s'), links: [], part: 0 },
        { page: u('/'), now, links: seedLinks.slice(0, 2), part: 1 },
        { page: u('/'), now, links: seedLinks.slice(2), part: 2 },
      ]);
      expect(parts.flatMap((part) => part.admitted)).toEqual(atOnce.admitted);
      expect(parts.reduce((sum, part) => sum + part.found, 0)).toBe(atOnce.found);
      // A retried part answers as before; the page's admissions are read back whole.
      expect(await frontier.admit(parted, { page: u('/'), now, links: ok('/x'), part: 2 })).toEqual({
        admitted: parts[2]!.admitted,
        found: 0,
      });
      expect(await frontier.admittedBy(parted, u('/'))).toEqual(atOnce.admitted);
      // The links of every part are kept: a shorter path to /a later re-admits from all of them alike.
      await frontier.admit(whole, { page: u('/a'), now, links: ok('/a1') });
      await frontier.admit(parted, { page: u('/a'), now, links: [], part: 0 });
      await frontier.admit(parted, { page: u('/a'), now, links: ok('/a1'), part: 1 });
      expect((await frontier.summary(parted))?.scheduled).toEqual((await frontier.summary(whole))?.scheduled);
    });

    it('takes no links from a page at maxDepth', async () => {
      const id = crawlId();
      await frontier.open(id, start({ maxDepth: 1 }));
      await frontier.admit(id, { page: u('/'), now, links: ok('/a') });
      expect(await frontier.admit(id, { page: u('/a'), now, links: ok('/deeper') })).toEqual({
        admitted: [],
        found: 0,
      });
      expect((await frontier.summary(id))!.found).toBe(2);
    });

    it("answers a page's second admission with its first, admitting nothing new", async () => {
      const id = crawlId();
      await frontier.open(id, start());
      expect(await frontier.admittedBy(id, u('/'))).toBeNull();
      await frontier.admit(id, { page: u('/'), now, links: ok('/a', '/b') });
      expect(await frontier.admit(id, { page: u('/'), now, links: ok('/a', '/b', '/c') })).toEqual({
        admitted: [u('/a'), u('/b')],
        found: 0,
      });
      expect(await frontier.admittedBy(id, u('/'))).toEqual([u('/a'), u('/b')]);
      await frontier.admit(id, { page: u('/a'), now, links: [] });
      expect(await frontier.admittedBy(id, u('/a'))).toEqual([]);
      expect((await frontier.summary(id))!.scheduled).toHaveLength(3);
    });

    it("takes the seed's sitemap URLs first, at depth 1 even with maxDepth 0, then its links", async () => {
      const id = crawlId();
      await frontier.open(id, start({ maxDepth: 0, useSitemap: true }));
      const seed = await frontier.admit(id, { page: u('/'), now, sitemap: ok('/s1', '/a'), links: ok('/a', '/b') });
      expect(seed).toEqual({ admitted: [u('/s1'), u('/a')], found: 2 });
      const id2 = crawlId();
      await frontier.open(id2, start({ maxDepth: 1, useSitemap: true }));
      expect(
        (await frontier.admit(id2, { page: u('/'), now, sitemap: ok('/s1', '/a'), links: ok('/a', '/b') })).admitted,
      ).toEqual([u('/s1'), u('/a'), u('/b')]);
    });

    it("adds the seed's final origin to the scope and never hands out a final URL", async () => {
      const id = crawlId();
      await frontier.open(id, start({ found: [u('/start')], scheduled: [u('/start')] }));
      const seed = await frontier.admit(id, {
        page: u('/start'),
        now,
        finalOrigin: 'https://www.docs.test',
        finalUrl: 'https://www.docs.test/index.html',
        links: [
          { url: 'https://www.docs.test/index.html', allowed: true },
          { url: 'https://www.docs.test/a', allowed: true },
        ],
      });
      expect(seed).toEqual({ admitted: ['https://www.docs.test/a'], found: 2 });
      expect((await frontier.scope(id))!.origins).toEqual([O, 'https://www.docs.test']);
    });

    it('counts the pages found after the deadline as late, within the budget, and hands none out', async () => {
      const id = crawlId();
      await frontier.open(id, start({ budget: 2, deadline: now - 1 }));
      expect(await frontier.admit(id, { page: u('/'), now, links: ok('/a', '/b', '/c') })).toEqual({
        admitted: [],
        found: 3,
      });
      expect(await frontier.summary(id)).toMatchObject({ late: 2, scheduled: [{ url: u('/'), depth: 0 }] });
    });

    it('lowers the depth of a page reached by a shorter path and follows the links it could not follow before', async () => {
      const id = crawlId();
      await frontier.open(id, start({ maxDepth: 3 }));
      expect((await frontier.admit(id, { page: u('/'), now, links: ok('/a', '/b') })).admitted).toEqual([
        u('/a'),
        u('/b'),
      ]);
      expect((await frontier.admit(id, { page: u('/a'), now, links: ok('/c') })).admitted).toEqual([u('/c')]);
      expect((await frontier.admit(id, { page: u('/c'), now, links: ok('/d') })).admitted).toEqual([u('/d')]);
      // /d is at depth 3 = maxDepth: its links are not followed, as long as /d is that deep.
      const disallowed = { url: u('/private/x'), allowed: false };
      expect(await frontier.admit(id, { page: u('/d'), now, links: [...ok('/e'), disallowed] })).toEqual({
        admitted: [],
        found: 0,
      });
      // /b (depth 1) links /d: /d is at depth 2 now, its link /e is followed at depth 3 and the disallowed one found.
      expect(await frontier.admit(id, { page: u('/b'), now, links: ok('/d') })).toEqual({
        admitted: [u('/e')],
        found: 2,
      });
      const depths = Object.fromEntries(
        (await frontier.summary(id))!.scheduled.map((s) => [new URL(s.url).pathname, s.depth]),
      );
      expect(depths).toEqual({ '/': 0, '/a': 1, '/b': 1, '/c': 2, '/d': 2, '/e': 3 });
    });

    it('keeps crawls apart, and forgets a dropped one', async () => {
      const [one, two] = [crawlId(), crawlId()];
      await frontier.open(one, start());
      await frontier.open(two, start());
      await frontier.admit(one, { page: u('/'), now, links: ok('/a') });
      expect((await frontier.admit(two, { page: u('/'), now, links: ok('/a') })).admitted).toEqual([u('/a')]);
      await frontier.drop(one);
      expect(await frontier.summary(one)).toBeNull();
      expect(await frontier.admit(one, { page: u('/a'), now, links: ok('/b') })).toEqual({ admitted: [], found: 0 });
      expect((await frontier.summary(two))!.scheduled).toHaveLength(2);
    });

    it('opening again starts the crawl over', async () => {
      const id = crawlId();
      await frontier.open(id, start());
      await frontier.admit(id, { page: u('/'), now, links: ok('/a') });
      await frontier.open(id, start());
      expect(await frontier.admittedBy(id, u('/'))).toBeNull();
      expect((await frontier.admit(id, { page: u('/'), now, links: ok('/a') })).admitted).toEqual([u('/a')]);
    });
  });
}
