import request from 'supertest';
import { startHarness, type Harness } from '@docshelf/testing/e2e/harness';
import { serveFixtures, type FixtureServer } from '@docshelf/testing/e2e/fixture-site';
import { recordFigure } from '@docshelf/testing/reliability/figures';

const MAX_BYTES = 1024 * 1024;
const html = (title: string, body: string) =>
  `<!DOCTYPE html><html><head><title>${title}</title></head><body><main><h1>${title}</h1>${body}</main></body></html>`;

/**
 * Hostile and heavy pages against the running service (API + worker + Chromium + Redis + SQLite): a body that never
 * ends, one that declares a gigabyte, a page that allocates 2 GB, one that never stops computing, popups and downloads.
 * Each fails its own page with a clear error; the crawl keeps the others and the worker goes on serving.
 */
describe('crawl limits and untrusted pages (API + worker + Chromium + Redis + SQLite)', () => {
  let h: Harness;
  let site: FixtureServer;
  let admin: { Authorization: string };
  let endlessBytesSent = 0;
  let endlessClosed = false;

  beforeAll(async () => {
    h = await startHarness({
      PRIVATE_HOST_ALLOWLIST: '127.0.0.1',
      PAGE_MAX_BYTES: String(MAX_BYTES),
      PAGE_TIMEOUT_MS: '8000',
      PAGE_MAX_MEMORY_MB: '512',
      CRAWL_HOST_PAGES_PER_SECOND: '0',
    });
    admin = { Authorization: `Bearer ${await h.createKey('admin')}` };
    site = await serveFixtures({
      routes: (req, res) => {
        const path = new URL(req.url ?? '/', 'http://x').pathname;
        const page = (body: string) => (res.writeHead(200, { 'content-type': 'text/html' }).end(body), true);
        if (path === '/ok')
          return page(html('Ordinary page', '<p>An ordinary page ORDINARYPAGE survives its neighbours.</p>'));
        if (path === '/endless') {
          // Streams HTML for as long as anyone reads it.
          res.writeHead(200, { 'content-type': 'text/html' });
          res.write('<!DOCTYPE html><html><body><main><h1>Endless</h1>');
          const line = `<p>${'endless text '.repeat(5000)}</p>`;
          const pump = () => {
            while (!res.destroyed && res.write(line)) endlessBytesSent += line.length;
            if (!res.destroyed) res.once('drain', pump);
          };
          res.on('close', () => (endlessClosed = true));
          pump();
          return true;
        }
        if (path === '/gigabyte') {
          res.writeHead(200, { 'content-type': 'text/html', 'content-length': String(2 ** 30) });
          res.write('<html><body>');
          setTimeout(() => res.destroy(), 5_000);
          return true;
        }
        if (path === '/hog') {
          // Allocates and touches 2 GB, 64 MB at a time.
          return page(
            html(
              'Hog',
              `<p>Hungry page</p><script>
            const kept = [];
            for (let i = 0; i < 32; i++) { const a = new Uint8Array(64 * 1024 * 1024); a.fill(1); kept.push(a); }
            document.body.append(String(kept.length));
          </script>`,
            ),
          );
        }
        if (path === '/busy') return page(html('Busy', '<p>Never done</p><script>while (true) {}</script>'));
        if (path === '/popups') {
          return page(
            html(
              'Popups',
              `<p>A page that opens windows and starts downloads POPUPPAGE.</p>
            <a id="blank" href="/opened-by-link" target="_blank">elsewhere</a>
            <a id="dl" href="/file.bin" download>file</a>
            <script>
              window.open('/opened-by-script');
              document.getElementById('blank').click();
              document.getElementById('dl').click();
            </script>`,
            ),
          );
        }
        if (path === '/file.bin') {
          res
            .writeHead(200, {
              'content-type': 'application/octet-stream',
              'content-disposition': 'attachment; filename="file.bin"',
            })
            .end(Buffer.alloc(1024));
          return true;
        }
        if (path.startsWith('/opened-by')) return page(html('Opened', '<p>OPENEDWINDOW</p>'));
        return false;
      },
    });
  }, 60_000);
  afterAll(async () => {
    await site.close();
    await h.close();
  });

  const crawl = (urls: string[], renderer: string) =>
    request(h.app).post('/api/crawl').set(admin).send({ libraryId: 'limits/site', name: 'Limits', urls, renderer });
  const contentOf = async () =>
    (await h.adapters.libraries.listChunks('limits/site', { offset: 0, limit: 500 })).map((c) => c.content).join('\n');

  it.each(['http', 'browser'])(
    'cuts an endless response at PAGE_MAX_BYTES and fails that page only (%s)',
    async (renderer) => {
      endlessBytesSent = 0;
      endlessClosed = false;
      const res = await crawl(
        [`${site.origin}/endless`, `${site.origin}/gigabyte`, `${site.origin}/ok`],
        renderer,
      ).expect(200);
      expect(res.body.pagesCrawled).toBe(1);
      expect(res.body.errors).toEqual([
        expect.stringMatching(new RegExp(`/endless: .*exceeds ${MAX_BYTES} bytes`)),
        expect.stringMatching(new RegExp(`/gigabyte: .*exceeds ${MAX_BYTES} bytes`)),
      ]);
      expect(await contentOf()).toContain('ORDINARYPAGE');
      expect(endlessClosed).toBe(true);
      recordFigure({
        scenario: `limits: endless and 1 GB responses (${renderer})`,
        requests: 1,
        faults: 2,
        serverErrors: res.status >= 500 ? 1 : 0,
        rowsLost: 0,
        duplicates: 0,
        note: `cut at ${MAX_BYTES} B; the endless body was dropped after ${(endlessBytesSent / 2 ** 20).toFixed(1)} MiB sent`,
      });
    },
    60_000,
  );

  it('stops a page that allocates 2 GB and fails it alone; the next crawl renders normally', async () => {
    const res = await crawl([`${site.origin}/hog`, `${site.origin}/ok`], 'browser').expect(200);
    expect(res.body.pagesCrawled).toBe(1);
    expect(res.body.errors).toEqual([expect.stringMatching(/\/hog: .*(memory|crashed)/)]);
    expect(await contentOf()).toContain('ORDINARYPAGE');
    const after = await crawl([`${site.origin}/ok`, `${site.origin}/ok?again`], 'browser').expect(200);
    expect(after.body.pagesCrawled).toBe(2);
    recordFigure({
      scenario: 'rendering: a page allocating 2 GB',
      requests: 2,
      faults: 1,
      serverErrors: 0,
      rowsLost: 0,
      duplicates: 0,
      note: `failed alone: ${String(res.body.errors[0])
        .replace(/^.*\/hog: /, '')
        .slice(0, 60)}`,
    });
  }, 90_000);

  it('fails a page whose scripts never finish within PAGE_TIMEOUT_MS, keeping the others', async () => {
    const res = await crawl([`${site.origin}/busy`, `${site.origin}/ok`], 'browser').expect(200);
    expect(res.body.pagesCrawled).toBe(1);
    expect(res.body.errors).toEqual([expect.stringMatching(/\/busy: .*timed out after 8000ms/)]);
    recordFigure({
      scenario: 'limits: a page that never stops computing',
      requests: 1,
      faults: 1,
      serverErrors: 0,
      rowsLost: 0,
      duplicates: 0,
      note: 'timed out after PAGE_TIMEOUT_MS, alone',
    });
  }, 60_000);

  it('refuses popups and downloads: the page is crawled, no window opened by script is loaded, nothing is saved', async () => {
    const before = site.requests.length;
    const res = await crawl([`${site.origin}/popups`, `${site.origin}/ok`], 'browser').expect(200);
    expect(res.body.pagesCrawled).toBe(2);
    const text = await contentOf();
    expect(text).toContain('POPUPPAGE');
    expect(text).not.toContain('OPENEDWINDOW');
    const requested = site.requests.slice(before);
    expect(requested).not.toContain('/opened-by-script');
    recordFigure({
      scenario: 'rendering: popups and downloads',
      requests: 1,
      faults: 3,
      serverErrors: 0,
      rowsLost: 0,
      duplicates: 0,
      note: `window.open refused; target=_blank ${requested.includes('/opened-by-link') ? 'closed at once' : 'never loaded'}; download cancelled`,
    });
  }, 60_000);
});

