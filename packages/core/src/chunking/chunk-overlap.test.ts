import { countWords } from './count-words';
import { selectOverlap } from './chunk-overlap';

const sentence = (i: number): string => `Sentence ${i} tells the worker what to do next.`;

describe('selectOverlap', () => {
  it('takes whole trailing sentences worth about the requested words', () => {
    const text = Array.from({ length: 30 }, (_, i) => sentence(i)).join(' ');
    const overlap = selectOverlap(text, 50)!;
    expect(text.endsWith(overlap.text)).toBe(true);
    expect(overlap.text).toMatch(/^Sentence \d+ /);
    expect(overlap.words).toBe(countWords(overlap.text));
    expect(Math.abs(overlap.words - 50)).toBeLessThanOrEqual(5);
  });

  it('falls back to a word boundary when sentences are too long', () => {
    const text = Array.from({ length: 200 }, (_, i) => `word${i}`).join(' ');
    const overlap = selectOverlap(text, 50)!;
    expect(overlap.text).toBe(Array.from({ length: 50 }, (_, i) => `word${150 + i}`).join(' '));
  });

  it('re-opens the fence when the overlap starts inside a code block', () => {
    const code = Array.from({ length: 40 }, (_, i) => `call(step, ${i})`).join('\n');
    const text = `Intro words here.\n\n\`\`\`js\n${code}\n\`\`\``;
    const overlap = selectOverlap(text, 20)!;
    expect(overlap.reopenedFence).toBe('```js');
    expect(overlap.text).toMatch(/^```js\ncall\(step, \d+\)\n/);
    expect(overlap.text.endsWith('call(step, 39)\n```')).toBe(true);
  });

  it('returns null when there is nothing to repeat', () => {
    expect(selectOverlap('', 50)).toBeNull();
    expect(selectOverlap('One two three.', 0)).toBeNull();
  });
});
