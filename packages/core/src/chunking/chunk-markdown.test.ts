import { estimateTokens } from '../domain/tokens';
import { chunkMarkdown, composeChunkTitle, countWords } from './chunk-markdown';

const VOCABULARY = (
  'queue worker job retry backoff redis connection timeout event stream buffer socket handler promise ' +
  'callback option default value limit batch schedule cron delay priority lock lease heartbeat metric'
).split(' ');

/** Deterministic prose: sentences of 6 to 17 words, so tests do not depend on randomness. */
function makeProse(words: number, seed: number): string {
  let state = seed;
  const next = (): number => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state >>> 8;
  };
  const sentences: string[] = [];
  let written = 0;
  while (written < words) {
    const length = Math.min(6 + (next() % 12), words - written);
    const sentence = Array.from({ length }, () => VOCABULARY[next() % VOCABULARY.length]).join(' ');
    sentences.push(`${sentence[0]!.toUpperCase()}${sentence.slice(1)}.`);
    written += length;
  }
  return sentences.join(' ');
}

/** A page of `sections` sections, each a heading and paragraphs of 30 to 60 words. */
function makePage(sections: number, wordsPerSection: number): string {
  const parts = ['# Worker guide'];
  for (let section = 1; section <= sections; section += 1) {
    parts.push(`## Section ${section}`);
    let remaining = wordsPerSection;
    for (let paragraph = 0; remaining > 0; paragraph += 1) {
      const words = Math.min(30 + ((section * 7 + paragraph * 13) % 31), remaining);
      parts.push(makeProse(words, section * 100 + paragraph));
      remaining -= words;
    }
  }
  return parts.join('\n\n');
}

/** The longest tail of `previous` that starts `next`. */
function sharedOverlap(previous: string, next: string): string {
  for (let length = Math.min(previous.length, next.length); length > 0; length -= 1) {
    if (next.startsWith(previous.slice(previous.length - length))) return previous.slice(previous.length - length);
  }
  return '';
}

const options = { pageUrl: 'https://docs.example.com/guide/workers', pageTitle: 'Worker guide' };

describe('countWords', () => {
  it('counts tokens holding a letter or digit, not Markdown markers', () => {
    expect(countWords('')).toBe(0);
    expect(countWords('## Install the CLI')).toBe(3);
    expect(countWords('- one\n- two `x`\n\n| a | b |\n| --- | --- |\n```js\n```')).toBe(6);
  });
});