describe('crawl time and politeness limits (API + worker + Redis + SQLite)', () => {
  let site: FixtureServer;
  const arrivals: Array<{ path: string; at: number }> = [];
  let robots = '';

  beforeAll(async () => {
    site = await serveFixtures({
      routes: (req, res) => {
        const path = new URL(req.url ?? '/', 'http://x').pathname;
        if (path === '/robots.txt') return (res.writeHead(200, { 'content-type': 'text/plain' }).end(robots), true);
        const match = /^\/p(\d+)$/.exec(path);
        if (path === '/index' || match) {
          arrivals.push({ path, at: Date.now() });
          const links =
            path === '/index' ? Array.from({ length: 6 }, (_, i) => `<a href="/p${i}">page ${i}</a>`).join(' ') : '';
          const body = html(`Page ${path}`, `<p>Text of ${path} POLITEPAGE.</p>${links}`);
          // The seed answers slowly, so a short crawl budget runs out during the first level.
          setTimeout(
            () => res.writeHead(200, { 'content-type': 'text/html' }).end(body),
            path === '/index' ? 1_200 : 0,
          );
          return true;
        }
        return false;
      },
    });
  });
  afterAll(() => site.close());

  const gaps = () => {
    const pages = arrivals.filter((a) => a.path !== '/index').map((a) => a.at);
    return pages.slice(1).map((at, i) => at - pages[i]!);
  };
  /** Mean time between the pages' arrivals: turns are spaced in Redis, each arrival then jitters by a few ms. */
  const meanGap = () => gaps().reduce((a, b) => a + b, 0) / gaps().length;

  async function crawlWith(env: Record<string, string>) {
    const h = await startHarness({ PRIVATE_HOST_ALLOWLIST: '127.0.0.1', ...env });
    try {
      const admin = { Authorization: `Bearer ${await h.createKey('admin')}` };
      arrivals.length = 0;
      return await request(h.app)
        .post('/api/crawl')
        .set(admin)
        .send({ libraryId: 'limits/polite', name: 'Polite', urls: [`${site.origin}/index`], renderer: 'http' });
    } finally {
      await h.close();
    }
  }

  it('spaces the pages of one host at CRAWL_HOST_PAGES_PER_SECOND across the crawl', async () => {
    robots = '';
    const res = await crawlWith({ CRAWL_HOST_PAGES_PER_SECOND: '5' });
    expect(res.status).toBe(200);
    expect(res.body.pagesCrawled).toBe(7);
    // 5 per second: turns 200 ms apart.
    expect(meanGap()).toBeGreaterThanOrEqual(180);
    recordFigure({
      scenario: 'politeness: 5 pages/s per host',
      requests: 1,
      faults: 0,
      serverErrors: 0,
      rowsLost: 0,
      duplicates: 0,
      note: `mean gap between pages ${meanGap().toFixed(0)} ms`,
    });
  }, 60_000);

  it('honours robots.txt Crawl-delay, up to CRAWL_DELAY_MAX_S', async () => {
    robots = 'User-agent: *\nCrawl-delay: 30\n';
    const res = await crawlWith({ CRAWL_HOST_PAGES_PER_SECOND: '0', CRAWL_DELAY_MAX_S: '0.5' });
    expect(res.status).toBe(200);
    expect(res.body.pagesCrawled).toBe(7);
    expect(meanGap()).toBeGreaterThanOrEqual(450);
    expect(Math.max(...gaps())).toBeLessThan(5_000);
    recordFigure({
      scenario: 'politeness: Crawl-delay 30 s capped at 0.5 s',
      requests: 1,
      faults: 0,
      serverErrors: 0,
      rowsLost: 0,
      duplicates: 0,
      note: `mean gap ${meanGap().toFixed(0)} ms, longest ${Math.max(...gaps())} ms`,
    });
  }, 60_000);

  it('stops scheduling pages at CRAWL_MAX_DURATION_MS and keeps what it crawled', async () => {
    robots = '';
    const res = await crawlWith({ CRAWL_HOST_PAGES_PER_SECOND: '0', CRAWL_MAX_DURATION_MS: '1000' });
    expect(res.status).toBe(200);
    // The seed took longer than the crawl's budget: its links are reported, not crawled.
    const seedTook = arrivals.length > 0;
    expect(seedTook).toBe(true);
    expect(res.body.pagesCrawled).toBeLessThan(7);
    expect(res.body.errors).toEqual([
      expect.stringMatching(/crawl time limit of 1 s reached: \d+ more pages were not crawled/),
    ]);
    recordFigure({
      scenario: 'limits: total crawl time',
      requests: 1,
      faults: 0,
      serverErrors: 0,
      rowsLost: 0,
      duplicates: 0,
      note: `${res.body.pagesCrawled} of 7 pages, then ${res.body.errors[0]}`.slice(0, 90),
    });
  }, 60_000);
});
