/**
 * What running every request as a job costs: a minimal job through enqueue + worker + await against the same work
 * called inline, and the time to first byte of a 202 against the same request answered synchronously.
 */
import http from 'node:http';
import { Queue, QueueEvents, Worker } from 'bullmq';
import { embedLibraryPage, requestEmbedding, standaloneJobContext, type SubmitDeps } from '@docshelf/core';
import request from 'supertest';
import { startHarness, type Harness } from '@docshelf/testing/e2e/harness';

const RUNS = 300;
const WARMUP = 30;

export interface Percentiles {
  p50: number;
  p99: number;
}

function percentiles(samples: number[]): Percentiles {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return { p50: at(0.5), p99: at(0.99) };
}

/** Runs `a` and `b` alternately, so a noisy neighbour slows both alike and their difference stays meaningful. */
async function sampleInterleaved(
  runs: number,
  a: () => Promise<unknown>,
  b: () => Promise<unknown>,
): Promise<[Percentiles, Percentiles]> {
  const time = async (fn: () => Promise<unknown>) => {
    const started = process.hrtime.bigint();
    await fn();
    return Number(process.hrtime.bigint() - started) / 1e6;
  };
  for (let i = 0; i < WARMUP; i++) {
    await a();
    await b();
  }
  const msA: number[] = [];
  const msB: number[] = [];
  for (let i = 0; i < runs; i++) {
    msA.push(await time(a));
    msB.push(await time(b));
  }
  return [percentiles(msA), percentiles(msB)];
}

/** Like sample(), for a figure the function measures itself. */
async function sampleReported(runs: number, fn: () => Promise<number>): Promise<Percentiles> {
  for (let i = 0; i < WARMUP; i++) await fn();
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) ms.push(await fn());
  return percentiles(ms);
}

/** Milliseconds until the status line and headers arrive. */
function timeToFirstByte(
  url: string,
  headers: Record<string, string>,
  body: string,
): Promise<{ ms: number; status: number; text: Promise<string> }> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const req = http.request(
      url,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers },
      },
      (res) => {
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        let text = '';
        res.on('data', (chunk) => (text += chunk));
        resolve({ ms, status: res.statusCode ?? 0, text: new Promise((done) => res.on('end', () => done(text))) });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const fmt = (p: Percentiles) => `p50 ${p.p50.toFixed(2).padStart(7)} ms  p99 ${p.p99.toFixed(2).padStart(7)} ms`;

export async function benchJobs(): Promise<string[]> {
  const h = await startHarness();
  try {
    return await measure(h, { Authorization: `Bearer ${await h.createKey('admin')}` });
  } finally {
    await h.close();
  }
}

async function measure(h: Harness, auth: Record<string, string>): Promise<string[]> {
  const lines: string[] = [];
  const print = (line: string) => {
    console.log(line);
    lines.push(line);
  };

  // 1. A minimal job: embed one one-chunk page, through the queue and inline.
  await request(h.app)
    .post('/api/ingest')
    .set(auth)
    .send({ libraryId: 'bench/tiny', name: 'Tiny', chunks: [{ id: 'a', content: 'one small chunk' }] })
    .expect(200);
  const submit: SubmitDeps & { libraries: typeof h.adapters.libraries } = {
    jobStore: h.adapters.jobStore,
    jobs: h.jobs,
    jobRetentionMs: h.config.jobs.retentionMs,
    callbacks: { sender: { assertAllowed: () => Promise.resolve(), post: () => Promise.resolve(200) } },
    libraries: h.adapters.libraries,
  };
  const payload = { libraryId: 'bench/tiny', offset: 0, limit: 1 };
  const [viaQueue, inline] = await sampleInterleaved(
    RUNS,
    () => requestEmbedding(submit, payload, { async: false }),
    () => embedLibraryPage(h.adapters, payload, standaloneJobContext()),
  );
  print(
    `minimal job via enqueue + worker + await  ${fmt(viaQueue)} | baseline same work inline  ${fmt(inline)} | overhead p50 +${(viaQueue.p50 - inline.p50).toFixed(2)} ms (target <= 3 ms), p99 +${(viaQueue.p99 - inline.p99).toFixed(2)} ms`,
  );
  const bare = await bareBullmqRoundTrip(h);
  print(`  of which BullMQ alone (add, a worker returning at once, waitUntilFinished): ${fmt(bare)}`);

  // 2. Time to first byte of a 202, against the same request answered when its job is done.
  const baseUrl = await h.baseUrl();
  const body = (n: number) =>
    JSON.stringify({
      libraryId: `bench/ttfb-${n % 20}`,
      name: 'TTFB',
      chunks: [
        { id: 'a', content: `chunk ${n}` },
        { id: 'b', content: 'second chunk' },
      ],
    });
  let n = 0;
  const post = (headers: Record<string, string>) => timeToFirstByte(`${baseUrl}/api/ingest`, headers, body(n++));
  const accepted = await sampleReported(RUNS, async () => {
    const res = await post({ ...auth, prefer: 'respond-async' });
    if (res.status !== 202) throw new Error(`expected 202, got ${res.status}`);
    await waitForEnd(h, (JSON.parse(await res.text) as { jobId: string }).jobId);
    return res.ms;
  });
  const synchronous = await sampleReported(RUNS, async () => {
    const res = await post(auth);
    await res.text;
    return res.ms;
  });
  print(
    `time to first byte of a 202 (2 chunks)    ${fmt(accepted)} | baseline same request sync  ${fmt(synchronous)} | target p50 <= 20 ms`,
  );
  return lines;
}

/** The floor under any job: BullMQ's own round trip, on a scratch queue in the same process and Redis. */
async function bareBullmqRoundTrip(h: Harness): Promise<Percentiles> {
  const connection = { url: h.config.redis.url };
  const queue = new Queue('bench-bare', { connection, prefix: h.prefix });
  const events = new QueueEvents('bench-bare', { connection, prefix: h.prefix });
  const worker = new Worker('bench-bare', () => Promise.resolve({ ok: true }), {
    connection: { ...connection, maxRetriesPerRequest: null },
    prefix: h.prefix,
  });
  try {
    await Promise.all([events.waitUntilReady(), worker.waitUntilReady()]);
    const [bare] = await sampleInterleaved(
      RUNS,
      async () =>
        (await queue.add('noop', {}, { removeOnComplete: { count: 1_000 } })).waitUntilFinished(events, 10_000),
      () => Promise.resolve(),
    );
    return bare;
  } finally {
    await worker.close();
    await events.close();
    await queue.obliterate({ force: true });
    await queue.close();
  }
}

/** The next 202 is measured against an idle worker, as a client that sends one request at a time sees it. */
async function waitForEnd(h: Harness, jobId: string): Promise<void> {
  for (;;) {
    const job = await h.adapters.jobStore.getJob(jobId);
    if (job && job.state !== 'queued' && job.state !== 'running') return;
    await new Promise((r) => setTimeout(r, 2));
  }
}
