import fs from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { serveFixtures, type FixtureServer } from '@docshelf/testing/e2e/fixture-site';
import { startHarness, type Harness } from '@docshelf/testing/e2e/harness';

/** Real documentation nobody here wrote: Debian's nodejs-doc, git-doc and sphinx-doc, unpacked by scripts/fetch-debian-docs.sh. */
const DOCS = path.resolve(__dirname, '../.cache/debian-docs/usr/share/doc');
const NODE_API = path.join(DOCS, 'nodejs/api');
const GIT_DOC = path.join(DOCS, 'git-doc');
const SPHINX_DOC = path.join(DOCS, 'sphinx-doc/html');
const available =
  fs.existsSync(path.join(NODE_API, 'fs.html')) &&
  fs.existsSync(path.join(GIT_DOC, 'git-commit.html')) &&
  fs.existsSync(path.join(SPHINX_DOC, 'usage/quickstart.html'));
if (!available) {
  console.warn(`debian-docs tests skipped: ${DOCS} is missing; run \`bash scripts/fetch-debian-docs.sh\` first`);
}
const describeIfDocs = available ? describe : describe.skip;

describeIfDocs('crawling real documentation sites (Debian nodejs-doc, git-doc and sphinx-doc on 127.0.0.1)', () => {
  let h: Harness;
  let nodeSite: FixtureServer;
  let gitSite: FixtureServer;
  let sphinxSite: FixtureServer;
  let auth: { Authorization: string };

  beforeAll(async () => {
    h = await startHarness({ PRIVATE_HOST_ALLOWLIST: '127.0.0.1' });
    auth = { Authorization: `Bearer ${await h.createKey('admin')}` };
    nodeSite = await serveFixtures({ root: NODE_API });
    gitSite = await serveFixtures({ root: GIT_DOC });
    sphinxSite = await serveFixtures({ root: SPHINX_DOC });
  });
  afterAll(async () => {
    await Promise.all([nodeSite.close(), gitSite.close(), sphinxSite.close()]);
    await h.close();
  });

  const crawl = (body: object) => request(h.app).post('/api/crawl').set(auth).send(body).expect(200);
  const contentOf = async (libraryId: string) =>
    (await h.adapters.libraries.listChunks(libraryId, { offset: 0, limit: 10_000 })).map((c) => c.content).join('\n');

  it('keeps the Node.js API reference and drops its menus, version picker and table of contents', async () => {
    await crawl({
      libraryId: 'debian/node',
      name: 'Node.js',
      urls: [`${nodeSite.origin}/fs.html`, `${nodeSite.origin}/path.html`],
    });
    const text = await contentOf('debian/node');
    expect(text).toContain('path.join([...paths])');
    expect(text).toMatch(/fsPromises\.unlink\(path\)|fs\.unlink\(path, callback\)/);
    expect(text).toMatch(/```(js|mjs|cjs)\n/);
    for (const chrome of [
      'View on single page',
      'Edit on GitHub',
      'Table of contents',
      'Asynchronous context tracking',
      'View another version',
    ]) {
      expect(text).not.toContain(chrome);
    }
  });

  it('discovers the Node.js docs from their index and crawls them in the browser', async () => {
    const res = await crawl({
      libraryId: 'debian/node-index',
      name: 'Node.js',
      urls: [`${nodeSite.origin}/index.html`],
      maxPages: 12,
      excludePaths: ['/all.html'],
      renderer: 'browser',
    });
    expect(res.body.pagesDiscovered).toBeGreaterThan(50);
    expect(res.body.pagesCrawled).toBe(12);
    expect(nodeSite.requests).not.toContain('/all.html');
    const text = await contentOf('debian/node-index');
    expect(text).not.toContain('Edit on GitHub');
    expect(text).not.toContain('View on single page');
  });

  it('keeps a git manual page and drops its footer', async () => {
    await crawl({
      libraryId: 'debian/git',
      name: 'git',
      urls: [`${gitSite.origin}/git-commit.html`, `${gitSite.origin}/git-status.html`],
    });
    const text = await contentOf('debian/git');
    expect(text).toContain('git commit');
    expect(text).toContain('[--dry-run]');
    expect(text).toMatch(/SYNOPSIS/i);
    expect(text).not.toContain('Last updated');
  });

  it('keeps a Sphinx guide and its examples and drops the related bar, sidebar and footer, rendered or not', async () => {
    const urls = [
      `${sphinxSite.origin}/usage/quickstart.html`,
      `${sphinxSite.origin}/usage/restructuredtext/basics.html`,
    ];
    const texts: string[] = [];
    for (const renderer of ['browser', 'auto']) {
      const libraryId = `debian/sphinx-${renderer}`;
      const res = await crawl({ libraryId, name: 'Sphinx', urls, renderer });
      expect(res.body.pagesCrawled).toBe(2);
      texts.push(await contentOf(libraryId));
    }
    const [browser, auto] = texts as [string, string];
    expect(browser).toContain('Sphinx is a _documentation generator_');
    expect(browser).toContain('```console\n$ sphinx-quickstart\n```');
    expect(browser).toContain('## Paragraphs');
    for (const chrome of ['Quick search', 'On this page', 'Created using', 'Copyright 2007', 'Documentation »']) {
      expect(browser).not.toContain(chrome);
    }
    // The pages' scripts (jQuery, doctools) run in the browser; the text a reader gets is the same without them.
    expect(auto).toBe(browser);
    expect(sphinxSite.requests).toContain('/_static/doctools.js');
  });
});
