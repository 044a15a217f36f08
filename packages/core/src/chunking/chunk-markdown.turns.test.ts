import { createHash } from 'node:crypto';
import {
  dropRepeatedLines,
  dropRepeatedLinesInTurns,
  repeatableKeysInTurns,
  repeatableKeysOf,
} from '../crawl/repeated-blocks';
import type { ChunkInput } from '../domain/types';
import { chunkMarkdown, chunkMarkdownInTurns } from './chunk-markdown';

const options = { pageUrl: 'https://docs.example.com/guide', pageTitle: 'Guide' };

/** An ordinary page: nested headings, prose, a list, a table, a short and a long code block. */
function ordinaryPage(): string {
  const parts = ['# Guide', 'Intro to the guide. '.repeat(30)];
  for (let section = 1; section <= 12; section += 1) {
    parts.push(`## Section ${section}`, `Prose of section ${section}, about queues and workers. `.repeat(20 + section));
    parts.push(`### Options ${section}`, '- one option\n- another option\n- a third option');
    parts.push(
      '| name | value |\n| --- | --- |\n' + Array.from({ length: 8 }, (_, i) => `| n${i} | v${i} |`).join('\n'),
    );
    const code = Array.from({ length: section % 4 === 0 ? 400 : 6 }, (_, i) => `const v${i} = compute(${i});`);
    parts.push('```ts\n' + code.join('\n') + '\n```');
  }
  return parts.join('\n\n');
}

/** A hostile page's Markdown: 300,000 short sections, 8.2 MB. */
const bigPage = () => Array.from({ length: 300_000 }, (_, i) => `## Part ${i}\n\nword${i}`).join('\n\n');

const digest = (chunks: ChunkInput[]) => createHash('sha256').update(JSON.stringify(chunks)).digest('hex');

/** Counts the event loop's turns while `work` runs. */
async function turnsDuring<T>(work: () => Promise<T>): Promise<{ result: T; turns: number }> {
  let turns = 0;
  let running = true;
  const tick = () => {
    turns += 1;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  const result = await work();
  running = false;
  return { result, turns };
}

describe('chunking in turns of the event loop', () => {
  // Digests of the chunks chunkMarkdown gave before it could run in turns.
  it('gives an ordinary page the chunks it gave before', async () => {
    const markdown = ordinaryPage();
    const chunks = chunkMarkdown(markdown, options);
    expect(chunks.length).toBeGreaterThan(5);
    expect(digest(chunks)).toBe('c5eba6895c7690cbdb5211d55e95e44d7239f0c370d1681a5f631922f4916477');
    expect(await chunkMarkdownInTurns(markdown, options)).toEqual(chunks);
  });

  it('gives a page of 300,000 short sections the chunks it gave before, with turns of the event loop between', async () => {
    const markdown = bigPage();
    const chunks = chunkMarkdown(markdown, options);
    expect(digest(chunks)).toBe('22e1d7f568ce534b2192ff66c2c3f612a2e58e891a6e021517f8c4b12b40af9e');
    const { result, turns } = await turnsDuring(() => chunkMarkdownInTurns(markdown, options));
    expect(result).toEqual(chunks);
    expect(turns).toBeGreaterThan(10);
  });

  it("reads and drops a big page's repeated lines in turns as at once", async () => {
    const page = { markdown: bigPage(), landmark: false };
    const keys = repeatableKeysOf(page);
    const repeated = new Set(keys.filter((_, i) => i % 3 === 0));
    const { result, turns } = await turnsDuring(async () => ({
      keys: await repeatableKeysInTurns(page),
      dropped: await dropRepeatedLinesInTurns(page, repeated),
    }));
    expect(result.keys).toEqual(keys);
    expect(result.dropped).toBe(dropRepeatedLines(page, repeated));
    expect(turns).toBeGreaterThan(10);
  });
});
