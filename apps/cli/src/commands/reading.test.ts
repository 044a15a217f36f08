import picocolors from 'picocolors';
import { snippetOf } from './reading';

const plain = picocolors.createColors(false);
const colored = picocolors.createColors(true);

describe('a search result as one line', () => {
  const content = `${'Lead-in words. '.repeat(30)}To configure retries, set \`retries\` in the client options.\n\nMore text.`;

  it('shows the part around the first word of the question the passage holds, marked where it is cut', () => {
    const snippet = snippetOf(content, 'how to configure retries', plain);
    expect(snippet.startsWith('… ')).toBe(true);
    expect(snippet).toContain('To configure retries, set `retries` in the client options. More text.');
    expect(snippet.length).toBeLessThanOrEqual(240 + 2);
  });

  it("highlights the question's words where a word starts with them, when colours are on", () => {
    const snippet = snippetOf('Retries retry the request; see retries.', 'retries', colored);
    const bold = (word: string) => colored.bold(colored.yellow(word));
    expect(snippet).toBe(`${bold('Retries')} retry the request; see ${bold('retries')}.`);
    expect(snippetOf('Unretried retries.', 'retrie', colored)).toBe(`Unretried ${bold('retrie')}s.`);
    expect(snippetOf('Retries retry.', 'retries', plain)).toBe('Retries retry.');
  });

  it('starts at the beginning when the question matches nothing', () => {
    expect(snippetOf('Some text here.', 'zebra', plain)).toBe('Some text here.');
  });
});
