import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { makeChunks, startHarness, type Harness } from './support/harness';
import { openEventStream } from './support/sse';

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

describe('callbackUrl: the finished job is POSTed, signed, and retried with backoff', () => {
  let h: Harness;
  let auth: { Authorization: string };

  beforeAll(async () => {
    h = await startHarness({ WEBHOOK_SECRET: SECRET, PRIVATE_HOST_ALLOWLIST: '127.0.0.1' });
    auth = { Authorization: `Bearer ${await h.createKey('admin')}` };
  });
  afterAll(async () => h.close());

  it('delivers the final job object with an HMAC-SHA256 signature of the body, again after a 503', async () => {
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
        expect(delivery.headers['x-docshelf-signature']).toBe(
          `sha256=${createHmac('sha256', SECRET).update(delivery.body).digest('hex')}`,
        );
      }
      expect(job).toMatchObject({
        state: 'completed',
        result: { success: true, libraryId: 'hook/on', chunksIngested: 2 },
      });
      expect(receiver.deliveries).toHaveLength(2);
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
