import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { makeChunks, startHarness, type Harness } from './support/harness';

const SECRET = 'a-webhook-secret-for-tests';

interface Delivery {
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A receiver that answers 503 to the first delivery and 200 afterwards, so a retry is needed. */
async function startReceiver(): Promise<{
  url: string;
  deliveries: Delivery[];
  next(count: number): Promise<void>;
  close(): Promise<void>;
}> {
  const deliveries: Delivery[] = [];
  const waiters = new Set<() => void>();
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      deliveries.push({ headers: req.headers, body });
      res.writeHead(deliveries.length === 1 ? 503 : 200).end();
      waiters.forEach((w) => w());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/docshelf`,
    deliveries,
    next: (count) =>
      new Promise((resolve) => {
        const check = () => deliveries.length >= count && (waiters.delete(check), resolve());
        waiters.add(check);
        check();
      }),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
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
    const receiver = await startReceiver();
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
