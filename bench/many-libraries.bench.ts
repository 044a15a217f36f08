/**
 * Many libraries (`npm run bench -- many-libraries`): `MANY_LIBRARIES_CHUNKS` chunks (default 1,000,000) over
 * `MANY_LIBRARIES_COUNT` libraries (default 50), written through the record store in batches of 5,000 and embedded
 * through `POST /api/embed { all: true }` with `MANY_LIBRARIES_EMBEDDER` (default `local-hash`: the local embedder
 * that needs no learning, so fifty libraries embed in minutes); then questions searched across every library at once
 * and in one library at a time, keyword-only and hybrid, against the bare FTS5 query over the whole table.
 * `VECTOR_CACHE_MB` is the service's (default 256). `MANY_LIBRARIES_DATA_DIR` keeps the data in that folder, and a
 * later run finding it there written and embedded only searches (building it takes about 20 minutes).
 */
import fs from 'node:fs';
import path from 'node:path';
import { openSqliteDatabase, SqliteVecVectorIndex, type Database } from '@docshelf/adapters';
import { searchDocs } from '@docshelf/core';
import request from 'supertest';
import { startHarness, type Harness } from '@docshelf/testing/e2e/harness';
import { latencies, matchOf, random, topicalQuestions, topicalWords } from './search.bench';

const TOTAL = Number(process.env.MANY_LIBRARIES_CHUNKS ?? 1_000_000);
const LIBRARIES = Number(process.env.MANY_LIBRARIES_COUNT ?? 50);
const EMBEDDER = process.env.MANY_LIBRARIES_EMBEDDER ?? 'local-hash';
const WORDS = 200;
const BATCH = 5_000;
const QUESTIONS = 100;
const KEPT_DIR = process.env.MANY_LIBRARIES_DATA_DIR;

const seconds = (from: bigint) => Number(process.hrtime.bigint() - from) / 1e9;
const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(0);

/**
 * The most resident memory of each kind while the sampler runs (every 100 ms, from /proc/self/status): anonymous
 * (what the process allocated) apart from file-backed (mapped files, which the kernel may take back at any time).
 */
function sampleMemory(): { stop(): { anon: number; file: number } } {
  const most = { anon: 0, file: 0 };
  const sample = () => {
    const status = fs.readFileSync('/proc/self/status', 'utf8');
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024;
    most.anon = Math.max(most.anon, kb('RssAnon'));
    most.file = Math.max(most.file, kb('RssFile'));
  };
  sample();
  const timer = setInterval(sample, 100);
  return {
    stop: () => {
      clearInterval(timer);
      sample();
      return most;
    },
  };
}

