import { countTokens } from './token-count';
import { joinWithoutOverlap, packContext, sourceLine } from './pack-context';
import type { RankedChunk } from './rank-chunks';

const chunk = (id: string, position: number, content: string, url = 'https://docs.test/page'): RankedChunk => ({
  libraryId: 'lib',
  id,
  position,
  content,
  url,
  title: `Page › ${id}`,
  tokenCount: 0,
  score: 1,
});
const words = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `w${from + i}`).join(' ');

describe('packContext', () => {
  it("never goes over the budget by the tokenizer's count, and fills it with the best chunks first", () => {
    const ranked = Array.from({ length: 30 }, (_, i) =>
      chunk(`c${i}`, i * 2, `${'Some documentation text about topic '.repeat(20)}${i}`, `https://docs.test/p${i}`),
    );
    for (const budget of [100, 300, 1_000, 5_000]) {
      const packed = packContext(ranked, budget);
      expect(countTokens(packed.text)).toBe(packed.tokens);
      expect(packed.tokens).toBeLessThanOrEqual(budget);
      expect(packed.pieces.length).toBeGreaterThan(0);
    }
    expect(packContext(ranked, 1_000).pieces[0]!.chunkId).toBe('c0');
  });

  it("writes the docs' links as their text, so a budget holds more of the pages' words", () => {
    const linked = (i: number) =>
      `${words(i * 50, i * 50 + 30)} [see also ${i}](https://docs.test/reference/very/long/path/to/a/page-${i}.html#section-${i})`;
    const ranked = Array.from({ length: 12 }, (_, i) => chunk(`c${i}`, i * 2, linked(i), `https://docs.test/p${i}`));
    const packed = packContext(ranked, 600);
    expect(packed.text).not.toContain('](');
    expect(packed.text).toContain('see also 0');
    expect(packed.pieces[0]!.url).toBe('https://docs.test/p0');
    const linkCost = countTokens('(https://docs.test/reference/very/long/path/to/a/page-0.html#section-0)');
    expect(packed.pieces.length).toBeGreaterThan(
      Math.floor(600 / (countTokens(`### Page › c0\nSource: https://docs.test/p0 (lib)\n\n${linked(0)}`) + 5)),
    );
    expect(linkCost).toBeGreaterThan(15);
  });

  it('writes a piece without the headings its title already says, nor a heading left with nothing under it', () => {
    const packed = packContext(
      [chunk('Spawning', 0, '## Page\n\n### Spawning\n\nspawn() starts a process.\n\n## See also')],
      500,
    );
    expect(packed.pieces[0]!.content).toBe('spawn() starts a process.');
    expect(packed.text).toContain('### Page › Spawning\n');
    expect(packed.text).not.toContain('## Page\n');
    expect(packed.text).not.toContain('See also');
  });

  it('cuts the best chunk down when it alone is over the budget', () => {
    const packed = packContext([chunk('big', 0, 'A sentence of documentation. '.repeat(200))], 100);
    expect(packed.pieces).toHaveLength(1);
    expect(packed.tokens).toBeLessThanOrEqual(100);
    expect(packed.pieces[0]!.content.length).toBeGreaterThan(100);
  });

  it('merges neighbours of one page in page order, writes shared overlap once and leaves out repeats', () => {
    const ranked = [
      chunk('second', 1, words(40, 100)),
      chunk('first', 0, words(0, 50)),
      chunk('copy', 7, words(0, 50), 'https://docs.test/other'),
    ];
    const packed = packContext(ranked, 5_000);
    expect(packed.pieces).toHaveLength(1);
    expect(packed.pieces[0]).toMatchObject({ chunkId: 'first', content: words(0, 100), url: 'https://docs.test/page' });
    expect(packed.text).toContain('Source: https://docs.test/page');
  });

  it("names each piece's library, version, page and fetch, in the JSON and in one short source line", () => {
    const fetched = { fetchedAt: '2025-01-02T03:04:05.000Z', contentHash: 'c0ffee' };
    const ranked = [
      { ...chunk('a', 0, words(0, 40)), ...fetched },
      chunk('old', 3, words(100, 140), 'https://docs.test/old'),
    ];
    const packed = packContext(ranked, 5_000, new Map([['lib', '15.1']]));
    expect(packed.pieces.map(({ content: _c, tokens: _t, ...source }) => source)).toEqual([
      {
        chunkId: 'a',
        libraryId: 'lib',
        libraryVersion: '15.1',
        title: 'Page › a',
        url: 'https://docs.test/page',
        ...fetched,
      },
      {
        chunkId: 'old',
        libraryId: 'lib',
        libraryVersion: '15.1',
        title: 'Page › old',
        url: 'https://docs.test/old',
        fetchedAt: null,
        contentHash: null,
      },
    ]);
    expect(packed.text).toContain('### Page › a\nSource: https://docs.test/page (lib@15.1, fetched 2025-01-02)\n\n');
    expect(packed.text).toContain('### Page › old\nSource: https://docs.test/old (lib@15.1)\n\n');
    expect(packContext(ranked, 5_000).pieces[0]!.libraryVersion).toBeNull();
    expect(packContext(ranked, 5_000).text).toContain('Source: https://docs.test/page (lib, fetched 2025-01-02)\n');
  });

  it("writes a page's source line once, over the first of its pieces, so the budget holds more of its text", () => {
    const ranked = [
      chunk('intro', 0, words(0, 40)),
      chunk('other', 0, words(100, 140), 'https://docs.test/other'),
      chunk('options', 6, words(200, 240)),
      chunk('errors', 12, words(300, 340)),
    ];
    const packed = packContext(ranked, 5_000);
    expect(packed.pieces.map((piece) => piece.chunkId)).toEqual(['intro', 'options', 'errors', 'other']);
    expect(packed.text.match(/Source: https:\/\/docs\.test\/page /g)).toHaveLength(1);
    expect(packed.text).toContain('### Page › intro\nSource: https://docs.test/page (lib)\n\n');
    expect(packed.text).toContain('### Page › options\n\nw200');
    expect(packed.text).toContain('### Page › errors\n\nw300');
    expect(packed.text).toContain('### Page › other\nSource: https://docs.test/other (lib)\n\n');
    expect(countTokens(packed.text)).toBe(packed.tokens);
  });

  it('writes a versioned library id once, and a source line without a URL when a piece has none', () => {
    const base = { libraryId: 'python/stdlib@3.11', libraryVersion: '3.11', fetchedAt: '2024-12-31T23:59:59.000Z' };
    expect(sourceLine({ ...base, url: 'https://docs.python.org/3.11/' })).toBe(
      'Source: https://docs.python.org/3.11/ (python/stdlib@3.11, fetched 2024-12-31)',
    );
    expect(sourceLine({ ...base, url: null })).toBe('Source: python/stdlib@3.11, fetched 2024-12-31');
    expect(sourceLine({ libraryId: 'acme', libraryVersion: null, url: null, fetchedAt: null })).toBe('Source: acme');
  });

  it('packs nothing from nothing', () => {
    expect(packContext([], 1_000)).toEqual({ pieces: [], text: '', tokens: 0 });
  });
});

describe('joinWithoutOverlap', () => {
  it('drops the repeated words, also when their spacing differs', () => {
    expect(joinWithoutOverlap('a b c d e f g h i j k', 'f g h i j k l m')).toBe('a b c d e f g h i j k l m');
    expect(
      joinWithoutOverlap('alpha beta gamma delta epsilon zeta eta theta', 'gamma delta\n\nepsilon zeta eta theta iota'),
    ).toBe('alpha beta gamma delta epsilon zeta eta theta iota');
    expect(joinWithoutOverlap('unrelated text here', 'something else entirely')).toBe(
      'unrelated text here\n\nsomething else entirely',
    );
  });
});
