import { embeddingTextOf, estimateTokens } from '@docshelf/core';
import { ADMIN, makeChunks } from '@docshelf/testing/e2e/harness';
import {
  cleanUpOpsEnv,
  loginCookie,
  opsEnv,
  postJson,
  spawnApi,
  spawnWorker,
  stopQuietly,
  type ApiProcess,
  type WorkerProcess,
} from '@docshelf/testing/e2e/ops-processes';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Parses the Prometheus text format into samples (comments skipped). */
function parseMetrics(text: string): Sample[] {
  return text
    .split('\n')
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
      if (!match) throw new Error(`unparseable metrics line: ${line}`);
      const labels = Object.fromEntries(
        [...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1]!, m[2]!]),
      );
      return { name: match[1]!, labels, value: Number(match[3]) };
    });
}

function valueOf(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  return samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
}

const METRICS_TOKEN = 'scrape-token-for-tests-0123456789';
const WRONG_PASSWORD = 'not-the-password-Zq93xK';

describe('metrics after real traffic, and secrets kept out of the logs (real API and worker processes)', () => {
  const env = opsEnv({ METRICS_TOKEN, LOG_LEVEL: 'trace' });
  let api: ApiProcess | undefined;
  let worker: WorkerProcess | undefined;
  let fullKey = '';
  let sessionCookie = '';
  const chunks = makeChunks(12, { tag: 'metrics' });

  const scrape = async (url: string) => {
    const res = await fetch(url, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    return { text, samples: parseMetrics(text) };
  };

  beforeAll(async () => {
    [api, worker] = await Promise.all([spawnApi(env), spawnWorker(env)]);
    const base = api.baseUrl;
    const failed = await postJson(`${base}/api/auth/login`, { email: ADMIN.email, password: WRONG_PASSWORD });
    expect(failed.status).toBe(401);
    sessionCookie = await loginCookie(base);
    const created = await postJson(
      `${base}/api/keys`,
      { name: 'metrics uploader', permissions: 'admin' },
      { cookie: sessionCookie },
    );
    fullKey = created.body.key;
    const bearer = { authorization: `Bearer ${fullKey}` };
    const ingest = await postJson(`${base}/api/ingest`, { libraryId: 'acme/widgets', name: 'Widgets', chunks }, bearer);
    expect(ingest.body).toMatchObject({ success: true, vectorized: true });
    const embed = await postJson(`${base}/api/embed`, { libraryId: 'acme/widgets' }, bearer);
    expect(embed.body).toMatchObject({ processed: 12, done: true });
    expect((await fetch(`${base}/api/libraries/acme/widgets`)).status).toBe(200);
    expect((await fetch(`${base}/api/libraries/acme/nope`)).status).toBe(404);
    expect((await fetch(`${base}/api/keys`, { headers: bearer })).status).toBe(401);
  }, 60_000);

  afterAll(async () => {
    await Promise.all([stopQuietly(api), stopQuietly(worker)]);
    await cleanUpOpsEnv(env);
  });

  it('guards /metrics with METRICS_TOKEN on both processes', async () => {
    for (const url of [`${api!.baseUrl}/metrics`, `${worker!.healthUrl}/metrics`]) {
      expect((await fetch(url)).status).toBe(401);
      expect((await fetch(url, { headers: { authorization: 'Bearer wrong-token-wrong-token' } })).status).toBe(401);
    }
  });

  it('API: request counts and latency by method, route pattern and status; jobs per queue and state', async () => {
    const { text, samples } = await scrape(`${api!.baseUrl}/metrics`);
    expect(
      valueOf(samples, 'http_requests_total', { method: 'POST', route: '/api/ingest', status: '200', service: 'api' }),
    ).toBe(1);
    expect(valueOf(samples, 'http_requests_total', { method: 'POST', route: '/api/auth/login', status: '401' })).toBe(
      1,
    );
    expect(valueOf(samples, 'http_requests_total', { method: 'POST', route: '/api/auth/login', status: '200' })).toBe(
      1,
    );
    expect(valueOf(samples, 'http_requests_total', { method: 'GET', route: '/api/libraries/*id', status: '200' })).toBe(
      1,
    );
    expect(valueOf(samples, 'http_requests_total', { method: 'GET', route: '/api/libraries/*id', status: '404' })).toBe(
      1,
    );
    expect(
      valueOf(samples, 'http_request_duration_seconds_count', { method: 'POST', route: '/api/ingest', status: '200' }),
    ).toBe(1);
    expect(valueOf(samples, 'http_request_duration_seconds_bucket', { route: '/api/ingest', le: '+Inf' })).toBe(1);
    expect(valueOf(samples, 'http_request_duration_seconds_sum', { route: '/api/ingest' })).toBeGreaterThan(0);
    // Route patterns only: no library id, key or raw path becomes a label.
    expect(text).not.toContain('acme/widgets');
    expect(text).not.toContain('acme/nope');

    expect(valueOf(samples, 'queue_jobs_scrape_ok')).toBe(1);
    for (const queue of ['embed', 'backup', 'delete', 'ingest', 'crawl', 'callbacks']) {
      for (const state of ['waiting', 'active', 'completed', 'failed', 'delayed']) {
        expect(valueOf(samples, 'queue_jobs', { queue, state })).toBeDefined();
      }
    }
    expect(valueOf(samples, 'queue_jobs', { queue: 'embed', state: 'completed' })).toBe(2); // index-ingestion + embed-range
    expect(valueOf(samples, 'queue_jobs', { queue: 'backup', state: 'completed' })).toBe(1);
    expect(valueOf(samples, 'queue_jobs', { queue: 'embed', state: 'waiting' })).toBe(0);
    expect(valueOf(samples, 'process_cpu_user_seconds_total', { service: 'api' })).toBeGreaterThan(0);
  });

  it('worker: job outcomes and durations, embedding calls, inputs and estimated tokens, crawl page counters', async () => {
    const { samples } = await scrape(`${worker!.healthUrl}/metrics`);
    const completed = (job: string, queue: string) => ({ queue, job, outcome: 'completed', service: 'worker' });
    expect(valueOf(samples, 'jobs_processed_total', completed('index-ingestion', 'embed'))).toBe(1);
    expect(valueOf(samples, 'jobs_processed_total', completed('embed-range', 'embed'))).toBe(1);
    expect(valueOf(samples, 'jobs_processed_total', completed('write-backup', 'backup'))).toBe(1);
    expect(valueOf(samples, 'job_duration_seconds_count', completed('index-ingestion', 'embed'))).toBe(1);
    expect(
      valueOf(samples, 'job_duration_seconds_bucket', { ...completed('write-backup', 'backup'), le: '+Inf' }),
    ).toBe(1);

    // 12 chunks embedded on ingest and again by /api/embed, in one batch each.
    const model = { model: 'local-lsi-v1' };
    expect(valueOf(samples, 'embedding_requests_total', { ...model, outcome: 'ok' })).toBe(2);
    expect(valueOf(samples, 'embedding_inputs_total', model)).toBe(24);
    const tokens = chunks.reduce((sum, chunk) => sum + estimateTokens(embeddingTextOf(chunk)), 0);
    expect(valueOf(samples, 'embedding_tokens_total', model)).toBe(2 * tokens);
    expect(valueOf(samples, 'embedding_request_duration_seconds_count', model)).toBe(2);

    expect(valueOf(samples, 'crawl_pages_fetched_total')).toBe(0);
    expect(valueOf(samples, 'crawl_pages_failed_total')).toBe(0);
  });

  it('logs one JSON line per request and per job, and never the key, the session token or a password', async () => {
    const lines = (output: string) =>
      output
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    const apiLines = lines(api!.output());
    const requestLines = apiLines.filter((l) => l.msg === 'request');
    expect(requestLines.find((l) => l.route === '/api/ingest')).toMatchObject({
      method: 'POST',
      status: 200,
      ms: expect.any(Number),
      requestId: expect.any(String),
    });
    expect(requestLines.filter((l) => l.route === '/api/ingest')).toHaveLength(1);
    const jobLines = lines(worker!.output()).filter((l) => l.msg === 'job completed');
    expect(jobLines.find((l) => l.job === 'write-backup')).toMatchObject({
      queue: 'backup',
      jobId: expect.any(String),
      ms: expect.any(Number),
      outcome: 'completed',
    });

    const sessionToken = decodeURIComponent(sessionCookie.split('=')[1]!);
    expect(fullKey).toMatch(/^dsk_[0-9a-f]{64}$/);
    for (const output of [api!.output(), worker!.output()]) {
      expect(output).not.toContain(fullKey);
      expect(output).not.toContain(fullKey.slice(12)); // not even the part after the shown prefix
      expect(output).not.toContain(sessionToken);
      expect(output).not.toContain(ADMIN.password);
      expect(output).not.toContain(WRONG_PASSWORD);
    }
  });
});
