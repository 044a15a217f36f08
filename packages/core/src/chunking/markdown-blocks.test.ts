import { parseMarkdownBlocks, plainHeadingText } from './markdown-blocks';

describe('parseMarkdownBlocks', () => {
  it('splits headings, prose runs and fenced code, remembering the separator before each block', () => {
    const markdown = '# Title\n\nIntro line one\nline two\n\n## Use\n```sh\nnpm i\n\n# not a heading\n```\n- item';
    expect(parseMarkdownBlocks(markdown)).toEqual([
      { kind: 'heading', text: '# Title', gap: '', level: 1, title: 'Title' },
      { kind: 'prose', text: 'Intro line one\nline two', gap: '\n\n' },
      { kind: 'heading', text: '## Use', gap: '\n\n', level: 2, title: 'Use' },
      {
        kind: 'code',
        text: '```sh\nnpm i\n\n# not a heading\n```',
        gap: '\n',
        fence: '```',
        language: 'sh',
        indent: '',
      },
      { kind: 'prose', text: '- item', gap: '\n' },
    ]);
  });

  it('runs an unclosed fence to the end of the document', () => {
    const blocks = parseMarkdownBlocks('text\n\n~~~~\ncode\n~~~\nmore code');
    expect(blocks.at(-1)).toMatchObject({ kind: 'code', text: '~~~~\ncode\n~~~\nmore code', fence: '~~~~' });
  });
});

describe('plainHeadingText', () => {
  it('strips inline Markdown from a heading', () => {
    expect(plainHeadingText('Class: `http.Agent`')).toBe('Class: http.Agent');
    expect(plainHeadingText('[Install](https://x.test/#i) the **CLI** \\- fast')).toBe('Install the CLI - fast');
  });
});
