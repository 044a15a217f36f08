import { chunkMarkdown, countWords } from './chunk-markdown';

const options = { pageUrl: 'https://docs.example.com/guide/code', pageTitle: 'Code guide' };

function makeProse(sentences: number, topic: string): string {
  return Array.from(
    { length: sentences },
    (_, i) => `The ${topic} step ${i} explains how workers handle job number ${i}.`,
  ).join(' ');
}

function makeCode(lines: number, language = 'python'): string {
  const body = Array.from(
    { length: lines },
    (_, i) => `result_${i} = await worker.handle(job, attempt=${i})  # retry ${i}`,
  );
  return ['```' + language, ...body, '```'].join('\n');
}

const isBalanced = (content: string): boolean => (content.match(/^\s*(```|~~~)/gm)?.length ?? 0) % 2 === 0;

describe('chunkMarkdown with code', () => {
  it('never splits a 120-line code block that is under twice the target', () => {
    const code = makeCode(120);
    expect(countWords(code)).toBeGreaterThan(500);
    const markdown = `## Before\n\n${makeProse(30, 'setup')}\n\n## Code\n\n${code}\n\n## After\n\n${makeProse(30, 'cleanup')}`;
    const chunks = chunkMarkdown(markdown, options);

    const holders = chunks.filter((chunk) => chunk.content.includes(code));
    expect(holders).toHaveLength(1);
    expect(holders[0]!.title).toBe('Code guide › Code');
    for (const chunk of chunks) expect(isBalanced(chunk.content)).toBe(true);
    // A chunk after the code block may repeat its last lines, but only inside a re-opened fence.
    for (const chunk of chunks.filter((c) => !c.content.includes(code) && c.content.includes('result_119'))) {
      expect(chunk.content.startsWith('```python\n')).toBe(true);
    }
  });

  it('splits code over twice the target at line boundaries, re-opening the fence with its language', () => {
    const code = makeCode(300);
    expect(countWords(code)).toBeGreaterThan(1000);
    const chunks = chunkMarkdown(`## Listing\n\n${code}`, options);

    expect(chunks.length).toBeGreaterThanOrEqual(3);
    const seen = new Set<string>();
    for (const chunk of chunks) {
      expect(chunk.content).toMatch(/^(## Listing\n\n)?```python\n/);
      expect(chunk.content.endsWith('\n```')).toBe(true);
      expect(isBalanced(chunk.content)).toBe(true);
      expect(countWords(chunk.content)).toBeLessThanOrEqual(560);
      for (const line of chunk.content.split('\n').filter((l) => l.startsWith('result_'))) {
        expect(line).toMatch(/^result_(\d+) = await worker\.handle\(job, attempt=\1\) {2}# retry \1$/);
        seen.add(line);
      }
    }
    expect(seen.size).toBe(300);
  });

  it('merges an overlap taken from code into the next piece of the same block', () => {
    const chunks = chunkMarkdown(makeCode(300, 'js'), options);
    for (const chunk of chunks.slice(1)) {
      expect(chunk.content.match(/^```js$/gm)).toHaveLength(1);
      const numbers = [...chunk.content.matchAll(/^result_(\d+)/gm)].map((m) => Number(m[1]));
      expect(numbers).toEqual(numbers.map((_, i) => numbers[0]! + i));
    }
  });

  it('keeps a fence holding another fence whole', () => {
    const inner = '````markdown\n```js\nconst a = 1;\n```\n````';
    const chunks = chunkMarkdown(`${makeProse(40, 'intro')}\n\n${inner}\n\n${makeProse(40, 'outro')}`, options);
    const holders = chunks.filter((chunk) => chunk.content.includes('const a = 1;'));
    expect(holders.length).toBeGreaterThanOrEqual(1);
    for (const chunk of holders) expect(chunk.content).toContain(inner);
  });

  it('repeats the header row in every piece of a split table', () => {
    const rows = Array.from({ length: 200 }, (_, i) => `| option_${i} | default ${i} | sets the worker value ${i} |`);
    const table = ['| Option | Default | Meaning |', '| --- | --- | --- |', ...rows].join('\n');
    const chunks = chunkMarkdown(table, options);
    expect(chunks.length).toBeGreaterThanOrEqual(3);
    for (const chunk of chunks) {
      expect(chunk.content).toContain('| Option | Default | Meaning |\n| --- | --- | --- |\n');
    }
  });
});