export async function benchManyLibraries(): Promise<void> {
  const h = await startHarness({
    JOB_WAIT_TIMEOUT_MS: String(60 * 60_000),
    EMBEDDER,
    ...(KEPT_DIR ? { DATA_DIR: KEPT_DIR } : {}),
    ...(process.env.VECTOR_CACHE_MB ? { VECTOR_CACHE_MB: process.env.VECTOR_CACHE_MB } : {}),
  });
  try {
    const auth = { Authorization: `Bearer ${await h.createKey('admin')}` };
    const next = random(TOTAL + LIBRARIES);
    const perLibrary = Math.ceil(TOTAL / LIBRARIES);
    // As in big-library: pages of 20 chunks about one of a topic per 200 chunks, each library its own topics.
    const text = topicalWords(next, Math.max(10, Math.floor(TOTAL / 200)));
    const ids = Array.from({ length: LIBRARIES }, (_, i) => `many/library-${i}`);

    const kept = (await h.adapters.vectors.count(ids.at(-1)!)) === perLibrary;
    const writeStarted = process.hrtime.bigint();
    for (const [l, libraryId] of kept ? [] : ids.entries()) {
      const draw = (chunk: number) => text.draw(Math.floor((l * perLibrary + chunk) / 20) % text.topics);
      for (let written = 0; written < perLibrary; written += BATCH) {
        await h.adapters.libraries.commitIngestion({
          library: { id: libraryId, name: libraryId, sourceType: 'json' },
          ownerId: 'bench',
          chunks: Array.from({ length: Math.min(BATCH, perLibrary - written) }, (_, i) => ({
            id: `c${written + i}`,
            title: `Page ${Math.floor((written + i) / 20)} › Section ${(written + i) % 20} ${draw(written + i)} ${draw(written + i)}`,
            content: Array.from({ length: WORDS }, () => draw(written + i)).join(' '),
            url: `https://docs.bench/${libraryId}/page-${Math.floor((written + i) / 20)}`,
          })),
          replace: false,
          ingestionId: `bench-${written}`,
          now: new Date(),
        });
      }
    }
    const writeSeconds = seconds(writeStarted);
    const embedStarted = process.hrtime.bigint();
    for (const libraryId of kept ? [] : ids) {
      await request(h.app).post('/api/embed').set(auth).send({ libraryId, all: true }).expect(200);
    }
    const embedSeconds = seconds(embedStarted);
    console.log(
      kept
        ? `\n${(perLibrary * LIBRARIES).toLocaleString('en')} chunks over ${LIBRARIES} libraries found in ${KEPT_DIR}`
        : `\n${(perLibrary * LIBRARIES).toLocaleString('en')} chunks over ${LIBRARIES} libraries written in ${writeSeconds.toFixed(0)} s, ` +
            `embedded with ${EMBEDDER} in ${embedSeconds.toFixed(0)} s`,
    );

    // Every library's vectors in memory before the questions, as searches would leave them: matrices while they fit
    // VECTOR_CACHE_MB, then graphs (built now, or found built by an earlier run on the same data).
    const vectors = h.adapters.vectors as SqliteVecVectorIndex;
    const warmStarted = process.hrtime.bigint();
    for (const libraryId of ids) await vectors.warm(libraryId);
    const warmSeconds = seconds(warmStarted);
    // Asked again, at once: how each library is held when all are searched together.
    const paths: Record<string, number> = {};
    for (const searchPath of await Promise.all(ids.map((id) => vectors.warm(id)))) {
      paths[searchPath] = (paths[searchPath] ?? 0) + 1;
    }

    const db = openSqliteDatabase(path.join(h.config.dataDir, 'docshelf.sqlite'));
    const bare = db.prepare(
      'SELECT rowid, bm25(chunk_search) AS score FROM chunk_search WHERE chunk_search MATCH ? ORDER BY score LIMIT 10',
    );
    // Questions from a source of their own (the same topics, drawn afresh), alike whether this run wrote the text.
    const asked = random(TOTAL + LIBRARIES);
    const questions = topicalQuestions(asked, topicalWords(asked, text.topics), QUESTIONS);
    let turn = 0;
    const oneLibrary = () => [ids[turn++ % ids.length]!];
    const memory = sampleMemory();
    const t = await latencies(questions, {
      bare: (q) => bare.all(matchOf(q)),
      keywordAll: (q) => searchDocs(h.adapters, { query: q, libraryIds: [], limit: 10, mode: 'keyword' }),
      vectorAll: (q) => searchDocs(h.adapters, { query: q, libraryIds: [], limit: 10, mode: 'vector' }),
      hybridAll: (q) => searchDocs(h.adapters, { query: q, libraryIds: [], limit: 10 }),
      keywordOne: (q) => searchDocs(h.adapters, { query: q, libraryIds: oneLibrary(), limit: 10, mode: 'keyword' }),
      hybridOne: (q) => searchDocs(h.adapters, { query: q, libraryIds: oneLibrary(), limit: 10 }),
    });
    const used = memory.stop();
    // After the timing: the exact scan it compares with holds every library's vectors in memory.
    const recall = await recallOverAll(h, db, ids, questions);
    db.close();
    const ms = (x: { p50: number; p99: number }) => `${x.p50.toFixed(1)} / ${x.p99.toFixed(1)}`;
    console.log(
      `${QUESTIONS} questions, p50 / p99 in ms (VECTOR_CACHE_MB ${h.config.embedding.vectorCacheBytes / 2 ** 20})`,
    );
    const held = Object.entries(paths)
      .map(([searchPath, count]) => `${count} ${searchPath}`)
      .join(', ');
    console.log(
      '| chunks | libraries | bare FTS5, whole table | keyword, all | vector, all | hybrid, all | keyword, one | hybrid, one | vectors held (warm-up) | recall@40, all |',
    );
    console.log('|---|---|---|---|---|---|---|---|---|---|');
    console.log(
      `| ${(perLibrary * LIBRARIES).toLocaleString('en')} | ${LIBRARIES} | ${ms(t.bare)} | ${ms(t.keywordAll)} ` +
        `| ${ms(t.vectorAll)} | ${ms(t.hybridAll)} | ${ms(t.keywordOne)} | ${ms(t.hybridOne)} ` +
        `| ${held} (${warmSeconds.toFixed(0)} s) | ${recall.toFixed(3)} |`,
    );
    console.log(
      `process memory while the questions ran, at most: ${mb(used.anon)} MB anonymous (heaps, held matrices, models), ` +
        `${mb(used.file)} MB of mapped files (graphs, SQLite) in its resident set`,
    );
  } finally {
    await h.close();
  }
}

/**
 * The share of the exact top 40 over every library (each library's exact scan, merged by score) that the service's
 * vector index finds for the same question vectors: its matrices are exact, its graphs approximate.
 */
async function recallOverAll(h: Harness, db: Database, ids: string[], questions: string[]): Promise<number> {
  const exact = new SqliteVecVectorIndex(db, h.adapters.embedder.dimensions, {
    graphMinVectors: 0,
    cacheBytes: 2 ** 32,
  });
  const top = (lists: { chunkId: string; score: number }[][]) =>
    lists
      .flatMap((list, l) => list.map((m) => ({ key: `${ids[l]}\u0000${m.chunkId}`, score: m.score })))
      .sort((a, b) => b.score - a.score)
      .slice(0, 40)
      .map((m) => m.key);
  let found = 0;
  let wanted = 0;
  try {
    for (const question of questions.slice(0, 40)) {
      // Each library's question vector: a learning embedder places a question by each library's own model.
      const vectors = await Promise.all(
        ids.map(async (id) => (await h.adapters.embedder.embed([question], { libraryId: id, kind: 'query' }))[0]!),
      );
      const truth = top(await Promise.all(ids.map((id, l) => exact.query(id, vectors[l]!, 40))));
      const served = new Set(top(await Promise.all(ids.map((id, l) => h.adapters.vectors.query(id, vectors[l]!, 40)))));
      found += truth.filter((key) => served.has(key)).length;
      wanted += truth.length;
    }
  } finally {
    await exact.close();
  }
  return found / wanted;
}
