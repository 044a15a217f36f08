import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { serveFixtures, type FixtureServer } from '@docshelf/testing/e2e/fixture-site';
import { startHarness, type Harness } from '@docshelf/testing/e2e/harness';
import { openEventStream } from '@docshelf/testing/e2e/sse';
import { buildTar, buildZip, replaceBytes, type ArchiveTree } from '@docshelf/testing/targets/build-archive';

const FOOTER = 'Widget docs are built with Pagesmith 2.1, theme Paper.';

/** A built docs site: five pages linked from its index, each with the same header, menu and footer, and one orphan. */
function builtSite(): ArchiveTree {
  const page = (title: string, body: string) =>
    [
      '<!doctype html><html><head><meta charset="utf-8"><title>',
      `${title} | Widget</title></head><body>`,
      '<header><a href="index.html">Widget docs</a></header>',
      '<nav><ul><li><a href="index.html">Home</a></li><li><a href="guide/install.html">Install</a></li>',
      '<li><a href="guide/configure.html">Configure</a></li><li><a href="api/render.html">render()</a></li>',
      '<li><a href="api/queue.html">queue()</a></li></ul></nav>',
      `<div class="content"><h1>${title}</h1>${body}</div>`,
      `<div class="site-footer"><p>${FOOTER}</p></div>`,
      '</body></html>',
    ].join('\n');
  const nested = (html: string) => html.replaceAll('href="', 'href="../');
  return {
    'site/index.html': page('Widget', '<p>Widgets draw dashboards from your metrics.</p>'),
    'site/guide/install.html': nested(
      page('Install', '<p>Install the widget with <code>npm install widget</code>.</p>'),
    ),
    'site/guide/configure.html': nested(
      page('Configure', '<p>Set <code>WIDGET_PORT</code> before you start the widget server.</p>'),
    ),
    'site/api/render.html': nested(
      page('render()', '<p>Renders one widget.</p><pre><code>widget.render({ retries: 3 })</code></pre>'),
    ),
    'site/api/queue.html': nested(page('queue()', '<p>Queues a render for later.</p>')),
    'site/old/draft.html': page('Draft', '<p>An unfinished page no link leads to.</p>'),
    'site/_static/theme.css': 'body { font-family: serif; }',
  };
}

const MARKDOWN: ArchiveTree = {
  'docs/guide.md': '---\ntitle: Getting started\n---\n\nInstall the gadget.\n\nUsage\n-----\n\nRun `gadget serve`.\n',
  'docs/reference.rst': 'Reference\n=========\n\nThe gadget takes a port::\n\n    gadget serve --port 80\n',
  'README.md': '# Gadget\n\nA gadget for dashboards.\n',
  'logo.png': randomBytes(64),
};

