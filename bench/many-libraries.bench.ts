/**
 * Many libraries (`npm run bench -- many-libraries`): `MANY_LIBRARIES_CHUNKS` chunks (default 1,000,000) over
 * `MANY_LIBRARIES_COUNT` libraries (default 50), written through the record store in batches of 5,000 and embedded
 * through `POST /api/embed { all: true }` with `MANY_LIBRARIES_EMBEDDER` (default `local-hash`: the local embedder
 * that needs no learning, so fifty libraries embed in minutes); then questions searched across every library at once
 * and in one library at a time, keyword-only and hybrid, against the bare FTS5 query over the whole table.
 * `MANY_LIBRARIES_DATA_DIR` keeps the data in that folder, and a later run finding it there written and embedded only
 * searches (building it takes about 20 minutes).
 */
import path from 'node:path';
import { openSqliteDatabase } from '@docshelf/adapters';
import { searchDocs } from '@docshelf/core';
import request from 'supertest';
import { startHarness } from '../test/support/harness';
import { latencies, matchOf, random, topicalQuestions, topicalWords } from './search.bench';

const TOTAL = Number(process.env.MANY_LIBRARIES_CHUNKS ?? 1_000_000);
const LIBRARIES = Number(process.env.MANY_LIBRARIES_COUNT ?? 50);
const EMBEDDER = process.env.MANY_LIBRARIES_EMBEDDER ?? 'local-hash';
const WORDS = 200;
const BATCH = 5_000;
const QUESTIONS = 100;
const KEPT_DIR = process.env.MANY_LIBRARIES_DATA_DIR;

const seconds = (from: bigint) => Number(process.hrtime.bigint() - from) / 1e9;

export async function benchManyLibraries(): Promise<void> {
  const h = await startHarness({
    JOB_WAIT_TIMEOUT_MS: String(60 * 60_000),
    EMBEDDER,
    ...(KEPT_DIR ? { DATA_DIR: KEPT_DIR } : {}),
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
        await h.adapters.records.commitIngestion({
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

    const db = openSqliteDatabase(path.join(h.config.dataDir, 'docshelf.sqlite'));
    const bare = db.prepare(
      'SELECT rowid, bm25(chunk_search) AS score FROM chunk_search WHERE chunk_search MATCH ? ORDER BY score LIMIT 10',
    );
    // Questions from a source of their own (the same topics, drawn afresh), alike whether this run wrote the text.
    const asked = random(TOTAL + LIBRARIES);
    const questions = topicalQuestions(asked, topicalWords(asked, text.topics), QUESTIONS);
    let turn = 0;
    const oneLibrary = () => [ids[turn++ % ids.length]!];
    const t = await latencies(questions, {
      bare: (q) => bare.all(matchOf(q)),
      keywordAll: (q) => searchDocs(h.adapters, { query: q, libraryIds: [], limit: 10, mode: 'keyword' }),
      hybridAll: (q) => searchDocs(h.adapters, { query: q, libraryIds: [], limit: 10 }),
      keywordOne: (q) => searchDocs(h.adapters, { query: q, libraryIds: oneLibrary(), limit: 10, mode: 'keyword' }),
      hybridOne: (q) => searchDocs(h.adapters, { query: q, libraryIds: oneLibrary(), limit: 10 }),
    });
    db.close();
    const ms = (x: { p50: number; p99: number }) => `${x.p50.toFixed(1)} / ${x.p99.toFixed(1)}`;
    console.log(
      `${QUESTIONS} questions, p50 / p99 in ms (VECTOR_CACHE_MB ${h.config.embedding.vectorCacheBytes / 2 ** 20})`,
    );
    console.log(
      '| chunks | libraries | bare FTS5, whole table | keyword, all | hybrid, all | keyword, one | hybrid, one |',
    );
    console.log('|---|---|---|---|---|---|---|');
    console.log(
      `| ${(perLibrary * LIBRARIES).toLocaleString('en')} | ${LIBRARIES} | ${ms(t.bare)} | ${ms(t.keywordAll)} ` +
        `| ${ms(t.hybridAll)} | ${ms(t.keywordOne)} | ${ms(t.hybridOne)} |`,
    );
  } finally {
    await h.close();
  }
}
