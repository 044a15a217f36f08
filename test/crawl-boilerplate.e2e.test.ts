import fs from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { generateDocsSite } from './fixtures/generated-docs-site';
import { serveFixtures, type FixtureServer } from '@docshelf/testing/e2e/fixture-site';
import { startHarness, type Harness } from '@docshelf/testing/e2e/harness';
import { measureRepeatedChrome, type RepeatedChrome } from '@docshelf/testing/e2e/repeated-chrome';

const FIXTURES = path.resolve(__dirname, 'fixtures');
const DOCS = path.resolve(__dirname, '../.cache/debian-docs/usr/share/doc');
const debianDocs =
  fs.existsSync(path.join(DOCS, 'nodejs/api/fs.html')) && fs.existsSync(path.join(DOCS, 'git-doc/git-commit.html'));
if (!debianDocs)
  console.warn(`Debian doc sites skipped: ${DOCS} is missing; run \`bash scripts/fetch-debian-docs.sh\` first`);

/**
 * Boilerplate by repetition: lines standing on most pages of one crawl are chrome even without semantic markup.
 * The fixture sites are crawled twice in one run, with the rule off (CRAWL_REPEATED_LINE_SHARE=0) and with the
 * default, the Debian sites with the default only; the share of chunks holding repeated chrome is measured on what
 * each stored.
 */
describe('crawls drop text repeated on most pages (real worker, sites on 127.0.0.1)', () => {
  let h: Harness;
  let off: Harness;
  let auth: { Authorization: string };
  let offAuth: { Authorization: string };
  const servers: FixtureServer[] = [];
  const figures: string[] = [];

  beforeAll(async () => {
    // No spacing between a host's pages (10 a second by default): what is measured is the text each crawl kept.
    const env = { PRIVATE_HOST_ALLOWLIST: '127.0.0.1', CRAWL_HOST_PAGES_PER_SECOND: '0' };
    [h, off] = await Promise.all([startHarness(env), startHarness({ ...env, CRAWL_REPEATED_LINE_SHARE: '0' })]);
    auth = { Authorization: `Bearer ${await h.createKey('admin')}` };
    offAuth = { Authorization: `Bearer ${await off.createKey('admin')}` };
  });
  afterAll(async () => {
    console.log(`share of chunks holding repeated chrome\n${figures.join('\n')}`);
    await Promise.all(servers.map((s) => s.close()));
    await Promise.all([h?.close(), off?.close()]);
  });

  const serve = async (options: Parameters<typeof serveFixtures>[0]) => {
    const server = await serveFixtures(options);
    servers.push(server);
    return server;
  };

  const pct = (m: RepeatedChrome) => `${(m.share * 100).toFixed(1)}% (${m.withChrome}/${m.chunks})`;
  const chunksOf = (harness: Harness, libraryId: string) =>
    harness.adapters.libraries.listChunks(libraryId, { offset: 0, limit: 100_000 });
  const crawl = (harness: Harness, headers: Record<string, string>, site: string, body: Record<string, unknown>) =>
    request(harness.app)
      .post('/api/crawl')
      .set(headers)
      .send({ libraryId: `sites/${site}`, name: site, renderer: 'http', ...body })
      .expect(200);

  /** Crawls `body` with the default rule; returns the chunks kept and their measurement. */
  async function crawlWithRule(site: string, body: Record<string, unknown>) {
    const res = await crawl(h, auth, site, body);
    const chunks = await chunksOf(h, `sites/${site}`);
    const measured = measureRepeatedChrome(chunks);
    figures.push(
      `${site.padEnd(16)} pages ${String(res.body.pagesCrawled).padStart(3)}  with the rule ${pct(measured)}`,
    );
    return { chunks, measured };
  }

  /** Crawls `body` with the rule on and off; returns the chunks kept with it on and both measurements. */
  async function crawlBoth(site: string, body: Record<string, unknown>) {
    const [on, without] = await Promise.all([crawl(h, auth, site, body), crawl(off, offAuth, site, body)]);
    const [chunks, offChunks] = await Promise.all([chunksOf(h, `sites/${site}`), chunksOf(off, `sites/${site}`)]);
    const measured = measureRepeatedChrome(chunks);
    const before = measureRepeatedChrome(offChunks);
    figures.push(
      `${site.padEnd(16)} pages ${String(on.body.pagesCrawled).padStart(3)}  rule off ${pct(before)} → rule on ${pct(measured)}`,
    );
    expect(without.body.pagesCrawled).toBe(on.body.pagesCrawled);
    return { chunks, measured, before };
  }

  it('drops the tagline, "last modified" footer and copyright line of a site without <main> or <nav>', async () => {
    const site = await serve({ root: path.join(FIXTURES, 'plain-site') });
    const { chunks, measured, before } = await crawlBoth('plain-site', { urls: [`${site.origin}/index.html`] });
    expect(before.share).toBeGreaterThan(0.5);
    expect(measured.share).toBeLessThanOrEqual(0.02);
    const text = chunks.map((c) => c.content).join('\n');
    for (const chrome of ['the job queue that fits in a shell script', 'Page last modified', 'Copyright 2019-2024'])
      expect(text).not.toContain(chrome);
    expect(text).toContain('Tinyqueue is a small job queue for shell scripts');
    expect(text).toContain('Exit status zero marks the job done');
    expect(new Set(chunks.map((c) => c.url)).size).toBe(8);
  });

  it('keeps a code example repeated inside <main> on every page', async () => {
    const site = await serve({ root: path.join(FIXTURES, 'main-code-site') });
    const { chunks } = await crawlBoth('main-code-site', { urls: [`${site.origin}/index.html`] });
    const pages = new Set(chunks.map((c) => c.url));
    expect(pages.size).toBe(6);
    for (const url of pages) {
      const text = chunks
        .filter((c) => c.url === url)
        .map((c) => c.content)
        .join('\n');
      expect(text).toContain('const client = new Client({ url: process.env.RELAY_URL });');
    }
  });

  it('holds at most 2% of chunks with repeated chrome on the generated 150-page site', async () => {
    const docs = generateDocsSite();
    const site = await serve({ routes: docs.route });
    const { measured } = await crawlBoth('generated', { urls: [`${site.origin}${docs.indexPath}`] });
    expect(measured.chunks).toBeGreaterThanOrEqual(150);
    expect(measured.share).toBeLessThanOrEqual(0.02);
  }, 300_000);

  (debianDocs ? it : it.skip)(
    'holds at most 2% of chunks with repeated chrome on the Debian nodejs-doc and git-doc sites',
    async () => {
      const [node, git] = await Promise.all([
        serve({ root: path.join(DOCS, 'nodejs/api') }),
        serve({ root: path.join(DOCS, 'git-doc') }),
      ]);
      const [nodeSite, gitSite] = await Promise.all([
        crawlWithRule('nodejs-doc', { urls: [`${node.origin}/index.html`], excludePaths: ['/all.html'] }),
        crawlWithRule('git-doc', { urls: [`${git.origin}/index.html`] }),
      ]);
      expect(nodeSite.measured.share).toBeLessThanOrEqual(0.02);
      expect(gitSite.measured.share).toBeLessThanOrEqual(0.02);
      expect(gitSite.measured.chunks).toBeGreaterThan(100);
    },
    600_000,
  );
});
