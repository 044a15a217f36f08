import type { LookupAddress } from 'node:dns';
import request from 'supertest';
import { createAddressPolicy, safeFetch } from '@docshelf/crawler';
import { makeChunks, startHarness, type Harness } from '@docshelf/testing/e2e/harness';
import { serveFixtures, type FixtureServer } from '@docshelf/testing/e2e/fixture-site';
import { recordFigure } from '@docshelf/testing/reliability/figures';

/**
 * Every way a user-supplied URL could reach a private address, tried through the running service: crawls (plain HTTP
 * and Chromium), URL ingestion, git ingestion, callbacks, and the checked fetch under a resolver whose answer changes between check
 * and connect. The canary listens on 127.0.0.2 (only 127.0.0.1 is allow-listed) and must never see a connection.
 */
describe('SSRF matrix (API + worker + Chromium + Redis + SQLite)', () => {
  let h: Harness;
  let canary: FixtureServer;
  let site: FixtureServer;
  let admin: { Authorization: string };
  let cookie: string;
  const outcomes: { name: string; refused: boolean; detail: string }[] = [];

  beforeAll(async () => {
    h = await startHarness({ PRIVATE_HOST_ALLOWLIST: '127.0.0.1', WEBHOOK_SECRET: 'ssrf-matrix-webhook-secret' });
    admin = { Authorization: `Bearer ${await h.createKey('admin')}` };
    cookie = await h.login();
    canary = await serveFixtures({
      host: '127.0.0.2',
      routes: (_req, res) => (
        res.writeHead(200, { 'content-type': 'text/html' }).end('<main><p>canary secret</p></main>'),
        true
      ),
    });
    const target = (path = '/') => `${canary.origin}${path}`;
    const port = new URL(canary.origin).port;
    site = await serveFixtures({
      routes: (req, res) => {
        const url = req.url ?? '/';
        const redirect = (location: string) => (res.writeHead(302, { location }).end(), true);
        if (url.startsWith('/to-canary')) return redirect(target('/latest/meta-data/'));
        if (url.startsWith('/hop-1')) return redirect('/hop-2');
        if (url.startsWith('/hop-2')) return redirect(`http://2130706434:${port}/hop-3`);
        if (url.startsWith('/to-file')) return redirect('file:///etc/passwd');
        if (url.startsWith('/hook-moved')) return redirect(target('/hook'));
        if (url.startsWith('/hook')) return (res.writeHead(200).end('ok'), true);
        if (url.startsWith('/subresources')) {
          res.writeHead(200, { 'content-type': 'text/html' }).end(`<!DOCTYPE html><html><head><title>Sub</title>
            <script src="${target('/script.js')}"></script>
            <link rel="stylesheet" href="http://[::ffff:127.0.0.2]:${port}/style.css">
            <link rel="prefetch" href="${target('/prefetch')}"><link rel="preconnect" href="${target()}">
            <style>@import url("${target('/import.css')}"); body { background: url("${target('/bg.png')}"); }</style>
            </head><body><main><h1>Subresources</h1><p>Public page body SUBRESOURCEPAGE.</p>
            <img src="${target('/img.png')}" srcset="${target('/srcset.png')} 2x">
            <iframe src="${target('/frame')}"></iframe>
            <video src="${target('/video.mp4')}"></video><object data="${target('/object')}"></object>
            <script>
              fetch('${target('/fetch')}').catch(() => {});
              const x = new XMLHttpRequest(); x.open('GET', '${target('/xhr')}'); x.send();
              try { new WebSocket('ws://127.0.0.2:${port}/ws'); } catch (e) {}
              try { new EventSource('${target('/events')}'); } catch (e) {}
              navigator.sendBeacon && navigator.sendBeacon('${target('/beacon')}', 'x');
              new Image().src = 'http://0x7f000002:${port}/hex.png';
              import('${target('/module.js')}').catch(() => {});
              window.open('${target('/popup')}');
            </script></main></body></html>`);
          return true;
        }
        if (url.startsWith('/navigates')) {
          // A page that sends the browser elsewhere: meta refresh, a form posted by script, a location change.
          const how = new URL(url, 'http://x').searchParams.get('how');
          const head = how === 'refresh' ? `<meta http-equiv="refresh" content="0; url=${target('/refresh')}">` : '';
          const script =
            how === 'form'
              ? `<form id="f" action="${target('/form')}" method="post"></form><script>document.getElementById('f').submit();</script>`
              : how === 'location'
                ? `<script>location.href = '${target('/location')}';</script>`
                : '';
          res.writeHead(200, { 'content-type': 'text/html' })
            .end(`<!DOCTYPE html><html><head><title>Nav</title>${head}</head>
            <body><main><h1>Navigating page</h1><p>Text of the navigating page NAVPAGE.</p>${script}</main></body></html>`);
          return true;
        }
        return false;
      },
    });
  }, 60_000);
  afterAll(async () => {
    await Promise.all([site.close(), canary.close()]);
    await h.close();
  });

  const canaryPort = () => new URL(canary.origin).port;
  const crawl = (urls: string[], renderer: string) =>
    request(h.app).post('/api/crawl').set(admin).send({ libraryId: 'ssrf/matrix', name: 'SSRF', urls, renderer });
  const note = (name: string, refused: boolean, detail: string) => outcomes.push({ name, refused, detail });

  const ADDRESS_FORMS: [string, () => string][] = [
    ['private IPv4', () => `http://127.0.0.2:${canaryPort()}/`],
    ['decimal IPv4', () => `http://2130706434:${canaryPort()}/`],
    ['hex IPv4', () => `http://0x7f000002:${canaryPort()}/`],
    ['octal IPv4', () => `http://0177.0.0.2:${canaryPort()}/`],
    ['short IPv4', () => `http://127.2:${canaryPort()}/`],
    ['trailing-dot IPv4', () => `http://127.0.0.2.:${canaryPort()}/`],
    ['percent-encoded host', () => `http://%31%32%37.0.0.2:${canaryPort()}/`],
    ['full-width digits', () => `http://１２７.０.０.２:${canaryPort()}/`],
    ['userinfo before a private host', () => `http://docs.example.com@127.0.0.2:${canaryPort()}/`],
    ['IPv4-mapped IPv6', () => `http://[::ffff:127.0.0.2]:${canaryPort()}/`],
    ['IPv4-mapped IPv6, hex', () => `http://[::ffff:7f00:2]:${canaryPort()}/`],
    ['IPv4-compatible IPv6', () => `http://[::127.0.0.2]:${canaryPort()}/`],
    ['6to4 IPv6', () => `http://[2002:7f00:2::1]:${canaryPort()}/`],
    ['NAT64 IPv6', () => `http://[64:ff9b::7f00:2]:${canaryPort()}/`],
    ['IPv6 loopback', () => `http://[::1]:${canaryPort()}/`],
    ['unspecified address', () => `http://0.0.0.0:${canaryPort()}/`],
    ['cloud metadata', () => 'http://169.254.169.254/latest/meta-data/'],
    ['redirect to a private address', () => `${site.origin}/to-canary`],
    ['redirect chain ending in a decimal address', () => `${site.origin}/hop-1`],
    ['redirect to file:', () => `${site.origin}/to-file`],
  ];

  it.each(ADDRESS_FORMS)('crawling refuses %s, over plain HTTP and in Chromium', async (name, url) => {
    for (const renderer of ['http', 'browser']) {
      const res = await crawl([url(), `${url()}?again`], renderer);
      const refused =
        res.status === 400 && res.body.details?.every((d: string) => /Blocked|file:|not a valid/i.test(d));
      note(`crawl (${renderer}): ${name}`, refused, res.body.details?.[0] ?? res.body.code);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('NO_CONTENT');
      expect(refused).toBe(true);
    }
  });

  it('crawls a public page in Chromium while refusing every subresource it points at a private address', async () => {
    const res = await crawl([`${site.origin}/subresources`, `${site.origin}/subresources?twice`], 'browser').expect(
      200,
    );
    expect(res.body.pagesCrawled).toBe(2);
    const chunks = await h.adapters.libraries.listChunks('ssrf/matrix', { offset: 0, limit: 100 });
    expect(chunks.map((c) => c.content).join('\n')).toContain('SUBRESOURCEPAGE');
    for (const kind of [
      'script',
      'stylesheet',
      'prefetch',
      'preconnect',
      'CSS @import and url()',
      'img and srcset',
      'iframe',
      'video',
      'object',
      'fetch',
      'XHR',
      'WebSocket',
      'EventSource',
      'sendBeacon',
      'hex-address image',
      'dynamic import',
      'popup',
    ]) {
      note(`subresource: ${kind}`, canary.connections() === 0, 'page crawled, subresource not fetched');
    }
  }, 120_000);

  it.each(['refresh', 'form', 'location'])(
    'never follows a page that sends Chromium to a private address (%s)',
    async (how) => {
      const res = await crawl(
        [`${site.origin}/navigates?how=${how}`, `${site.origin}/navigates?how=${how}&twice`],
        'browser',
      );
      // Chromium's own "… is blocked" error page must never be taken as the page's content: the page fails instead.
      const text =
        res.status === 200
          ? (await h.adapters.libraries.listChunks('ssrf/matrix', { offset: 0, limit: 500 }))
              .map((c) => c.content)
              .join('\n')
          : '';
      const tookErrorPage = /is blocked|ERR_BLOCKED|refused to connect|This site can/i.test(text);
      note(
        `navigation by ${how}`,
        canary.connections() === 0 && !tookErrorPage,
        `${res.status}: ${res.body.pagesCrawled ?? res.body.code}`,
      );
      // Either the page fails with the refusal, or it keeps its own text: never anything else.
      if (res.status === 200) expect(text).toContain('NAVPAGE');
      else
        expect(res.body.details).toEqual([
          expect.stringMatching(/navigates.*Blocked/),
          expect.stringMatching(/navigates.*Blocked/),
        ]);
      expect(res.status === 200 || res.body.code === 'NO_CONTENT').toBe(true);
      expect(tookErrorPage).toBe(false);
      expect(canary.connections()).toBe(0);
    },
    60_000,
  );

  it('URL ingestion refuses private targets, directly and by redirect', async () => {
    const ingestUrl = (sourceUrl: string) =>
      request(h.app)
        .post('/api/ingest-url')
        .set('Cookie', cookie)
        .send({ libraryId: 'ssrf/url', name: 'URL', sourceUrl, sourceType: 'page' });
    for (const [name, url] of [
      ['ingest-url: private IPv4', `http://127.0.0.2:${canaryPort()}/llms.txt`],
      ['ingest-url: IPv4-mapped IPv6', `http://[::ffff:127.0.0.2]:${canaryPort()}/`],
      ['ingest-url: redirect to a private address', `${site.origin}/to-canary`],
    ] as const) {
      const res = await ingestUrl(url);
      note(name, res.status === 400, `${res.status} ${res.body.code}`);
      expect(res.status).toBe(400);
      expect(['URL_BLOCKED', 'URL_UNREACHABLE']).toContain(res.body.code);
    }
  });

  it('git ingestion refuses private remotes, directly and by redirect of its discovery', async () => {
    for (const [name, repoUrl] of [
      ['ingest-git: private IPv4', `http://127.0.0.2:${canaryPort()}/repo.git`],
      ['ingest-git: IPv4-mapped IPv6', `http://[::ffff:127.0.0.2]:${canaryPort()}/repo.git`],
      ['ingest-git: redirect to a private address', `${site.origin}/to-canary/repo.git`],
    ] as const) {
      const res = await request(h.app)
        .post('/api/ingest-git')
        .set(admin)
        .send({ libraryId: 'ssrf/git', name: 'Git', repoUrl });
      note(name, res.status === 400 && res.body.code === 'URL_BLOCKED', `${res.status} ${res.body.code}`);
      expect([res.status, res.body.code]).toEqual([400, 'URL_BLOCKED']);
    }
    expect(canary.connections()).toBe(0);
  });

  it('callbacks refuse private targets when the job is submitted, and never follow a redirect to one', async () => {
    for (const [name, callbackUrl] of [
      ['callback: private IPv4', `http://127.0.0.2:${canaryPort()}/hook`],
      ['callback: decimal IPv4', `http://2130706434:${canaryPort()}/hook`],
      ['callback: IPv4-mapped IPv6', `http://[::ffff:127.0.0.2]:${canaryPort()}/hook`],
      ['callback: cloud metadata', 'http://169.254.169.254/hook'],
    ] as const) {
      const res = await request(h.app)
        .post('/api/ingest')
        .set(admin)
        .send({ libraryId: 'ssrf/hook', name: 'Hook', chunks: makeChunks(1), callbackUrl });
      note(name, res.status === 400 && res.body.code === 'CALLBACK_URL_BLOCKED', `${res.status} ${res.body.code}`);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('CALLBACK_URL_BLOCKED');
    }
    // An allowed receiver that redirects: the delivery is not followed to the canary.
    const res = await request(h.app)
      .post('/api/ingest')
      .set(admin)
      .set('Prefer', 'respond-async')
      .send({ libraryId: 'ssrf/hook', name: 'Hook', chunks: makeChunks(1), callbackUrl: `${site.origin}/hook-moved` })
      .expect(202);
    await waitUntil(async () => site.requests.some((r) => r.startsWith('/hook-moved')), 30_000);
    const job = (await request(h.app).get(`/api/jobs/${res.body.jobId}`).set(admin)).body;
    note(
      'callback: receiver redirects to a private address',
      canary.connections() === 0,
      `job ${job.state}, redirect not followed`,
    );
  });

  it('the checked fetch connects only to an address it checked, whatever DNS answers in between', async () => {
    const port = Number(canaryPort());
    // A rebinding resolver: a public address when asked first (the check), the canary's when asked again (the connect).
    let asked = 0;
    const rebinding = async (): Promise<LookupAddress[]> =>
      asked++ === 0 ? [{ address: '93.184.216.34', family: 4 }] : [{ address: '127.0.0.2', family: 4 }];
    const policy = createAddressPolicy({ allowlist: [], resolve: rebinding });
    const rebound = await safeFetch(`http://rebind.docshelf.test:${port}/`, { policy }).then(
      () => 'fetched',
      (e: Error) => e.message,
    );
    note('DNS rebinding between check and connect', /Blocked/.test(rebound), rebound);
    expect(rebound).toMatch(/Blocked/);

    const mixed = createAddressPolicy({
      allowlist: [],
      resolve: async () => [
        { address: '93.184.216.34', family: 4 },
        { address: '127.0.0.2', family: 4 },
      ],
    });
    const both = await safeFetch(`http://mixed.docshelf.test:${port}/`, { policy: mixed }).then(
      () => 'fetched',
      (e: Error) => e.message,
    );
    note('DNS answer with a public and a private address', /Blocked/.test(both), both);
    expect(both).toMatch(/Blocked/);

    const six = createAddressPolicy({
      allowlist: [],
      resolve: async () => [{ address: '::ffff:127.0.0.2', family: 6 }],
    });
    const mapped = await safeFetch(`http://six.docshelf.test:${port}/`, { policy: six }).then(
      () => 'fetched',
      (e: Error) => e.message,
    );
    note('DNS answer in IPv4-mapped IPv6 form', /Blocked/.test(mapped), mapped);
    expect(mapped).toMatch(/Blocked/);
  });

  it('ends with no request reaching the canary', () => {
    const refused = outcomes.filter((o) => o.refused).length;
    recordFigure({
      scenario: `SSRF matrix (${outcomes.length} cases)`,
      requests: outcomes.length,
      faults: outcomes.length,
      serverErrors: 0,
      rowsLost: 0,
      duplicates: 0,
      note: `${refused} refused; canary: ${canary.connections()} connections, ${canary.requests.length} requests`,
    });
    expect(outcomes.length).toBeGreaterThanOrEqual(30);
    expect(outcomes.filter((o) => !o.refused)).toEqual([]);
    expect(canary.requests).toEqual([]);
    expect(canary.connections()).toBe(0);
  });
});

async function waitUntil(condition: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
