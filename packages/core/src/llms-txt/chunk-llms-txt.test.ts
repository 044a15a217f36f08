import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { estimateTokens } from '../domain/tokens';
import { countWords } from '../chunking/count-words';
import { chunkLlmsTxt } from './chunk-llms-txt';
import { parseLlmsTxt } from './parse-llms-txt';

const sourceUrl = 'https://fastht.ml/docs/llms.txt';
const example = readFileSync(join(__dirname, 'fixtures', 'example-llms.txt'), 'utf8');

describe('chunkLlmsTxt', () => {
  const chunks = chunkLlmsTxt(parseLlmsTxt(example), sourceUrl);

  it('makes one chunk for the header and one per section', () => {
    expect(chunks.map((chunk) => chunk.title)).toEqual([
      'FastHTML',
      'FastHTML › Docs',
      'FastHTML › Examples',
      'FastHTML › Optional (optional)',
    ]);
  });

  it('puts title, summary and details in the header chunk', () => {
    const header = chunks[0]!.content;
    expect(header).toMatch(/^# FastHTML\n\n> FastHTML is a python library/);
    expect(header).toContain('Remember:');
    expect(header).toContain('from fasthtml.common import *');
    expect(header).not.toContain('## Docs');
  });

  it('writes each section as its heading and raw body', () => {
    expect(chunks[1]!.content).toMatch(/^## Docs\n\n- \[FastHTML quick start\]\(https:\/\/fastht\.ml\//);
    expect(chunks[2]!.content).toContain('### Notes on examples');
  });

  it('points every chunk at the llms.txt URL with its token estimate and a stable 24-hex id', () => {
    for (const chunk of chunks) {
      expect(chunk.url).toBe(sourceUrl);
      expect(chunk.tokenCount).toBe(estimateTokens(chunk.content));
      expect(chunk.id).toMatch(/^[0-9a-f]{24}$/);
    }
    expect(chunkLlmsTxt(parseLlmsTxt(example), sourceUrl).map((c) => c.id)).toEqual(chunks.map((c) => c.id));
    expect(new Set(chunks.map((c) => c.id)).size).toBe(chunks.length);
    const edited = chunkLlmsTxt(parseLlmsTxt(example.replace('0.6 and later', '0.7 and later')), sourceUrl);
    expect(edited.map((c) => c.id === chunks[edited.indexOf(c)]!.id)).toEqual([true, true, false, true]);
  });

  it('splits a section longer than about 500 words with the Markdown chunker', () => {
    const links = Array.from(
      { length: 80 },
      (_, i) =>
        `- [Guide ${i}](https://example.test/guide-${i}.md): How to configure workers, queues and retries for case ${i}.`,
    );
    const doc = parseLlmsTxt(
      `# Big\n\n> Summary.\n\n## Guides\n\n${links.join('\n')}\n\n### Advanced\n\n${links.slice(0, 20).join('\n')}`,
    );
    const parts = chunkLlmsTxt(doc, sourceUrl);
    expect(parts.length).toBeGreaterThanOrEqual(4);
    expect(parts[1]!.title).toBe('Big › Guides');
    for (const part of parts.slice(1)) expect(['Big › Guides', 'Big › Guides › Advanced']).toContain(part.title);
    for (const part of parts.slice(1)) expect(countWords(part.content)).toBeLessThanOrEqual(560);
    const seen = new Set(parts.flatMap((part) => part.content.match(/guide-\d+\.md/g) ?? []));
    expect(seen.size).toBe(80);
  });

  it('skips sections without a body and still emits the header of a title-only file', () => {
    const only = chunkLlmsTxt(parseLlmsTxt('# Tiny\n\n## Empty\n'), sourceUrl);
    expect(only.map((c) => [c.title, c.content])).toEqual([['Tiny', '# Tiny']]);
  });
});
