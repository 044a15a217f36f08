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
  type ApiProcess,
  type WorkerProcess,
} from '@docshelf/testing/e2e/ops-processes';

const CHUNKS = 5_000;

/** A worker killed without warning loses nothing: after the stall interval another worker runs its job again. */
describe('SIGKILL of a worker mid-job (real processes)', () => {
  // A short lock and stall check so the test waits seconds, not the production 30 s + 15 s. Not shorter: with a 4 s
  // lock, a loaded machine once failed the job 3.6 s after the kill, most likely because embedding 4096-dimension
  // vectors delayed a live worker's lock renewal, so the job had stalled once before the kill.
  const env = opsEnv({
    EMBEDDING_DIMENSIONS: '4096',
    JOB_WAIT_TIMEOUT_MS: '110000',
    WORKER_LOCK_DURATION_MS: '10000',
    WORKER_STALLED_INTERVAL_MS: '2000',
  });
  let api: ApiProcess | undefined;
  let workers: WorkerProcess[] = [];
  let adapters: Adapters;

  beforeAll(async () => {
    [api, ...workers] = await Promise.all([spawnApi(env), spawnWorker(env), spawnWorker(env)]);
    adapters = buildAdapters(loadConfig({ DATA_DIR: env.DATA_DIR, EMBEDDING_DIMENSIONS: '4096' }));
  }, 60_000);

  afterAll(async () => {
    await adapters?.close();
    await Promise.all([stopQuietly(api), ...workers.map(stopQuietly)]);
    await cleanUpOpsEnv(env);
  });

  it('the job completes on the other worker and nothing is duplicated', async () => {
    const bearer = { authorization: `Bearer ${await createKeyVia(api!.baseUrl, await loginCookie(api!.baseUrl))}` };
    const ingest = await postJson(
      `${api!.baseUrl}/api/ingest`,
      { libraryId: 'crash/test', name: 'Crash', skipEmbeddings: true, chunks: makeChunks(CHUNKS, { words: 200 }) },
      bearer,
    );
    expect(ingest.body).toMatchObject({ success: true, vectorized: false });

    const embed = postJson(`${api!.baseUrl}/api/embed`, { libraryId: 'crash/test', limit: CHUNKS }, bearer);
    const victim = await waitForActiveJob(workers);
    const survivor = workers.find((w) => w !== victim)!;
    await new Promise((r) => setTimeout(r, 300)); // well into the job: some vectors are written
    const killed = await signalAndWait(victim, 'SIGKILL');
    expect(killed.signal).toBe('SIGKILL');
    const killedAt = Date.now();

    const answer = await embed;
    const recoveryMs = Date.now() - killedAt;
    console.log(
      `ops figures: SIGKILL mid-job -> answer from the other worker ${recoveryMs} ms later (lock 10000 ms, stall check every 2000 ms)`,
    );
    // On a failure, the answer and the survivor's log say why.
    expect({
      status: answer.status,
      body: answer.body,
      survivor: answer.status === 200 ? '' : survivor.output(),
    }).toMatchObject({
      status: 200,
      body: { libraryId: 'crash/test', processed: CHUNKS, total: CHUNKS, done: true },
    });
    expect(victim.output()).not.toMatch(/"job":"embed-range".*"outcome":"completed"/);
    // The API may hear of the completion before the survivor's log line reaches this process.
    await survivor.waitForOutput(/"job":"embed-range".*"outcome":"completed"/, 10_000);

    // Nothing duplicated: one vector per chunk, one library, the one backup of the one ingestion.
    const library = (await (await fetch(`${api!.baseUrl}/api/libraries/crash/test`)).json()) as {
      library: { chunkCount: number };
      chunks: unknown[];
    };
    expect(library.library.chunkCount).toBe(CHUNKS);
    expect(library.chunks).toHaveLength(CHUNKS);
    expect(await adapters.libraries.countChunks('crash/test')).toBe(CHUNKS);
    expect(await adapters.vectors.count('crash/test')).toBe(CHUNKS);
    expect(await adapters.backups.list('crash/test')).toHaveLength(1);
    const probe = makeChunks(1, { words: 200 })[0]!;
    const [best] = await adapters.vectors.query(
      'crash/test',
      (
        await adapters.embedder.embed([`${probe.title}\n\n${probe.content}`], {
          libraryId: 'crash/test',
          kind: 'query',
        })
      )[0]!,
      1,
    );
    expect(best).toMatchObject({ chunkId: 'c0000' });
  }, 120_000);
});
