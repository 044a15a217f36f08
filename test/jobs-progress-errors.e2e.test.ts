import fs from 'node:fs';
import type http from 'node:http';
import path from 'node:path';
import request from 'supertest';
import { DOCS_SITE, serveFixtures, type FixtureServer } from '@docshelf/testing/e2e/fixture-site';
import { startHarness, type Harness } from '@docshelf/testing/e2e/harness';
import { openEventStream } from '@docshelf/testing/e2e/sse';

/** The fixture site with one page held back until the test lets it go, so the crawl is seen while it runs. */
function holdingSite(held: string) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const route = (req: http.IncomingMessage, res: http.ServerResponse): boolean => {
    if (new URL(req.url ?? '/', 'http://x').pathname !== held) return false;
    void released.then(() => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      fs.createReadStream(path.join(DOCS_SITE, held)).pipe(res);
    });
    return true;
  };
  return { route, release };
}

describe("per-page crawl errors in a job's progress, as they happen", () => {
  let h: Harness;
  let site: FixtureServer;
  let auth: { Authorization: string };

  beforeAll(async () => {
    h = await startHarness({ PRIVATE_HOST_ALLOWLIST: '127.0.0.1' });
    auth = { Authorization: `Bearer ${await h.createKey('admin')}` };
  });
  afterAll(async () => {
    await site?.close();
    await h.close();
  });

  it('shows a failed page in the running job and its event stream, and keeps it to the end', async () => {
    const hold = holdingSite('/api/reference.html');
    site = await serveFixtures({ root: DOCS_SITE, routes: hold.route });
    const accepted = await request(h.app)
      .post('/api/crawl')
      .set(auth)
      .set('Prefer', 'respond-async')
      .send({ libraryId: 'fixture/errors', name: 'Widgetry', urls: [`${site.origin}/index.html`], renderer: 'http' })
      .expect(202);
    const { statusUrl } = accepted.body as { statusUrl: string };
    const stream = await openEventStream(`${await h.baseUrl()}${statusUrl}/events`, auth);
    const missing = `${site.origin}/missing.html: HTTP 404`;

    // While the held page keeps the crawl running, the 404 is already in the progress.
    const live = await stream.next(
      (e) => e.event === 'progress' && ((e.data as { errors?: string[] }).errors ?? []).includes(missing),
    );
    expect(live.data).toMatchObject({ phase: 'crawling', pagesFailed: 1, errors: [missing] });
    const running = await request(h.app).get(statusUrl).set(auth).expect(200);
    expect(running.body).toMatchObject({ state: 'running', progress: { errors: [missing] } });

    hold.release();
    const events = await stream.ended;
    expect(events[events.length - 1]).toMatchObject({
      event: 'completed',
      data: { pagesCrawled: 5, errors: [missing] },
    });
    const done = await request(h.app).get(statusUrl).set(auth).expect(200);
    expect(done.body).toMatchObject({
      state: 'completed',
      progress: { phase: 'done', pagesFailed: 1, errors: [missing] },
    });
  }, 90_000);
});
