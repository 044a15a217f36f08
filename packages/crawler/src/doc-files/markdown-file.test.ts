import { chunkMarkdown } from '@docshelf/core';
import { convertDocFile } from './convert-doc-file';

const chunksOf = (path: string, text: string, format: 'markdown' | 'mdx') => {
  const file = convertDocFile(path, text, format);
  return { file, chunks: chunkMarkdown(file.markdown, { pageUrl: path, pageTitle: file.title, targetWords: 40 }) };
};

describe('Markdown files', () => {
  it('takes the front matter title when the file has no top-level heading, and drops the front matter', () => {
    const { file } = chunksOf(
      'docs/install.md',
      ['---', 'title: Installing the CLI', 'sidebar_position: 2', '---', '', 'Run the installer.', ''].join('\n'),
      'markdown',
    );
    expect(file).toEqual({ title: 'Installing the CLI', markdown: 'Run the installer.' });
  });

  it('prefers the first top-level heading to the front matter title', () => {
    const { file } = chunksOf('docs/a.md', '---\ntitle: Front\n---\n\n# Heading One\n\nText.\n', 'markdown');
    expect(file.title).toBe('Heading One');
  });

  it('names a file with no heading and no front matter by its path, a README by its folder', () => {
    expect(convertDocFile('docs/getting-started.md', 'Just text.', 'markdown').title).toBe('getting-started');
    expect(convertDocFile('packages/cli/README.md', 'Just text.', 'markdown').title).toBe('cli');
  });

  it('rewrites setext headings as ATX headings, so chunks carry their heading path', () => {
    const text = [
      'Configuration',
      '=============',
      '',
      'Intro words about configuration.',
      '',
      'Environment',
      '-----------',
      '',
      `${'Set the variables before starting the service. '.repeat(6)}`,
      '',
      '### Ports',
      '',
      `${'The port the server listens on is read from PORT. '.repeat(6)}`,
    ].join('\n');
    const { file, chunks } = chunksOf('docs/configuration.md', text, 'markdown');
    expect(file.title).toBe('Configuration');
    expect(file.markdown).toMatch(/^# Configuration\n\nIntro words about configuration\.\n\n## Environment\n/);
    expect(chunks.map((chunk) => chunk.title)).toEqual(
      expect.arrayContaining(['Configuration › Environment', 'Configuration › Environment › Ports']),
    );
  });

  it('rewrites indented code as fenced code and keeps fenced code with its language', () => {
    const text = [
      '# Usage',
      '',
      'Start it:',
      '',
      '    docshelf serve --port 3000',
      '    docshelf status',
      '',
      '```ts',
      "import { search } from 'docshelf';",
      '```',
    ].join('\n');
    const { file } = chunksOf('README.md', text, 'markdown');
    expect(file.markdown).toContain('```\ndocshelf serve --port 3000\ndocshelf status\n```');
    expect(file.markdown).toContain("```ts\nimport { search } from 'docshelf';\n```");
  });

  it('keeps GFM tables', () => {
    const { file } = chunksOf('docs/t.md', '# T\n\n| key | value |\n| --- | --- |\n| a | 1 |\n', 'markdown');
    expect(file.markdown).toContain('| key | value |');
  });
});

describe('MDX files', () => {
  const page = [
    "import Tabs from '@theme/Tabs';",
    "import TabItem from '@theme/TabItem';",
    '',
    "export const meta = { sidebar: 'guides' };",
    '',
    '# Deploying',
    '',
    '{/* a comment the reader never sees */}',
    '',
    '<Tabs>',
    '  <TabItem value="docker" label="Docker">',
    '',
    'Run the image with <Kbd>docker run</Kbd> and a volume.',
    '',
    '```bash',
    'docker run -v data:/data docshelf',
    '```',
    '',
    '  </TabItem>',
    '</Tabs>',
    '',
    "The answer is {'forty-two'}, computed by {compute(1, 2)}.",
  ].join('\n');

  it('drops imports, exports and comments, and reduces components and string expressions to their text', () => {
    const { file } = chunksOf('docs/deploying.mdx', page, 'mdx');
    expect(file.title).toBe('Deploying');
    expect(file.markdown).not.toMatch(/import|export|Tabs|TabItem|Kbd|comment|compute\(/);
    expect(file.markdown).toContain('Run the image with docker run and a volume.');
    expect(file.markdown).toContain('```bash\ndocker run -v data:/data docshelf\n```');
    expect(file.markdown).toContain('The answer is forty-two, computed by .');
  });

  it('reads a file that is not valid MDX as Markdown rather than failing', () => {
    const { file } = chunksOf('docs/broken.mdx', '# Limits\n\nA value < 3 and a brace { stay text.\n', 'mdx');
    expect(file).toEqual({ title: 'Limits', markdown: '# Limits\n\nA value < 3 and a brace { stay text.' });
  });

  it('reads the same text as Markdown without the MDX syntax', () => {
    const { chunks } = chunksOf('docs/deploying.mdx', page, 'mdx');
    expect(chunks.length).toBeGreaterThan(0);
    expect(chunks[0]!.title).toBe('Deploying');
  });
});

describe('TOML front matter', () => {
  it('gives its title and is dropped', () => {
    const file = convertDocFile('docs/hugo.md', '+++\ntitle = "Hugo page"\n+++\n\nBody text.\n', 'markdown');
    expect(file).toEqual({ title: 'Hugo page', markdown: 'Body text.' });
  });
});
