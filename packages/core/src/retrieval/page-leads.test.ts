import { chunkHeadings, pageLeads } from './page-leads';

describe('pageLeads', () => {
  it('lends the first prose paragraph of a page to its other chunks', () => {
    const first = {
      url: 'https://d.test/git-revert',
      content: '# git-revert(1)\n\n## NAME\n\ngit-revert - Revert some existing commits\n\n## SYNOPSIS',
    };
    const second = { url: 'https://d.test/git-revert', content: '## OPTIONS\n\n--no-edit does not start the editor.' };
    const fs = {
      url: 'https://d.test/fs',
      content:
        '## File system\n\n> Stability: 2\n\n```js\nimport fs\n```\n\nThe `node:fs` module enables interacting with the file system.',
    };
    const leadOf = pageLeads([first, second, fs, { url: 'https://d.test/fs', content: 'More about files.' }]);
    expect(leadOf(second)).toBe('git-revert - Revert some existing commits');
    expect(leadOf(first)).toBeNull();
    expect(leadOf({ url: 'https://d.test/fs', content: 'More about files.' })).toBe(
      'The `node:fs` module enables interacting with the file system.',
    );
    expect(leadOf({ content: 'no url' })).toBeNull();
  });

  it('cuts a long lead to 30 words', () => {
    const long = Array.from({ length: 50 }, (_, i) => `w${i}`).join(' ');
    const leadOf = pageLeads([{ url: 'u', content: long }]);
    expect(leadOf({ url: 'u', content: 'other' })!.split(' ')).toHaveLength(30);
  });
});

describe('chunkHeadings', () => {
  it('lists the headings a chunk holds, without their marks, leaving out comments in code', () => {
    expect(
      chunkHeadings(
        '## path.dirname(path)\n\ntext\n\n### path.extname(path) ##\n\n#not a heading\n```sh\n# install it\n```\n## After',
      ),
    ).toEqual(['path.dirname(path)', 'path.extname(path)', 'After']);
  });
});
