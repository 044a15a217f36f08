import path from 'node:path';
import Database from 'better-sqlite3';
import { loadConfig } from '@docshelf/config';
import {
  cleanUpOpsEnv,
  createKeyVia,
  loginCookie,
  opsEnv,
  postJson,
  spawnApi,
  stopQuietly,
  type ApiProcess,
} from '@docshelf/testing/e2e/ops-processes';
import { recordFigure } from '@docshelf/testing/reliability/figures';

const chunks = (count: number, content = (i: number) => `Chunk ${i} says something.`) =>
  Array.from({ length: count }, (_, i) => ({ id: `c${i}`, content: content(i) }));

describe('Request limits: chunks per request, bytes per chunk, URL length (a real API process)', () => {
  const LIMITS = { chunks: 100, bytes: 2_000, url: 300 };
  let env: Record<string, string>;
  let api: ApiProcess | undefined;
  let bearer: Record<string, string>;

  beforeAll(async () => {
    env = opsEnv({
      MAX_CHUNKS_PER_REQUEST: String(LIMITS.chunks),
      MAX_CHUNK_BYTES: String(LIMITS.bytes),
      MAX_URL_LENGTH: String(LIMITS.url),
    });
    // No worker: an accepted request is answered 202 (queued); a refused one never reaches the queue.
    api = await spawnApi(env);
    bearer = {
      authorization: `Bearer ${await createKeyVia(api.baseUrl, await loginCookie(api.baseUrl))}`,
      prefer: 'respond-async',
    };
  }, 60_000);
  afterAll(async () => {
    await stopQuietly(api);
    await cleanUpOpsEnv(env);
  });

  const jobsOf = (libraryId: string): number => {
    const db = new Database(path.join(env.DATA_DIR!, 'docshelf.sqlite'), { readonly: true });
    try {
      return (db.prepare('SELECT COUNT(*) AS n FROM jobs WHERE library_id = ?').get(libraryId) as { n: number }).n;
    } finally {
      db.close();
    }
  };

  it('has defaults that fit the documented payloads', () => {
    expect(loadConfig({}).limits).toEqual({ chunksPerRequest: 10_000, chunkBytes: 100_000, urlLength: 4_096 });
    expect(() => loadConfig({ MAX_CHUNKS_PER_REQUEST: '0' })).toThrow(/MAX_CHUNKS_PER_REQUEST/);
    expect(() => loadConfig({ MAX_URL_LENGTH: '100000' })).toThrow(/MAX_URL_LENGTH/);
  });

  it('answers each limit with a clear 4xx that names it, writes nothing, and accepts what is just inside', async () => {
    const long = (length: number) =>
      `https://docs.example.com/${'a'.repeat(length - 'https://docs.example.com/'.length)}`;
    const ingest = (libraryId: string, body: object) =>
      postJson(`${api!.baseUrl}/api/ingest`, { libraryId, name: 'Limits', ...body }, bearer);
    const refused = [
      {
        answer: await ingest('limits/too-many', { chunks: chunks(LIMITS.chunks + 1) }),
        status: 413,
        code: 'TOO_MANY_CHUNKS',
        library: 'limits/too-many',
      },
      // 1,001 two-byte characters: under the limit in characters, over it in UTF-8 bytes.
      {
        answer: await ingest('limits/too-large', { chunks: chunks(3, (i) => (i === 1 ? 'é'.repeat(1_001) : 'small')) }),
        status: 413,
        code: 'CHUNK_TOO_LARGE',
        library: 'limits/too-large',
      },
      {
        answer: await ingest('limits/chunk-url', { chunks: [{ id: 'a', content: 'x', url: long(LIMITS.url + 1) }] }),
        status: 400,
        code: 'URL_TOO_LONG',
        library: 'limits/chunk-url',
      },
      {
        answer: await postJson(
          `${api!.baseUrl}/api/crawl`,
          { libraryId: 'limits/crawl', name: 'Crawl', urls: ['https://docs.example.com/', long(LIMITS.url + 1)] },
          bearer,
        ),
        status: 400,
        code: 'URL_TOO_LONG',
        library: 'limits/crawl',
      },
      {
        answer: await ingest('limits/callback', { chunks: chunks(1), callbackUrl: long(LIMITS.url + 1) }),
        status: 400,
        code: 'URL_TOO_LONG',
        library: 'limits/callback',
      },
    ];
    const query = await fetch(`${api!.baseUrl}/api/libraries?q=${'w'.repeat(LIMITS.url)}`);
    const queryBody = (await query.json()) as { code: string; error: string };

    for (const { answer, status, code, library } of refused) {
      expect(answer.status).toBe(status);
      expect(answer.body).toMatchObject({
        code,
        error: expect.stringMatching(/MAX_(CHUNKS_PER_REQUEST|CHUNK_BYTES|URL_LENGTH)/),
        details: expect.any(Array),
      });
      expect(jobsOf(library)).toBe(0);
    }
    expect(refused[0]!.answer.body.details).toEqual([
      { path: 'chunks', count: LIMITS.chunks + 1, limit: LIMITS.chunks },
    ]);
    expect(refused[1]!.answer.body.details).toEqual([{ path: 'chunks.1.content', bytes: 2_002, limit: LIMITS.bytes }]);
    expect(refused[3]!.answer.body.details).toEqual([{ path: 'urls.1', length: LIMITS.url + 1, limit: LIMITS.url }]);
    expect(query.status).toBe(414);
    expect(queryBody).toMatchObject({ code: 'URL_TOO_LONG', error: expect.stringContaining('MAX_URL_LENGTH') });

    // Exactly at each limit: accepted.
    const inside = [
      await ingest('limits/at-count', { chunks: chunks(LIMITS.chunks) }),
      await ingest('limits/at-bytes', { chunks: chunks(2, () => 'é'.repeat(1_000)) }),
      await ingest('limits/at-url', { chunks: [{ id: 'a', content: 'x', url: long(LIMITS.url) }] }),
    ];
    expect(inside.map((a) => a.status)).toEqual([202, 202, 202]);
    expect(jobsOf('limits/at-count') + jobsOf('limits/at-bytes') + jobsOf('limits/at-url')).toBe(3);

    recordFigure({
      scenario: 'request limits: chunks, bytes per chunk, URL length',
      requests: refused.length + 1 + inside.length,
      faults: 0,
      serverErrors:
        [...refused.map((r) => r.answer), ...inside].filter((a) => a.status >= 500).length +
        (query.status >= 500 ? 1 : 0),
      rowsLost: 0,
      duplicates: 0,
      note: `over: ${refused.map((r) => `${r.answer.status} ${r.code}`).join(', ')}, query 414; 0 jobs written; at the limit: 202 ×3`,
    });
  });
});
