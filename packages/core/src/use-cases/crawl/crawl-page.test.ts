import type { HostThrottle, LoadedPage, PageLoader } from '../../crawl/page-loader';
import type { JobContext } from '../../jobs/workflow';
import type { CrawledPage } from '../../ports';
import { pageKeyOf } from '../../crawl/crawl-frontier';
import { MemoryCrawlFrontier } from '@docshelf/testing/fakes/memory-crawl-frontier';
import { crawlPage } from './crawl-page';

const URL_A = 'https://docs.test/guide.html';
const politeness = { hostPagesPerSecond: 10, crawlDelayMaxMs: 10_000 };

/** The host's turns as a throttle sees them: how long each caller waited for, and how much later it pushed the next. */
function fakeThrottle() {
  const calls: Array<[kind: 'wait' | 'extend', host: string, ms: number]> = [];
  const throttle: HostThrottle = {
    waitTurn: async (host, ms) => void calls.push(['wait', host, ms]),
    extendTurn: async (host, ms) => void calls.push(['extend', host, ms]),
  };
  return { throttle, calls };
}

/** A page as the loader gives it: changed (a full body) or not modified since the known validators (304). */
function loaderAnswering(answer: 'full' | 'not-modified' | 'same-body'): PageLoader {
  return {
    async load(url, options) {
      const full: LoadedPage = {
        url,
        status: 200,
        renderedWith: 'http',
        text: 'x',
        markdown: '# Guide\n\nNew text.',
        title: 'Guide',
        links: [],
      };
      if (answer === 'full' || !options.known) return full;
      return {
        ...full,
        text: '',
        markdown: '',
        title: '',
        validators: options.known,
        unchanged: true,
        notModified: answer === 'not-modified',
      };
    },
    fetchSiteFile: async () => null,
    revalidate: async () => null,
  };
}

const known = (validators: Partial<CrawledPage>): CrawledPage => ({
  url: URL_A,
  contentHash: 'abc',
  chunkIds: ['c1'],
  lineKeys: [],
  links: [],
  ...validators,
});
const staging = (page: CrawledPage | null) => ({ getCrawledPage: async () => page, stagePage: async () => undefined });
const ctx: JobContext = {
  workflowId: 'crawl-1',
  signal: new AbortController().signal,
  reportProgress: async () => undefined,
  beginCommit: async () => undefined,
  addToWorkflow: async () => undefined,
};
const frontier = new MemoryCrawlFrontier();
const job = (extra: { crawlDelayMs?: number } = {}) => ({
  crawlId: '6f1c1e9e-3b0a-4c55-9a51-1f4f3b1c2d3e',
  url: URL_A,
  renderer: 'http' as const,
  libraryId: 'acme/docs',
  ...extra,
});

describe('crawlPage politeness', () => {
  it('gives a page crawled for the first time a whole turn (10 pages/s: 100 ms)', async () => {
    const { throttle, calls } = fakeThrottle();
    await crawlPage(
      { staging: staging(null), loader: loaderAnswering('full'), throttle, politeness, frontier },
      job(),
      ctx,
    );
    expect(calls).toEqual([['wait', 'docs.test', 100]]);
  });

  it('lets a known page answered 304 Not Modified cost an eighth of a turn', async () => {
    const { throttle, calls } = fakeThrottle();
    const result = await crawlPage(
      {
        staging: staging(known({ etag: '"v1"' })),
        loader: loaderAnswering('not-modified'),
        throttle,
        politeness,
        frontier,
      },
      job(),
      ctx,
    );
    expect(result.unchanged).toBe(true);
    expect(calls).toEqual([['wait', 'docs.test', 13]]);
  });

  it('takes the rest of the turn when a known page comes whole, changed or not', async () => {
    for (const answer of ['full', 'same-body'] as const) {
      const { throttle, calls } = fakeThrottle();
      await crawlPage(
        {
          staging: staging(known({ lastModified: 'Tue, 02 Jan 2024 10:00:00 GMT' })),
          loader: loaderAnswering(answer),
          throttle,
          politeness,
          frontier,
        },
        job(),
        ctx,
      );
      expect(calls).toEqual([
        ['wait', 'docs.test', 13],
        ['extend', 'docs.test', 87],
      ]);
    }
  });

  it('asks without validators, or under a robots.txt Crawl-delay, in whole turns', async () => {
    const hashOnly = fakeThrottle();
    await crawlPage(
      {
        staging: staging(known({})),
        loader: loaderAnswering('same-body'),
        throttle: hashOnly.throttle,
        politeness,
        frontier,
      },
      job(),
      ctx,
    );
    expect(hashOnly.calls).toEqual([['wait', 'docs.test', 100]]);

    const delayed = fakeThrottle();
    await crawlPage(
      {
        staging: staging(known({ etag: '"v1"' })),
        loader: loaderAnswering('not-modified'),
        throttle: delayed.throttle,
        politeness,
        frontier,
      },
      job({ crawlDelayMs: 2_000 }),
      ctx,
    );
    expect(delayed.calls).toEqual([['wait', 'docs.test', 2_000]]);
  });
});

describe('crawlPage hands out the known pages it found', () => {
  it('asks for them itself in the same politeness turns; a changed one becomes a job', async () => {
    const [b, c] = ['https://docs.test/b.html', 'https://docs.test/c.html'];
    const crawlId = '0d7c6f3e-2a4b-4c1d-9e8f-7a6b5c4d3e2f';
    const pages = new Map([
      [URL_A, known({ etag: '"a"', links: [b, c] })],
      [b, known({ url: b, etag: '"b"' })],
      [c, known({ url: c, etag: '"c"' })],
    ]);
    const frontier = new MemoryCrawlFrontier();
    await frontier.open(crawlId, {
      origins: ['https://docs.test'],
      includePaths: [],
      excludePaths: [],
      robotsTxt: null,
      useSitemap: false,
      found: [URL_A],
      scheduled: [URL_A],
      budget: 10,
      maxDepth: 2,
    });
    const loader: PageLoader = {
      ...loaderAnswering('not-modified'),
      revalidate: async (url, { known: validators }) => (url === b ? { url, validators, notModified: true } : null),
    };
    const { throttle, calls } = fakeThrottle();
    const added: string[] = [];
    const result = await crawlPage(
      {
        staging: { getCrawledPage: async (_id, url) => pages.get(url) ?? null, stagePage: async () => undefined },
        loader,
        throttle,
        politeness,
        frontier,
      },
      { ...job(), crawlId, fanOut: true },
      { ...ctx, addToWorkflow: async (children) => void added.push(...children.map((child) => child.key)) },
    );
    expect(result).toMatchObject({ unchanged: true, revalidated: [b] });
    expect(added).toEqual([pageKeyOf(c)]);
    // Its own 304, then an eighth of a turn per page it asked for; the changed one takes the rest of its turn.
    expect(calls.sort()).toEqual(
      [
        ['wait', 'docs.test', 13],
        ['wait', 'docs.test', 13],
        ['wait', 'docs.test', 13],
        ['extend', 'docs.test', 87],
      ].sort(),
    );
  });
});
