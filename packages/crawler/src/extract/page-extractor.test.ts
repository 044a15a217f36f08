import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { extractPage } from './extract-page';
import {
  createPageExtractor,
  createThreadedExtractor,
  ExtractionTimeoutError,
  INLINE_MAX_CHARS,
  type PageExtractor,
} from './page-extractor';

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
  // From the sources the threads load their code through tsx, which needs much of a small heap, more still while its
  // cache is cold (a fresh machine): one extraction with the default heap fills that cache first.
  beforeAll(async () => {
    const warm = createThreadedExtractor(1);
    try {
      await warm.extract({
        html: readFileSync(join(FIXTURES, 'docs-page.html'), 'utf8'),
        url: 'https://docs.example.com/docs',
      });
    } finally {
      await warm.close();
    }
  });

  it('is extracted on the event loop, with what extraction there gives, once its thread runs out of heap', async () => {
    const tooLarge: string[] = [];
    // 64 MB is too little for a 2 MB page of 30,000 table rows (the default limit is 1 GB; 8,000 rows already do not
    // fit, so 30,000 leave a wide margin while the page's two extractions on the event loop stay short), and enough for
    // the thread's code and a small page. Near its limit the thread's heap is collected over and over, which on a
    // loaded machine has taken longer than the default 30 s extraction limit: this test is about running out of heap,
    // not time.
    const extractor = createThreadedExtractor(1, {
      heapLimits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 8 },
      onOutOfMemory: (url) => tooLarge.push(url),
      timeoutMs: 240_000,
    });
    try {
      const rows = Array.from(
        { length: 30_000 },
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
  }, 300_000);
});

describe('a page whose extraction outruns its time', () => {
  // 600,000 empty links (10 MB): tens of seconds of extraction, far past the limit set here.
  const hostile = {
    html: `<html><head><title>Links</title></head><body><main><h1>Links</h1>${'<a href="/x"></a>'.repeat(600_000)}</main></body></html>`,
    url: 'https://docs.example.com/links',
  };
  const small = () => ({
    html: readFileSync(join(FIXTURES, 'docs-page.html'), 'utf8'),
    url: 'https://docs.example.com/docs',
  });

  it('fails alone in its thread, which is replaced for the next page', async () => {
    const extractor = createThreadedExtractor(1, { timeoutMs: 5_000 });
    try {
      await expect(extractor.extract(hostile)).rejects.toThrow(ExtractionTimeoutError);
      const next = small();
      await expect(extractor.extract(next)).resolves.toEqual({ page: extractPage(next.html, next.url) });
    } finally {
      await extractor.close();
    }
  });

  it('is extracted in a thread even when no threads are configured, while a small page stays on the event loop', async () => {
    // Only the hostile page goes to a thread, and its extraction takes tens of seconds: a second's limit cuts it.
    const extractor = createPageExtractor(0, { timeoutMs: 1_000 });
    try {
      const next = small();
      expect(next.html.length).toBeLessThanOrEqual(INLINE_MAX_CHARS);
      await expect(extractor.extract(next)).resolves.toEqual({ page: extractPage(next.html, next.url) });
      await expect(extractor.extract(hostile)).rejects.toThrow(/took longer than 1000 ms/);
    } finally {
      await extractor.close();
    }
  });
});
