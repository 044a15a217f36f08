import { buildAdapters, type Adapters } from '@docshelf/adapters';
import { loadConfig } from '@docshelf/config';
import { makeChunks } from '@docshelf/testing/e2e/harness';
import {
  cleanUpOpsEnv,
  createKeyVia,
  loginCookie,
  opsEnv,
  postJson,
  signalAndWait,
  spawnApi,
  spawnWorker,
  stopQuietly,
  waitForActiveJob,
  workerReadiness,
  type ApiProcess,
  type WorkerProcess,
} from '@docshelf/testing/e2e/ops-processes';

/** 5,000 chunks of 200 words at 4,096 dimensions: an embed-range job of several seconds on this machine. */
const SLOW = { chunks: 5_000, words: 200, dimensions: '4096' };

describe('graceful shutdown on SIGTERM (real API and worker processes)', () => {
  const env = opsEnv({ EMBEDDING_DIMENSIONS: SLOW.dimensions, JOB_WAIT_TIMEOUT_MS: '110000' });
  let api: ApiProcess | undefined;
  const workers: WorkerProcess[] = [];
  let bearer: Record<string, string>;
  let adapters: Adapters;

  const ingestSlowLibrary = async (libraryId: string) => {
    const body = {
      libraryId,
      name: libraryId,
      skipEmbeddings: true,
      chunks: makeChunks(SLOW.chunks, { words: SLOW.words, tag: libraryId.replace(/\W/g, '') }),
    };
    const res = await postJson(`${api!.baseUrl}/api/ingest`, body, bearer);
    expect(res.body).toMatchObject({ success: true, chunksIngested: SLOW.chunks, vectorized: false });
  };

  beforeAll(async () => {
    api = await spawnApi(env);
    workers.push(await spawnWorker(env));
    bearer = { authorization: `Bearer ${await createKeyVia(api.baseUrl, await loginCookie(api.baseUrl))}` };
    adapters = buildAdapters(loadConfig({ DATA_DIR: env.DATA_DIR, EMBEDDING_DIMENSIONS: SLOW.dimensions }));
  }, 60_000);

  afterAll(async () => {
    await adapters?.close();
    await Promise.all([stopQuietly(api), ...workers.map(stopQuietly)]);
    await cleanUpOpsEnv(env);
  });

  it('SIGTERM to both processes mid-job: the worker finishes the job, the API delivers the answer, both exit 0', async () => {
    await ingestSlowLibrary('drain/me');
    const embed = postJson(`${api!.baseUrl}/api/embed`, { libraryId: 'drain/me', limit: SLOW.chunks }, bearer);
    const worker = await waitForActiveJob(workers);

    const workerExit = signalAndWait(worker, 'SIGTERM');
    const apiExit = signalAndWait(api!, 'SIGTERM');
    // While draining, the worker says it is not ready and why; the API takes no new connections.
    // Wait for each process to act on the signal rather than guessing how long a loaded machine takes.
    await Promise.all([worker.waitForOutput(/worker stopping/, 10_000), api!.waitForOutput(/api stopping/, 10_000)]);
    const draining = await workerReadiness(worker);
    expect(draining.status).toBe(503);
    expect(draining.body.details).toEqual(
      expect.arrayContaining([{ check: 'workers', message: expect.stringMatching(/shutting down/) }]),
    );
    await expect(fetch(`${api!.baseUrl}/healthz`)).rejects.toThrow();

    const answer = await embed;
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      libraryId: 'drain/me',
      processed: SLOW.chunks,
      total: SLOW.chunks,
      done: true,
    });
    const [w, a] = await Promise.all([workerExit, apiExit]);
    console.log(
      `ops figures: SIGTERM mid-job -> worker exit ${w.code} after ${w.ms} ms, api exit ${a.code} after ${a.ms} ms (embed request took ${answer.ms} ms)`,
    );
    expect(w).toMatchObject({ code: 0, signal: null });
    expect(a).toMatchObject({ code: 0, signal: null });
    expect(w.ms).toBeLessThan(25_000);
    expect(a.ms).toBeLessThan(25_000);
    // In the order things happened (each line's time): two streams of one process may reach the test out of order.
    const lines = logLinesByTime(worker.output());
    const completed = lines.findIndex((l) => l.job === 'embed-range' && l.outcome === 'completed');
    const stopped = lines.findIndex((l) => l.outcome === 'drained' && l.msg === 'worker stopped');
    expect(completed).toBeGreaterThanOrEqual(0);
    expect(stopped).toBeGreaterThan(completed);
    expect(api!.output()).toMatch(/api stopped/);
    expect(await adapters.vectors.count('drain/me')).toBe(SLOW.chunks);
  }, 120_000);

  it('a job still running at the deadline is handed back, the worker exits 0 on time, and another worker completes it', async () => {
    api = await spawnApi(env);
    const hurried = await spawnWorker({ ...env, SHUTDOWN_TIMEOUT_MS: '1000' });
    workers.push(hurried);
    await ingestSlowLibrary('hand/back');
    const embed = postJson(`${api.baseUrl}/api/embed`, { libraryId: 'hand/back', limit: SLOW.chunks }, bearer);
    await waitForActiveJob([hurried]);

    const exit = await signalAndWait(hurried, 'SIGTERM');
    console.log(
      `ops figures: SIGTERM with SHUTDOWN_TIMEOUT_MS=1000 and a longer job -> exit ${exit.code} after ${exit.ms} ms`,
    );
    expect(exit).toMatchObject({ code: 0, signal: null });
    // The deadline plus slack for a loaded machine; that the job was handed back, not finished, is asserted below.
    expect(exit.ms).toBeLessThan(1_000 + 2_500);
    expect(hurried.output()).toMatch(/active jobs handed back to the queue/);
    expect(hurried.output()).not.toMatch(/"job":"embed-range".*"outcome":"completed"/);

    const successor = await spawnWorker(env);
    workers.push(successor);
    const answer = await embed;
    expect(answer.body).toMatchObject({ processed: SLOW.chunks, done: true });
    await successor.waitForOutput(/"job":"embed-range".*"outcome":"completed"/, 10_000);
    expect(await adapters.vectors.count('hand/back')).toBe(SLOW.chunks);
  }, 120_000);
});

/** A process's JSON log lines, parsed, in the order of their `time`. */
function logLinesByTime(output: string): Array<Record<string, unknown> & { time: number }> {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown> & { time: number })
    .sort((a, b) => a.time - b.time);
}
