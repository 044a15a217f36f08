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
  type ApiProcess,
  type WorkerProcess,
} from '@docshelf/testing/e2e/ops-processes';
import { openEventStream } from '@docshelf/testing/e2e/sse';

const CHUNKS = 5_000;

/** The worker owns the workflow: an API that dies mid-request loses nothing, and a new API reads the outcome. */
describe('SIGKILL of the API during synchronous requests (real processes)', () => {
  // Large vectors make embedding 5,000 chunks take seconds, so the API can be killed in the middle of it.
  const env = opsEnv({ EMBEDDING_DIMENSIONS: '4096', JOB_WAIT_TIMEOUT_MS: '110000' });
  let api: ApiProcess | undefined;
  let worker: WorkerProcess | undefined;
  let adapters: Adapters;

  beforeAll(async () => {
    [api, worker] = await Promise.all([spawnApi(env), spawnWorker(env)]);
    adapters = buildAdapters(loadConfig({ DATA_DIR: env.DATA_DIR, EMBEDDING_DIMENSIONS: '4096' }));
  }, 60_000);
  afterAll(async () => {
    await adapters?.close();
    await Promise.all([stopQuietly(api), stopQuietly(worker)]);
    await cleanUpOpsEnv(env);
  });

  it('the ingest and the embedding complete anyway; a restarted API reports them completed with their results', async () => {
    const bearer = { authorization: `Bearer ${await createKeyVia(api!.baseUrl, await loginCookie(api!.baseUrl))}` };
    const jobsOf = async (base: string) =>
      ((await (await fetch(`${base}/api/jobs?libraryId=durable/lib`, { headers: bearer })).json()) as { jobs: any[] })
        .jobs;
    const readJob = async (base: string, id: string) =>
      (await (await fetch(`${base}/api/jobs/${id}`, { headers: bearer })).json()) as any;

    // 1. The ingest: killed as soon as the worker runs its job (committing, indexing, backing up).
    const ingest = postJson(
      `${api!.baseUrl}/api/ingest`,
      { libraryId: 'durable/lib', name: 'Durable', chunks: makeChunks(CHUNKS, { words: 200 }) },
      bearer,
    );
    const ingestAnswer = ingest.catch((error: Error) => error);
    let ingestJob: any;
    await waitFor(async () => {
      ingestJob = (await jobsOf(api!.baseUrl)).find((j) => j.type === 'ingest');
      return ingestJob?.state === 'running';
    });
    await signalAndWait(api!, 'SIGKILL');
    const ingestKilledAt = Date.now();
    expect(await ingestAnswer).toHaveProperty('message', 'fetch failed');

    api = await spawnApi(env);
    const ingestEvents = await (await openEventStream(`${api.baseUrl}/api/jobs/${ingestJob.id}/events`, bearer)).ended;
    const ingestResult = { success: true, libraryId: 'durable/lib', chunksIngested: CHUNKS, vectorized: false };
    expect(ingestEvents[ingestEvents.length - 1]).toEqual({ event: 'completed', data: ingestResult });
    const ingested = await readJob(api.baseUrl, ingestJob.id);
    expect(ingested).toMatchObject({ state: 'completed', result: ingestResult });
    expect(Date.parse(ingested.finishedAt)).toBeGreaterThan(ingestKilledAt);

    // 2. The embedding of all 5,000 chunks: killed once the worker reports the first embedded batch.
    const embed = postJson(`${api.baseUrl}/api/embed`, { libraryId: 'durable/lib', limit: CHUNKS }, bearer);
    const embedAnswer = embed.catch((error: Error) => error);
    let embedJob: any;
    await waitFor(async () => {
      embedJob = (await jobsOf(api!.baseUrl)).find((j) => j.type === 'embed');
      return embedJob !== undefined;
    });
    const live = await openEventStream(`${api.baseUrl}/api/jobs/${embedJob.id}/events`, bearer);
    const embedding = await live.next((e) => e.event === 'progress' && e.data.phase === 'embedding' && e.data.done > 0);
    expect(embedding.data.done).toBeLessThan(CHUNKS);
    await signalAndWait(api, 'SIGKILL');
    const embedKilledAt = Date.now();
    expect(await embedAnswer).toHaveProperty('message', 'fetch failed');

    api = await spawnApi(env);
    const embedEvents = await (await openEventStream(`${api.baseUrl}/api/jobs/${embedJob.id}/events`, bearer)).ended;
    const embedResult = {
      libraryId: 'durable/lib',
      processed: CHUNKS,
      total: CHUNKS,
      offset: 0,
      nextOffset: null,
      done: true,
    };
    expect(embedEvents[embedEvents.length - 1]).toEqual({ event: 'completed', data: embedResult });
    const embedded = await readJob(api.baseUrl, embedJob.id);
    expect(embedded).toMatchObject({
      state: 'completed',
      result: embedResult,
      progress: { phase: 'done', done: CHUNKS, total: CHUNKS },
    });
    expect(Date.parse(embedded.finishedAt)).toBeGreaterThan(embedKilledAt);

    expect(await adapters.libraries.countChunks('durable/lib')).toBe(CHUNKS);
    expect(await adapters.vectors.count('durable/lib')).toBe(CHUNKS);
    expect(await adapters.backups.list('durable/lib')).toHaveLength(1);
  }, 150_000);

  it('SIGTERM ends open event streams, so the API stops at once while the job goes on', async () => {
    const bearer = { authorization: `Bearer ${await createKeyVia(api!.baseUrl, await loginCookie(api!.baseUrl))}` };
    const accepted = await postJson(
      `${api!.baseUrl}/api/embed`,
      { libraryId: 'durable/lib', limit: CHUNKS },
      { ...bearer, prefer: 'respond-async' },
    );
    expect(accepted.status).toBe(202);
    const stream = await openEventStream(`${api!.baseUrl}${accepted.body.statusUrl}/events`, bearer);
    await stream.next((e) => e.event === 'progress');
    const exit = await signalAndWait(api!, 'SIGTERM');
    expect(exit).toMatchObject({ code: 0, signal: null });
    expect(exit.ms).toBeLessThan(5_000);
    const events = await stream.ended;
    expect(events.every((e) => e.event === 'progress')).toBe(true);

    api = await spawnApi(env);
    const ended = await (await openEventStream(`${api.baseUrl}${accepted.body.statusUrl}/events`, bearer)).ended;
    expect(ended[ended.length - 1]).toMatchObject({ event: 'completed', data: { processed: CHUNKS, done: true } });
  }, 120_000);
});

async function waitFor(condition: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