describe('POST /api/ingest-archive (admin key or session)', () => {
  let h: Harness;
  let auth: { Authorization: string };

  beforeAll(async () => {
    h = await startHarness({
      ARCHIVE_UPLOAD_MAX_BYTES: String(256 * 1024),
      ARCHIVE_MAX_BYTES: String(1024 * 1024),
      ARCHIVE_MAX_FILE_BYTES: String(64 * 1024),
    });
    auth = { Authorization: `Bearer ${await h.createKey('admin')}` };
  });
  afterAll(() => h?.close());

  const upload = (fields: Record<string, string>, archive?: { bytes: Buffer; name: string }) => {
    const req = request(h.app).post('/api/ingest-archive').set(auth);
    for (const [name, value] of Object.entries(fields)) req.field(name, value);
    return archive ? req.attach('file', archive.bytes, archive.name) : req;
  };
  const chunksOf = (libraryId: string) => h.adapters.libraries.listChunks(libraryId, { offset: 0, limit: 1_000 });
  /** Uploads the service still keeps, in the backup storage's folder. */
  const keptUploads = () =>
    fs
      .readdirSync(path.join(h.dataDir, 'backups'), { withFileTypes: true })
      .filter((e) => e.name.startsWith('~upload'));

  it("reads a built site's pages from its index as a crawl does, repeated chrome dropped, under the base URL", async () => {
    const res = await upload(
      { libraryId: 'archive/widget', name: 'Widget', baseUrl: 'https://widget.test/docs/' },
      { bytes: await buildTar(builtSite()), name: 'site.tar.gz' },
    ).expect(200);
    expect(res.body).toMatchObject({ success: true, libraryId: 'archive/widget', filesIngested: 5, vectorized: true });
    expect(res.body.errors).toEqual([
      expect.stringMatching(
        /^1 page reached by no link from the root page was left out: https:\/\/widget\.test\/docs\/old\/draft\.html$/,
      ),
    ]);
    const chunks = await chunksOf('archive/widget');
    expect([...new Set(chunks.map((chunk) => chunk.url))].sort()).toEqual([
      'https://widget.test/docs/api/queue.html',
      'https://widget.test/docs/api/render.html',
      'https://widget.test/docs/guide/configure.html',
      'https://widget.test/docs/guide/install.html',
      'https://widget.test/docs/index.html',
    ]);
    const text = chunks.map((chunk) => chunk.content).join('\n');
    expect(text).toContain('Set `WIDGET_PORT` before you start the widget server.');
    expect(text).toContain('widget.render({ retries: 3 })');
    expect(text).not.toContain(FOOTER);
    expect(text).not.toContain('unfinished page');
    const library = (await request(h.app).get('/api/libraries/archive/widget').expect(200)).body.library;
    expect(library).toMatchObject({ sourceType: 'archive', sourceUrl: 'https://widget.test/docs/index.html' });
    expect(keptUploads()).toEqual([]);
  });

  it('reads a zip of Markdown and reStructuredText by section, chunk URLs their paths, and replaces the library', async () => {
    const res = await upload(
      { libraryId: 'archive/widget', name: 'Gadget', embedAll: 'true' },
      { bytes: await buildZip(MARKDOWN), name: 'docs.zip' },
    ).expect(200);
    expect(res.body).toEqual({
      success: true,
      libraryId: 'archive/widget',
      filesIngested: 3,
      chunksIngested: 3,
      vectorized: true,
    });
    const chunks = await chunksOf('archive/widget');
    expect(chunks.map((chunk) => [chunk.url, chunk.title]).sort()).toEqual([
      ['README.md', 'Gadget'],
      ['docs/guide.md', 'Getting started'],
      ['docs/reference.rst', 'Reference'],
    ]);
    expect(chunks.find((chunk) => chunk.url === 'docs/guide.md')?.content).toContain('## Usage');
    expect(chunks.find((chunk) => chunk.url === 'docs/reference.rst')?.content).toContain(
      '```\ngadget serve --port 80\n```',
    );
  });

  it('refuses what is no archive, a path out of it, a bomb and an upload over the limit with a clear error, writing nothing', async () => {
    const fields = { libraryId: 'archive/bad', name: 'Bad' };
    const escaping = replaceBytes(await buildTar({ 'aa/x.md': '# X\n\nx\n' }, { gzip: false }), 'aa/x.md', '../x.md');
    const manyPages = Array.from({ length: 40 }, (_, i) => [`docs/page-${i}.md`, { zeros: 60 * 1024 }] as const);
    const cases: [Buffer, string, number, string][] = [
      [Buffer.from('not an archive at all'), 'notes.zip', 400, 'ARCHIVE_INVALID'],
      [escaping, 'escape.tar', 400, 'ARCHIVE_INVALID'],
      // A few kilobytes that expand to 8 MiB, or to 40 files under the size of one file but past the archive's limit.
      [await buildTar({ 'docs/bomb.md': { zeros: 8 * 1024 * 1024 } }), 'bomb.tar.gz', 400, 'ARCHIVE_TOO_LARGE'],
      [await buildZip(Object.fromEntries(manyPages)), 'bomb.zip', 400, 'ARCHIVE_TOO_LARGE'],
      [randomBytes(300 * 1024), 'big.tar.gz', 413, 'PAYLOAD_TOO_LARGE'],
      [await buildZip({ 'logo.png': randomBytes(16), 'src/a.ts': 'x' }), 'empty.zip', 400, 'NO_CONTENT'],
    ];
    for (const [bytes, name, status, code] of cases) {
      const res = await upload(fields, { bytes, name });
      expect([name, res.status, res.body.code]).toEqual([name, status, code]);
    }
    await request(h.app).get('/api/libraries/archive/bad').set(auth).expect(404);
    expect(keptUploads()).toEqual([]);
  });

  it('validates the form, wants multipart and the file, and needs an admin key or a session', async () => {
    const zip = { bytes: await buildZip(MARKDOWN), name: 'docs.zip' };
    const fields = { libraryId: 'archive/form', name: 'Form' };
    const bads: Record<string, string>[] = [
      { libraryId: '../x' },
      { baseUrl: 'file:///etc/' },
      { name: '' },
      { embedAll: 'yes' },
      { unknown: 'x' },
    ];
    for (const bad of bads) {
      const res = await upload({ ...fields, ...bad }, zip);
      expect([res.status, res.body.code]).toEqual([400, 'VALIDATION_FAILED']);
    }
    const noFile = await upload(fields);
    expect([noFile.status, noFile.body.code, noFile.body.details[0].path]).toEqual([400, 'VALIDATION_FAILED', 'file']);
    const json = await request(h.app).post('/api/ingest-archive').set(auth).send(fields);
    expect([json.status, json.body.code]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE']);
    await request(h.app).post('/api/ingest-archive').field('libraryId', 'x').expect(401);
    const read = { Authorization: `Bearer ${await h.createKey('read')}` };
    await request(h.app).post('/api/ingest-archive').set(read).field('libraryId', 'x').expect(403);
    await request(h.app).get('/api/libraries/archive/form').set(auth).expect(404);
    expect(keptUploads()).toEqual([]);

    const cookie = await h.login();
    const accepted = await request(h.app)
      .post('/api/ingest-archive')
      .set('Cookie', cookie)
      .set('Prefer', 'respond-async')
      .field(fields)
      .attach('file', zip.bytes, zip.name)
      .expect(202);
    const stream = await openEventStream(`${await h.baseUrl()}/api/jobs/${accepted.body.jobId}/events`, { cookie });
    const events = await stream.ended;
    // The stream ends with the job's end (progress events come first only if the stream opened before the job moved
    // on: three Markdown files can be read before it does, so they are not asked for here).
    expect(events.at(-1)).toMatchObject({ event: 'completed', data: { libraryId: 'archive/form', filesIngested: 3 } });
    expect(events.filter((e) => e.event !== 'progress')).toHaveLength(1);
    const job = await request(h.app).get(`/api/jobs/${accepted.body.jobId}`).set('Cookie', cookie).expect(200);
    expect(job.body).toMatchObject({ type: 'ingest-archive', libraryId: 'archive/form', state: 'completed' });
    expect(job.body.progress).toMatchObject({ phase: 'done', chunksIngested: expect.any(Number) });
    expect(keptUploads()).toEqual([]);
  });
});

/** Real documentation nobody here wrote: Debian's nodejs-doc, unpacked by scripts/fetch-debian-docs.sh. */
const NODE_API = path.resolve(__dirname, '../.cache/debian-docs/usr/share/doc/nodejs/api');
const haveNodeDocs = fs.existsSync(path.join(NODE_API, 'index.html'));
if (!haveNodeDocs) {
  console.warn(
    `nodejs-doc archive test skipped: ${NODE_API} is missing; run \`bash scripts/fetch-debian-docs.sh\` first`,
  );
}

(haveNodeDocs ? describe : describe.skip)("an uploaded build of Debian's nodejs-doc against a crawl of it", () => {
  let h: Harness;
  let site: FixtureServer;
  let auth: { Authorization: string };

  beforeAll(async () => {
    h = await startHarness({ PRIVATE_HOST_ALLOWLIST: '127.0.0.1' });
    auth = { Authorization: `Bearer ${await h.createKey('admin')}` };
    site = await serveFixtures({ root: NODE_API });
  });
  afterAll(async () => {
    await site?.close();
    await h?.close();
  });

  const chunksOf = async (libraryId: string) =>
    (await h.adapters.libraries.listChunks(libraryId, { offset: 0, limit: 100_000 })).map((c) => [
      c.url,
      c.title,
      c.content,
    ]);

  it('gives the chunks crawling the same site gives, text for text', async () => {
    const crawl = await request(h.app)
      .post('/api/crawl')
      .set(auth)
      .send({
        libraryId: 'node/crawled',
        name: 'Node.js',
        urls: [`${site.origin}/index.html`],
        maxPages: 1_000,
        maxDepth: 10,
        renderer: 'http',
      })
      .expect(200);
    // The site's folder as one would pack a build: every file, its HTML, its Markdown sources and its assets.
    const tree: ArchiveTree = {};
    for (const entry of fs.readdirSync(NODE_API, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile()) continue;
      const file = path.join(entry.parentPath, entry.name);
      tree[path.join('api', path.relative(NODE_API, file))] = fs.readFileSync(file);
    }
    const uploaded = await request(h.app)
      .post('/api/ingest-archive')
      .set(auth)
      .field({ libraryId: 'node/uploaded', name: 'Node.js', baseUrl: `${site.origin}/` })
      .attach('file', await buildTar(tree), 'nodejs-doc.tar.gz')
      .expect(200);
    expect(uploaded.body.filesIngested).toBe(crawl.body.pagesCrawled);
    expect(uploaded.body.chunksIngested).toBe(crawl.body.chunksIngested);
    expect(crawl.body.pagesCrawled).toBeGreaterThan(60);
    const crawled = await chunksOf('node/crawled');
    expect(await chunksOf('node/uploaded')).toEqual(crawled);
    // Two reads of a 65-page site, each extracting every page: about 35 s on a 2-core machine under load.
  }, 240_000);
});
