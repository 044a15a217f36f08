import request from 'supertest';
import { startHarness, type Harness } from '@docshelf/testing/e2e/harness';

const QUEUES = ['backup', 'callbacks', 'crawl', 'delete', 'embed', 'ingest'];

/** Bull Board at /admin/queues: a dashboard session only; API keys and strangers get 401. */
describe('Bull Board access', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h.close());

  it('shows every Docshelf queue to a logged-in dashboard session', async () => {
    const cookie = await h.login();
    const page = await request(h.app).get('/admin/queues').set('Cookie', cookie).set('Accept', 'text/html').expect(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.text).toMatch(/Docshelf queues|bull/i);

    const api = await request(h.app).get('/admin/queues/api/queues').set('Cookie', cookie).expect(200);
    const names = (api.body.queues as { name: string }[]).map((q) => q.name).sort();
    expect(names).toEqual(QUEUES);

    // A deep link into one queue works too.
    await request(h.app).get('/admin/queues/queue/embed').set('Cookie', cookie).set('Accept', 'text/html').expect(200);
  });

  it('answers 401 JSON without a credential, and to an API key even alongside a session cookie', async () => {
    const none = await request(h.app).get('/admin/queues/api/queues').expect(401);
    expect(none.body).toEqual({ error: expect.any(String), code: 'UNAUTHORIZED' });
    await request(h.app).get('/admin/queues').set('Accept', 'application/json').expect(401);

    const adminKey = await h.createKey('admin');
    const keyed = await request(h.app)
      .get('/admin/queues/api/queues')
      .set('Authorization', `Bearer ${adminKey}`)
      .expect(401);
    expect(keyed.body).toMatchObject({ code: 'UNAUTHORIZED', error: expect.stringMatching(/session/) });

    const cookie = await h.login();
    await request(h.app)
      .get('/admin/queues/api/queues')
      .set('Cookie', cookie)
      .set('Authorization', `Bearer ${adminKey}`)
      .expect(401);
  });

  it('refuses an unknown or logged-out session', async () => {
    await request(h.app).get('/admin/queues/api/queues').set('Cookie', 'docshelf_session=not-a-real-token').expect(401);
    const cookie = await h.login();
    await request(h.app).post('/api/auth/logout').set('Cookie', cookie).expect(200);
    await request(h.app).get('/admin/queues/api/queues').set('Cookie', cookie).expect(401);
  });

  it('gives a browser without a session a 401 login page instead of the board', async () => {
    const res = await request(h.app)
      .get('/admin/queues')
      .set('Accept', 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8')
      .expect(401);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.text).toContain('/api/auth/login');
    expect(res.text).toMatch(/<form id="login">/);
  });
});
