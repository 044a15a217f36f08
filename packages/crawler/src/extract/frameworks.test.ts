import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { extractPage } from './extract-page';
import { DOCS_FRAMEWORKS } from './frameworks';

// A page of a real build of each framework, with what a reader calls its content and its chrome.
const FIXTURES = join(__dirname, 'fixtures/frameworks');
const fixtures = z
  .array(
    z.object({
      framework: z.string(),
      url: z.string().url(),
      contentRoot: z.string(),
      contentSnippets: z.array(z.string()).min(1),
      chromeSnippets: z.array(z.string()).min(1),
    }),
  )
  .parse(JSON.parse(readFileSync(join(FIXTURES, 'frameworks.json'), 'utf8')));

/** Markdown as text: link targets, emphasis marks and escapes left out, spaces collapsed. */
const textOf = (markdown: string) =>
  markdown
    .replace(/!?\[([^\]]*)\]\((?:[^()]|\([^()]*\))*\)/g, '$1')
    .replace(/\\([\\`*_{}[\]()#+\-.!|<>~])/g, '$1')
    .replace(/[*`]/g, '')
    .replace(/\s+/g, ' ');

describe.each(fixtures)(
  'extractPage on a real $framework build',
  ({ framework, url, contentSnippets, chromeSnippets }) => {
    const file = `${framework}.html`;
    const page = extractPage(readFileSync(join(FIXTURES, file), 'utf8'), url);
    const text = textOf(page.markdown);

    it.each(contentSnippets)('keeps "%s"', (snippet) => {
      expect(text).toContain(snippet.replace(/\s+/g, ' '));
    });

    it.each(chromeSnippets)('drops "%s"', (snippet) => {
      expect(text).not.toContain(snippet.replace(/\s+/g, ' '));
    });

    it('is described in frameworks.ts', () => {
      expect(DOCS_FRAMEWORKS.some((known) => known.fixture === file)).toBe(true);
    });
  },
);

it('keeps the lines of an Expressive Code block (Starlight) apart', () => {
  const page = extractPage(readFileSync(join(FIXTURES, 'starlight.html'), 'utf8'), 'https://starlight.astro.build/');
  expect(page.markdown).toContain(
    '```md\n---\ntitle: My page title\n---\n\nPage content follows the second `---`.\n```',
  );
});
