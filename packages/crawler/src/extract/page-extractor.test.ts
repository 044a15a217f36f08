import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { extractPage } from './extract-page';
import { createThreadedExtractor, type PageExtractor } from './page-extractor';

const FIXTURES = join(__dirname, 'fixtures');
const DOCS = join(__dirname, '../../../../.cache/debian-docs/usr/share/doc');
// Real pages when scripts/fetch-debian-docs.sh has run: Node's largest, a git manual page and a Sphinx guide.
const PAGES = [
  join(FIXTURES, 'docs-page.html'),
  join(FIXTURES, 'docusaurus-page.html'),
  join(FIXTURES, 'mkdocs-page.html'),
  join(DOCS, 'nodejs/api/fs.html'),
  join(DOCS, 'git-doc/git-commit.html'),
  join(DOCS, 'sphinx-doc/html/usage/quickstart.html'),
].filter((file) => existsSync(file));

describe('extraction in worker threads', () => {
  let extractor: PageExtractor;
  beforeAll(() => {
    extractor = createThreadedExtractor(2);
  });
  afterAll(async () => extractor.close());

  it('gives what extraction on the event loop gives, for pages extracted at the same time', async () => {
    const tasks = PAGES.map((file) => ({
      html: readFileSync(file, 'utf8'),
      url: `https://docs.example.com/${file.split('/').pop()}`,
    }));
    const outcomes = await Promise.all(tasks.map((task) => extractor.extract(task)));
    outcomes.forEach((outcome, i) => expect(outcome).toEqual({ page: extractPage(tasks[i]!.html, tasks[i]!.url) }));
    expect(outcomes.every((o) => 'page' in o && o.page.markdown.length > 200)).toBe(true);
  });

  it('leaves a script shell to the browser when asked to check, and extracts a server-rendered page', async () => {
    const shell = readFileSync(join(FIXTURES, 'spa-shell.html'), 'utf8');
    const docs = readFileSync(join(FIXTURES, 'docs-page.html'), 'utf8');
    await expect(
      extractor.extract({ html: shell, url: 'https://docs.example.com/app', unlessShell: true }),
    ).resolves.toEqual({ needsBrowser: true });
    await expect(
      extractor.extract({ html: docs, url: 'https://docs.example.com/docs', unlessShell: true }),
    ).resolves.toHaveProperty('page.title');
  });
});
