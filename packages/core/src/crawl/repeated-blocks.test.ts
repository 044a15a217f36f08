import fc from 'fast-check';
import {
  dropRepeatedLines,
  findRepeatedKeys,
  findRepeatedKeysInPasses,
  normalizeLine,
  repeatableKeysOf,
  type PageText,
} from './repeated-blocks';

const TOPICS = ['queues', 'workers', 'retries', 'logs', 'locks', 'schedules', 'limits'];
const page = (n: number, landmark = false): PageText => ({
  landmark,
  markdown: [
    '**Acme** — tools for busy people',
    '',
    `# Page ${n}`,
    '',
    `This page explains ${TOPICS[n]} in its own words.`,
    '',
    '```sh\nnpm install acme\n```',
    '',
    '| Option | Meaning |',
    '| --- | --- |',
    `| o${n} | m${n} |`,
    '',
    `Page last modified 2024-0${(n % 9) + 1}-1${n % 10} by the maintainers.`,
  ].join('\n'),
});

const dropped = (pages: PageText[]) => {
  const repeated = findRepeatedKeys(pages.map(repeatableKeysOf));
  return pages.map((p) => dropRepeatedLines(p, repeated));
};

describe('boilerplate by repetition', () => {
  it('matches lines that differ only in dates, numbers, case and spacing', () => {
    expect(normalizeLine('Page last modified 2024-01-02')).toBe(
      normalizeLine('page  last modified 3 March 2025'.replace('3 March 2025', '2025-03-03')),
    );
    expect(normalizeLine('Updated Mon, 2 Jan 2024')).toBe(normalizeLine('Updated Fri, 19 Jul 2025'));
  });

  it('drops a tagline and a dated footer found on most pages, keeping headings, table rows and page text', () => {
    const [first] = dropped([1, 2, 3, 4, 5, 6].map((n) => page(n)));
    expect(first).not.toContain('tools for busy people');
    expect(first).not.toContain('last modified');
    expect(first).toContain('# Page 1');
    expect(first).toContain('This page explains workers');
    expect(first).toContain('| Option | Meaning |');
    // Outside a content landmark a repeated code block is chrome too.
    expect(first).not.toContain('npm install acme');
  });

  it('keeps a repeated code block of content that came from <main> or <article>', () => {
    const [first] = dropped([1, 2, 3, 4, 5, 6].map((n) => page(n, true)));
    expect(first).toContain('npm install acme');
    expect(first).not.toContain('tools for busy people');
  });

  it('keeps lines that recur within the pages holding them, and drops nothing on a small crawl', () => {
    const recurring = [1, 2, 3, 4, 5].map((n) => ({
      landmark: true,
      markdown: `Added in: v1.${n}\n\nText ${n}\n\nAdded in: v2.${n}\n\nAdded in: v3.${n}`,
    }));
    expect(dropped(recurring)[0]).toContain('Added in: v1.1');
    expect(dropped([1, 2, 3, 4].map((n) => page(n)))[0]).toContain('tools for busy people');
  });
});

describe('repeated keys counted in two passes, in bounded memory', () => {
  const passesOver = (pages: string[][]) =>
    async function* () {
      for (const keys of pages) yield keys;
    };

  it('answers what counting every key answers, with few counters or many, whatever the pages', async () => {
    const pages = fc.array(fc.array(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'), { maxLength: 12 }), {
      maxLength: 30,
    });
    const rule = fc.record({
      minShare: fc.double({ min: 0.05, max: 1, noNaN: true }),
      minPages: fc.integer({ min: 1, max: 6 }),
      maxPerPage: fc.double({ min: 1, max: 3, noNaN: true }),
    });
    await fc.assert(
      fc.asyncProperty(pages, rule, fc.integer({ min: 1, max: 10 }), async (keys, r, counters) => {
        const expected = findRepeatedKeys(keys, r);
        expect(await findRepeatedKeysInPasses(passesOver(keys), r, counters)).toEqual(expected);
      }),
      { numRuns: 500 },
    );
  });

  it('finds the chrome of a crawl holding a hundred times more distinct lines than it keeps counters for', async () => {
    // 2,000 pages of 50 lines of their own each, and a footer on 70% of them.
    const pages = Array.from({ length: 2_000 }, (_, n) => [
      ...Array.from({ length: 50 }, (_, i) => `page${n}-line${i}`),
      ...(n % 10 < 7 ? ['footer'] : []),
    ]);
    expect(await findRepeatedKeysInPasses(passesOver(pages), undefined, 1_000)).toEqual(new Set(['footer']));
  });
});
