import type { FoundLink } from '../../crawl/crawl-frontier';
import { MemoryCrawlFrontier } from '@docshelf/testing/fakes/memory-crawl-frontier';
import { ADMISSION_LINKS, admitInParts, packCalls, partsOf } from './hand-out-links';

const links = (n: number, from = 0): FoundLink[] =>
  Array.from({ length: n }, (_, i) => ({ url: `https://d.test/p${from + i}`, allowed: true }));
const start = (budget: number) => ({
  origins: ['https://d.test'],
  includePaths: [],
  excludePaths: [],
  robotsTxt: null,
  useSitemap: true,
  found: ['https://d.test/'],
  scheduled: ['https://d.test/'],
  budget,
  maxDepth: 3,
});

describe('admitting links in bounded calls', () => {
  it("splits a page's admission into parts of at most ADMISSION_LINKS links, sitemap first, final URL with part 0", () => {
    const parts = partsOf({
      page: 'https://d.test/',
      now: 1,
      finalUrl: 'https://d.test/home',
      sitemap: links(2_500, 10_000),
      links: links(4_500),
    });
    expect(parts.map((part) => [part.part, part.sitemap?.length ?? 0, part.links.length])).toEqual([
      [0, 2_000, 0],
      [1, 500, 0],
      [2, 0, 2_000],
      [3, 0, 2_000],
      [4, 0, 500],
    ]);
    expect(parts.filter((part) => part.finalUrl)).toEqual([parts[0]]);
    expect(partsOf({ page: 'https://d.test/a', now: 1, links: links(3) })).toEqual([
      { page: 'https://d.test/a', now: 1, links: links(3) },
    ]);
  });

  it('packs consecutive parts into calls of at most ADMISSION_LINKS links and 50 parts', () => {
    const calls = packCalls([1_500, 400, 200, 2_000, ...Array<number>(60).fill(1)], (size) => size);
    expect(calls.map((call) => call.reduce((sum, size) => sum + size, 0))).toEqual([1_900, 200, 2_000, 50, 10]);
    expect(calls.every((call) => call.length <= 50)).toBe(true);
    expect(Math.max(...calls.map((call) => call.reduce((sum, size) => sum + size, 0)))).toBeLessThanOrEqual(
      ADMISSION_LINKS,
    );
  });

  it('admits in parts exactly what one call would, for pages of many links', async () => {
    const whole = new MemoryCrawlFrontier();
    const parted = new MemoryCrawlFrontier();
    await whole.open('c', start(7_000));
    await parted.open('c', start(7_000));
    const pages = [
      { page: 'https://d.test/', now: 1, sitemap: links(3_000, 50_000), links: links(5_000) },
      { page: 'https://d.test/p1', now: 1, links: links(4_100, 4_000) },
    ];
    const expected = [];
    for (const page of pages) expected.push(await whole.admit('c', page));
    const calls: number[] = [];
    const counting = Object.assign(Object.create(parted) as MemoryCrawlFrontier, {
      admitEach: (id: string, inputs: Parameters<MemoryCrawlFrontier['admitEach']>[1]) => {
        calls.push(inputs.reduce((n, input) => n + (input.sitemap?.length ?? 0) + input.links.length, 0));
        return parted.admitEach(id, inputs);
      },
    });
    expect(await admitInParts(counting, 'c', new AbortController().signal, pages)).toEqual(expected);
    expect(Math.max(...calls)).toBeLessThanOrEqual(ADMISSION_LINKS);
    expect(await parted.summary('c')).toEqual(await whole.summary('c'));
    expect(await parted.admittedBy('c', 'https://d.test/')).toEqual(expected[0]!.admitted);
  });
});
