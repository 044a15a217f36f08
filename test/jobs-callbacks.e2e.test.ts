import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { makeChunks, startHarness, type Harness } from '@docshelf/testing/e2e/harness';
import { openEventStream } from '@docshelf/testing/e2e/sse';

const SECRET = 'a-webhook-secret-for-tests';

interface Delivery {
  headers: http.IncomingHttpHeaders;
  body: string;
}

interface Receiver {
  url: string;
  deliveries: Delivery[];
  /** Requests whose sender hung up before an answer came (the sender's timeout). */
  abandoned: number;
  /** Resolves once `count` deliveries have arrived. */
  next(count: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * A callback receiver on 127.0.0.1. `flaky` answers 503 to the first delivery and 200 afterwards, so a retry is needed;
 * `silent` reads each delivery and never answers, like a receiver that hangs.
 */
async function startReceiver(mode: 'flaky' | 'silent'): Promise<Receiver> {
  const waiters = new Set<() => void>();
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      receiver.deliveries.push({ headers: req.headers, body });
      if (mode === 'flaky') res.writeHead(receiver.deliveries.length === 1 ? 503 : 200).end();
      else res.on('close', () => res.writableEnded || receiver.abandoned++);
      waiters.forEach((w) => w());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const receiver: Receiver = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/docshelf`,
    deliveries: [],
    abandoned: 0,
    next: (count) =>
      new Promise((resolve) => {
        const check = () => receiver.deliveries.length >= count && (waiters.delete(check), resolve());
        waiters.add(check);
        check();
      }),
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
  return receiver;
}

/**
 * A Standard Webhooks verifier written from the scheme itself, not from the sender's library: HMAC-SHA256 over
 * `<webhook-id>.<webhook-timestamp>.<body>` under the secret's bytes (base64 after `whsec_`, else the string's UTF-8),
 * compared in constant time with each `v1,<base64>` of webhook-signature, and a timestamp within `toleranceS` of `now`.
 */
function verifyStandardWebhook(
  secret: string,
  headers: http.IncomingHttpHeaders,
  body: string,
  { now = new Date(), toleranceS = 300 }: { now?: Date; toleranceS?: number } = {},
): { ok: true } | { ok: false; reason: string } {
  const [id, timestamp, signatures] = ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map(
    (name) => headers[name],
  );
  if (typeof id !== 'string' || typeof timestamp !== 'string' || typeof signatures !== 'string')
    return { ok: false, reason: 'missing headers' };
  if (!/^\d+$/.test(timestamp)) return { ok: false, reason: 'timestamp not a number' };
  if (Math.abs(Math.floor(now.getTime() / 1000) - Number(timestamp)) > toleranceS)
    return { ok: false, reason: 'timestamp outside tolerance' };
  const key = secret.startsWith('whsec_')
    ? Buffer.from(secret.slice('whsec_'.length), 'base64')
    : Buffer.from(secret, 'utf8');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest();
  const matches = signatures.split(' ').some((versioned) => {
    const [version, signature] = versioned.split(',');
    if (version !== 'v1' || !signature) return false;
    const given = Buffer.from(signature, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  return matches ? { ok: true } : { ok: false, reason: 'no matching signature' };
}

describe('callbackUrl: the finished job is POSTed, signed, and retried with backoff', () => {
  let h: Harness;
  let auth: { Authorization: string };

  beforeAll(async () => {
    h = await startHarness({ WEBHOOK_SECRET: SECRET, PRIVATE_HOST_ALLOWLIST: '127.0.0.1' });
    auth = { Authorization: `Bearer ${await h.createKey('admin')}` };
  });
  afterAll(async () => h.close());

  it('delivers the final job object with Standard Webhooks headers, again after a 503', async () => {
    const receiver = await startReceiver('flaky');
    try {
      const body = { libraryId: 'hook/on', name: 'Hooked', chunks: makeChunks(2), callbackUrl: receiver.url };
      const { jobId } = (
        await request(h.app).post('/api/ingest').set(auth).set('Prefer', 'respond-async').send(body).expect(202)
      ).body;
      await receiver.next(2);

      const job = (await request(h.app).get(`/api/jobs/${jobId}`).set(auth).expect(200)).body;
      expect(job).not.toHaveProperty('callbackUrl');
      for (const delivery of receiver.deliveries) {
        expect(JSON.parse(delivery.body)).toEqual(job);
        expect(delivery.headers['content-type']).toBe('application/json');
        expect(delivery.headers['x-docshelf-job-id']).toBe(jobId);
        expect(delivery.headers['x-docshelf-signature']).toBeUndefined();
        expect(verifyStandardWebhook(SECRET, delivery.headers, delivery.body)).toEqual({ ok: true });
      }
      // A retry is the same message: the receiver can drop a second copy by its id.
      expect(new Set(receiver.deliveries.map((d) => d.headers['webhook-id'])).size).toBe(1);
      expect(job).toMatchObject({
        state: 'completed',
        result: { success: true, libraryId: 'hook/on', chunksIngested: 2 },
      });
      expect(receiver.deliveries).toHaveLength(2);
    } finally {
      await receiver.close();
    }
  });

  it('signs id and timestamp with the body: a replay outside 5 minutes, a re-dated copy or an edited body is refused', async () => {
    const receiver = await startReceiver('flaky');
    try {
      const body = { libraryId: 'hook/replay', name: 'Replay', chunks: makeChunks(1), callbackUrl: receiver.url };
      await request(h.app).post('/api/ingest').set(auth).set('Prefer', 'respond-async').send(body).expect(202);
      await receiver.next(2);
      const { headers, body: sent } = receiver.deliveries[1]!;
      const sentAt = new Date(Number(headers['webhook-timestamp']) * 1000);
      expect(Math.abs(sentAt.getTime() - Date.now())).toBeLessThan(60_000);
      expect(headers['webhook-id']).toMatch(/^[\w.-]+$/);
      expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);

      expect(verifyStandardWebhook(SECRET, headers, sent, { now: sentAt })).toEqual({ ok: true });
      // The same capture, verified again 5 min 1 s later (or sent from 5 min 1 s ago), is refused.
      const later = new Date(sentAt.getTime() + 301_000);
      expect(verifyStandardWebhook(SECRET, headers, sent, { now: later })).toEqual({
        ok: false,
        reason: 'timestamp outside tolerance',
      });
      const earlier = new Date(sentAt.getTime() - 301_000);
      expect(verifyStandardWebhook(SECRET, headers, sent, { now: earlier })).toMatchObject({ ok: false });
      // Moving the timestamp forward to pass the tolerance breaks the signature.
      const redated = { ...headers, 'webhook-timestamp': String(Math.floor(later.getTime() / 1000)) };
      expect(verifyStandardWebhook(SECRET, redated, sent, { now: later })).toEqual({
        ok: false,
        reason: 'no matching signature',
      });
      const tampered = sent.replace('"completed"', '"failed"');
      expect(tampered).not.toBe(sent);
      expect(verifyStandardWebhook(SECRET, headers, tampered, { now: sentAt })).toEqual({
        ok: false,
        reason: 'no matching signature',
      });
      expect(verifyStandardWebhook('another-secret-of-16+', headers, sent, { now: sentAt })).toMatchObject({
        ok: false,
      });
    } finally {
      await receiver.close();
    }
  });

  it('refuses a callbackUrl the SSRF address policy blocks, and records nothing', async () => {
    for (const callbackUrl of ['http://169.254.169.254/latest/meta-data/', 'http://[::ffff:10.0.0.1]/hook']) {
      const res = await request(h.app)
        .post('/api/crawl')
        .set(auth)
        .send({ libraryId: 'hook/blocked', name: 'B', urls: ['https://docs.example.com/'], callbackUrl })
        .expect(400);
      expect(res.body).toMatchObject({
        code: 'CALLBACK_URL_BLOCKED',
        details: [expect.objectContaining({ path: 'callbackUrl' })],
      });
    }
    const invalid = await request(h.app)
      .post('/api/embed')
      .set(auth)
      .send({ libraryId: 'hook/blocked', callbackUrl: 'ftp://hooks.example.com/x' })
      .expect(400);
    expect(invalid.body.details[0].path).toBe('callbackUrl');
    expect((await request(h.app).get('/api/jobs?libraryId=hook/blocked').set(auth)).body.jobs).toEqual([]);
  });
});

describe('callbackUrl: a receiver that never answers delays only callbacks', () => {
  let h: Harness;
  let auth: { Authorization: string };
  let receiver: Receiver;

  beforeAll(async () => {
    // Two jobs at once per queue: two hanging deliveries would fill every slot of a queue they shared.
    h = await startHarness({ WEBHOOK_SECRET: SECRET, PRIVATE_HOST_ALLOWLIST: '127.0.0.1', WORKER_CONCURRENCY: '2' });
    auth = { Authorization: `Bearer ${await h.createKey('admin')}` };
    receiver = await startReceiver('silent');
  });
  afterAll(async () => {
    // Hung-up deliveries fail at once and wait for their next attempt, which the closing worker does not start.
    await receiver?.close();
    await h?.close();
  });

  it('completes the producing jobs and an unrelated ingest while the deliveries hang', async () => {
    const hooked = 4;
    const jobIds: string[] = [];
    for (let i = 0; i < hooked; i++) {
      const body = { libraryId: `hook/slow-${i}`, name: 'Slow', chunks: makeChunks(1), callbackUrl: receiver.url };
      const res = await request(h.app).post('/api/ingest').set(auth).set('Prefer', 'respond-async').send(body);
      jobIds.push(res.body.jobId);
    }
    // Both callback slots now hold a delivery that gets no answer; the other two wait behind them.
    await receiver.next(2);

    const unrelated = await request(h.app)
      .post('/api/ingest')
      .set(auth)
      .send({ libraryId: 'hook/unrelated', name: 'Unrelated', chunks: makeChunks(3) });
    expect(unrelated.status).toBe(200);
    expect(unrelated.body).toMatchObject({ success: true, chunksIngested: 3 });
    // The ingest finished before any hanging delivery timed out or was retried.
    expect(receiver.abandoned).toBe(0);
    expect(receiver.deliveries).toHaveLength(2);

    // Each producing job completed without waiting for its delivery.
    const base = await h.baseUrl();
    for (const jobId of jobIds) {
      const stream = await openEventStream(`${base}/api/jobs/${jobId}/events`, auth);
      expect((await stream.ended).at(-1)?.event).toBe('completed');
    }
    const callbacks = h.jobs.allQueues().find((queue) => queue.name === 'callbacks');
    expect(callbacks).toBeDefined();
    expect((await callbacks!.getJobCounts('active')).active).toBe(2);
    expect(receiver.abandoned).toBe(0);
  });
});
