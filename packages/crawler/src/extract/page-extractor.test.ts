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

describe('a page too large for an extraction thread', () => {
  it('is extracted on the event loop, with what extraction there gives, once its thread runs out of heap', async () => {
    const tooLarge: string[] = [];
    // 24 MB is too little for a 1.2 MB page of 20,000 table rows (the default limit is 1 GB).
    const extractor = createThreadedExtractor(1, {
      heapLimits: { maxOldGenerationSizeMb: 24, maxYoungGenerationSizeMb: 4 },
      onOutOfMemory: (url) => tooLarge.push(url),
    });
    try {
      const rows = Array.from(
        { length: 20_000 },
        (_, i) => `<tr><td>cell ${i}</td><td><a href="/p${i}">link ${i}</a></td></tr>`,
      );
      const task = {
        html: `<html><head><title>Big</title></head><body><main><h1>Big</h1><table>${rows.join('')}</table></main></body></html>`,
        url: 'https://docs.example.com/big',
      };
      const small = {
        html: readFileSync(join(FIXTURES, 'docs-page.html'), 'utf8'),
        url: 'https://docs.example.com/docs',
      };
      await expect(extractor.extract(task)).resolves.toEqual({ page: extractPage(task.html, task.url) });
      expect(tooLarge).toEqual([task.url]);
      // The thread that ran out is replaced: the next page is extracted in a thread again.
      await expect(extractor.extract(small)).resolves.toEqual({ page: extractPage(small.html, small.url) });
      expect(tooLarge).toHaveLength(1);
    } finally {
      await extractor.close();
    }
  });
});
