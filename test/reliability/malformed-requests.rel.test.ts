import path from 'node:path';
import Database from 'better-sqlite3';
import request from 'supertest';
import { startHarness, type Harness } from '@docshelf/testing/e2e/harness';
import { recordFigure } from '@docshelf/testing/reliability/figures';
import { routesOf } from '@docshelf/testing/reliability/app-routes';
import {
  malformedRequests,
  routeRequests,
  type MalformedRequest,
} from '@docshelf/testing/reliability/malformed-requests';

const COUNT = 1_000;
const SEED = 20261122;
const TABLES = [
  'libraries',
  'chunks',
  'jobs',
  'api_keys',
  'sessions',
  'users',
  'staged_pages',
  'embedder_states',
  'vector_keys',
];

/** Every row count and every queue's job counts: a malformed request must change none of them. */
async function writesSnapshot(h: Harness): Promise<Record<string, number>> {
  const db = new Database(path.join(h.config.dataDir, 'docshelf.sqlite'), { readonly: true });
  const counts: Record<string, number> = {};
  try {
    for (const table of TABLES)
      counts[table] = (db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
  } finally {
    db.close();
  }
  for (const queue of h.jobs.allQueues()) {
    const jobs = await queue.getJobCounts('waiting', 'active', 'delayed', 'completed', 'failed', 'waiting-children');
    counts[`queue ${queue.name}`] = Object.values(jobs).reduce((a, b) => a + b, 0);
  }
  return counts;
}

/** Routes named in bug reports: the flood must keep reaching them whatever else the app's router holds. */
const MUST_COVER = [
  '/api/jobs/:id',
  '/api/jobs/:id/events',
  '/api/libraries/*id',
  '/libraries/*rest',
  '/jobs/*rest',
  '/mcp',
  '/metrics',
];

describe(`${COUNT} generated malformed requests, then every route × every method (API + worker + Redis + SQLite)`, () => {
  let h: Harness;
  let credentials: Record<MalformedRequest['credential'], Record<string, string>>;

  beforeAll(async () => {
    // The operator's crawl limit at the contract's 150, so the generated crawls of 151 pages or URLs are over it.
    h = await startHarness({ CRAWL_MAX_PAGES: '150' });
    credentials = {
      'admin-key': { Authorization: `Bearer ${await h.createKey('admin')}` },
      'read-key': { Authorization: `Bearer ${await h.createKey('read')}` },
      session: { Cookie: await h.login() },
      none: {},
    };
  });
  afterAll(async () => h.close());

  const send = (r: MalformedRequest) => {
    const method = r.method.toLowerCase() as 'get' | 'head' | 'post' | 'put' | 'patch' | 'delete' | 'options';
    const call = request(h.app)
      [method](r.path)
      .set(credentials[r.credential])
      .set(r.headers ?? {});
    if (r.raw !== undefined) return call.set('Content-Type', r.contentType ?? 'application/json').send(r.raw);
    if (r.method === 'POST') return call.set('Content-Type', 'application/json').send(JSON.stringify(r.body ?? null));
    return call;
  };

  it('answers every one with a 4xx in the error shape and writes nothing', async () => {
    const routes = routesOf(h.app);
    expect(routes.map((r) => r.path)).toEqual(expect.arrayContaining(MUST_COVER));
    const requests = [...malformedRequests(COUNT, SEED), ...routeRequests(routes)];
    const before = await writesSnapshot(h);
    const answers: { endpoint: string; status: number; body: unknown; sent: MalformedRequest }[] = [];
    for (const r of requests) {
      const res = await send(r);
      answers.push({ endpoint: r.endpoint, status: res.status, body: res.body, sent: r });
    }
    const after = await writesSnapshot(h);

    const endpoints = new Set(answers.map((a) => a.endpoint));
    const serverErrors = answers.filter((a) => a.status >= 500);
    const accepted = answers.filter((a) => a.status < 400);
    const statuses = [...new Set(answers.map((a) => a.status))].sort();
    const changed = Object.keys(before).filter((key) => before[key] !== after[key]);
    recordFigure({
      scenario: `malformed requests (${routes.length} routes, ${endpoints.size} route × method pairs)`,
      requests: answers.length,
      faults: 0,
      serverErrors: serverErrors.length,
      rowsLost: 0,
      duplicates: 0,
      note: `statuses ${statuses.join('/')}; ${accepted.length} accepted; writes: ${changed.length === 0 ? 'none' : changed.join(', ')}`,
    });

    process.stdout.write(
      `malformed requests: ${answers.length} sent over ${routes.length} routes, ${serverErrors.length} answered 5xx\n`,
    );
    expect(endpoints.size).toBeGreaterThanOrEqual(18);
    expect(serverErrors.map((a) => ({ endpoint: a.endpoint, status: a.status, body: a.body, sent: a.sent }))).toEqual(
      [],
    );
    expect(accepted.map((a) => ({ endpoint: a.endpoint, status: a.status, sent: a.sent }))).toEqual([]);
    // HEAD answers carry no body; MCP answers in JSON-RPC; Bull Board's API answers its own page in its own shape.
    const ownShape = answers.filter(
      (x) => x.endpoint !== 'POST /mcp' && x.sent.method !== 'HEAD' && !x.sent.path.startsWith('/admin/queues/'),
    );
    for (const a of ownShape) {
      expect({ sent: a.sent, body: a.body }).toEqual({
        sent: a.sent,
        body: expect.objectContaining({ error: expect.any(String), code: expect.any(String) }),
      });
    }
    expect(after).toEqual(before);
  }, 300_000);
});