describe('chunkMarkdown', () => {
  const page = makePage(8, 250);
  const chunks = chunkMarkdown(page, options);

  it('returns nothing for empty or blank Markdown', () => {
    expect(chunkMarkdown('', options)).toEqual([]);
    expect(chunkMarkdown(' \n\n\t\n', options)).toEqual([]);
  });

  it('keeps a short page in one chunk, verbatim', () => {
    const markdown = '# Worker guide\n\nStart a worker.\n\n- one\n- two';
    expect(chunkMarkdown(markdown, options)).toEqual([
      {
        id: expect.stringMatching(/^[0-9a-f]{24}$/),
        title: 'Worker guide',
        content: markdown,
        url: options.pageUrl,
        tokenCount: estimateTokens(markdown),
      },
    ]);
  });

  it('cuts a 2,000-word page into chunks of about 500 words', () => {
    expect(countWords(page)).toBeGreaterThanOrEqual(2000);
    expect(chunks.length).toBeGreaterThanOrEqual(4);
    expect(chunks.length).toBeLessThanOrEqual(6);
    for (const chunk of chunks) {
      expect(countWords(chunk.content)).toBeGreaterThanOrEqual(400);
      expect(countWords(chunk.content)).toBeLessThanOrEqual(560);
    }
  });

  it('repeats about 50 words, starting at a sentence or line, between consecutive chunks', () => {
    for (let index = 1; index < chunks.length; index += 1) {
      const previous = chunks[index - 1]!.content;
      const overlap = sharedOverlap(previous, chunks[index]!.content);
      expect(countWords(overlap)).toBeGreaterThanOrEqual(35);
      expect(countWords(overlap)).toBeLessThanOrEqual(75);
      const before = previous.slice(0, previous.length - overlap.length);
      expect(before).toMatch(/(\.\s|\n)$/);
    }
  });

  it('covers the whole page: every paragraph is in some chunk', () => {
    for (const paragraph of page.split('\n\n')) {
      expect(chunks.some((chunk) => chunk.content.includes(paragraph))).toBe(true);
    }
  });

  it('titles chunks with the nearest heading at or before the start of their new content', () => {
    expect(chunks[0]!.title).toBe('Worker guide › Section 1');
    for (let index = 1; index < chunks.length; index += 1) {
      const content = chunks[index]!.content;
      const fresh = content.slice(sharedOverlap(chunks[index - 1]!.content, content).length).trimStart();
      const start = page.indexOf(fresh.slice(0, 120));
      expect(start).toBeGreaterThan(0);
      const headings = [...page.slice(0, start + 20).matchAll(/^## (.+)$/gm)];
      expect(chunks[index]!.title).toBe(`Worker guide › ${headings.at(-1)![1]}`);
    }
  });

  it('starts a chunk at a heading rather than at a closer paragraph boundary when the chunk is nearly full', () => {
    const sections = [1, 2, 3].map(
      (n) => `## Part ${n}\n\n${Array.from({ length: 9 }, (_, p) => makeProse(40, n * 10 + p)).join('\n\n')}`,
    );
    const parts = chunkMarkdown(`# Worker guide\n\n${sections.join('\n\n')}`, options);
    expect(parts.map((part) => part.title)).toEqual([
      'Worker guide › Part 1',
      'Worker guide › Part 2',
      'Worker guide › Part 3',
    ]);
    for (let index = 1; index < parts.length; index += 1) {
      const fresh = parts[index]!.content.slice(sharedOverlap(parts[index - 1]!.content, parts[index]!.content).length);
      expect(fresh.trimStart()).toMatch(/^## Part \d/);
    }
  });

  it('titles a chunk with the headings that contain it, outermost first', () => {
    const markdown =
      '# Worker guide\n\n## Queues\n\nAbout queues.\n\n### Retries\n\nHow retries work.\n\n## Limits\n\nAbout limits.';
    const titles = chunkMarkdown(markdown, { ...options, targetWords: 3, overlapWords: 0 }).map((c) => c.title);
    expect(titles).toEqual(['Worker guide › Queues', 'Worker guide › Queues › Retries', 'Worker guide › Limits']);
    expect(composeChunkTitle('Guide', ['A', 'B', 'C', 'D'])).toBe('Guide › B › C › D');
  });

  it('does not repeat the page title when the heading is the page title', () => {
    expect(chunkMarkdown('# Worker guide\n\nIntro text.', options)[0]!.title).toBe('Worker guide');
    expect(chunkMarkdown('Intro text without headings.', options)[0]!.title).toBe('Worker guide');
  });

  it('gives every chunk the page URL and its token estimate', () => {
    for (const chunk of chunks) {
      expect(chunk.url).toBe(options.pageUrl);
      expect(chunk.tokenCount).toBe(estimateTokens(chunk.content));
    }
  });

  it('gives stable ids: same page and content, same ids; changed content or URL, new ids', () => {
    const again = chunkMarkdown(page, options);
    expect(again.map((c) => c.id)).toEqual(chunks.map((c) => c.id));
    expect(new Set(chunks.map((c) => c.id)).size).toBe(chunks.length);

    const edited = chunkMarkdown(page.replace('## Section 8', '## Section eight'), options);
    expect(edited.map((c) => c.id)).not.toEqual(chunks.map((c) => c.id));
    const unchanged = edited.filter((c, i) => c.content === chunks[i]?.content);
    for (const chunk of unchanged) expect(chunks.map((c) => c.id)).toContain(chunk.id);

    const elsewhere = chunkMarkdown(page, { ...options, pageUrl: 'https://docs.example.com/guide/other' });
    expect(elsewhere[0]!.id).not.toBe(chunks[0]!.id);
  });

  it('splits one huge paragraph at sentence boundaries', () => {
    const paragraph = makeProse(1300, 7);
    const parts = chunkMarkdown(paragraph, options);
    expect(parts.length).toBeGreaterThanOrEqual(3);
    for (const part of parts) {
      expect(countWords(part.content)).toBeLessThanOrEqual(560);
      expect(part.content).toMatch(/\.$/);
    }
  });

  it('fills chunks from a page of nothing but short sections, not one section a chunk', () => {
    const sections = 30_000;
    const markdown = Array.from({ length: sections }, (_, i) => `## Part ${i}\n\nword${i}`).join('\n\n');
    const chunks = chunkMarkdown(markdown, options);
    // About 500 words (150 sections of three) a chunk, not one section each.
    expect(chunks.length).toBeLessThan(sections / 100);
    expect(chunks.map((chunk) => chunk.content).join('\n')).toContain(`word${sections - 1}`);
  });
});
