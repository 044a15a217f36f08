/**
 * Big libraries (`npm run bench -- big-library`): a library ingested through POST /api/ingest in requests of 5,000
 * chunks, with the time of each 10,000 (the first 10,000 are the baseline of the rest); its embedding with the default
 * embedder (learning and peak memory apart); and search latency at each size against the bare FTS5 BM25 query over the
 * same data in the same run; the vector side alone against the exact scan, with the graph's recall. Each size is a
 * service of its own, so the bare query sees only that library. The text is about topics (see topicalWords).
 * `BIG_LIBRARY_SIZES` (default `10000,100000,200000`) and `BIG_LIBRARY_WORDS` (words a chunk, default 200) resize it.
 */
import path from 'node:path';
import { openSqliteDatabase, SqliteFtsKeywordIndex, SqliteVecVectorIndex, type PrunedPlan } from '@docshelf/adapters';
import { queryTerms, searchDocs } from '@docshelf/core';
import request from 'supertest';
import { startHarness, type Harness } from '@docshelf/testing/e2e/harness';
import { latencies, matchOf, percentile, random, topicalQuestions, topicalWords } from './search.bench';

type Text = ReturnType<typeof topicalWords>;

const REQUEST_CHUNKS = 5_000;
const WINDOW = 10_000;
const QUESTIONS = 200;

const sizes = (process.env.BIG_LIBRARY_SIZES ?? '10000,100000,200000').split(',').map(Number);
const WORDS = Number(process.env.BIG_LIBRARY_WORDS ?? 200);

const seconds = (from: bigint) => Number(process.hrtime.bigint() - from) / 1e9;
const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(0);

/** The process's peak resident memory so far, from the kernel (it never goes down). */
const peakRss = () => process.resourceUsage().maxRSS * 1024;

/** The highest resident memory of the process while `work` runs, sampled every 100 ms (learning runs in a thread). */
async function peakRssDuring<T>(work: () => Promise<T>): Promise<{ value: T; peak: number }> {
  let peak = process.memoryUsage().rss;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 100);
  try {
    const value = await work();
    return { value, peak: Math.max(peak, process.memoryUsage().rss) };
  } finally {
    clearInterval(sampler);
  }
}

/** The `n`th chunk of a big library: pages of 20 chunks, each page about one of the text's topics. */
export function topicalChunk(text: Text, n: number, words: number) {
  const page = Math.floor(n / 20);
  const draw = () => text.draw(page % text.topics);
  return {
    id: `c${n}`,
    title: `Page ${page} › Section ${n % 20} ${draw()} ${draw()}`,
    content: Array.from({ length: words }, draw).join(' '),
    url: `https://docs.bench/page-${page}`,
  };
}

/** Ingests `size` chunks in requests of 5,000; answers the seconds each 10,000 took. */
async function ingest(h: Harness, auth: Record<string, string>, libraryId: string, size: number, text: Text) {
  const windows: number[] = [];
  let windowStarted = process.hrtime.bigint();
  for (let sent = 0; sent < size; sent += REQUEST_CHUNKS) {
    const chunks = Array.from({ length: Math.min(REQUEST_CHUNKS, size - sent) }, (_, i) =>
      topicalChunk(text, sent + i, WORDS),
    );
    await request(h.app)
      .post('/api/ingest')
      .set(auth)
      .send({ libraryId, name: 'Big library', chunks, skipEmbeddings: true })
      .expect(200);
    if ((sent + REQUEST_CHUNKS) % WINDOW === 0 || sent + REQUEST_CHUNKS >= size) {
      windows.push(seconds(windowStarted));
      windowStarted = process.hrtime.bigint();
    }
  }
  return windows;
}

/**
 * The keyword index's latency when another library is written before each question (one chunk through the API, on the
 * service's connection, as a crawl beside searches would): what it keeps between searches is read again after a write.
 */
async function searchesDuringWrites(
  h: Harness,
  auth: Record<string, string>,
  questions: string[],
  search: (q: string) => Promise<unknown>,
) {
  const times: number[] = [];
  for (const [n, q] of questions.entries()) {
    const chunk = { id: `n${n}`, content: `Neighbour note ${n}: ${q}`, url: `https://neighbour.bench/${n}` };
    await request(h.app)
      .post('/api/ingest')
      .set(auth)
      .send({ libraryId: 'big/neighbour', name: 'Neighbour', chunks: [chunk], skipEmbeddings: true })
      .expect(200);
    const started = process.hrtime.bigint();
    await search(q);
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p99: percentile(times, 99) };
}

async function benchSize(size: number): Promise<string> {
  const h = await startHarness({ JOB_WAIT_TIMEOUT_MS: String(60 * 60_000) });
  try {
    const auth = { Authorization: `Bearer ${await h.createKey('admin')}` };
    const libraryId = `big/library-${size}`;
    const next = random(size);
    // Pages of 20 chunks, each page about one of size / 200 topics (ten pages a topic).
    const text = topicalWords(next, Math.max(10, size / 200));

    const ingestStarted = process.hrtime.bigint();
    const windows = await ingest(h, auth, libraryId, size, text);
    const ingestSeconds = seconds(ingestStarted);
    if (windows.length > 1) {
      console.log(`\ningesting ${size.toLocaleString('en')} chunks x ${WORDS} words, requests of 5,000 (s a 10,000):`);
      console.log(`  ${windows.map((s) => s.toFixed(1)).join(' ')}`);
      console.log(
        `  first ${windows[0]!.toFixed(1)} s, last ${windows.at(-1)!.toFixed(1)} s: last/first ${(windows.at(-1)! / windows[0]!).toFixed(2)} ` +
          `(target <= 1.5); all ${ingestSeconds.toFixed(0)} s; process peak RSS ${mb(peakRss())} MB`,
      );
    }

    // Learning apart: the first document embedding learns the library's space.
    const [first] = await h.adapters.libraries.listChunks(libraryId, { offset: 0, limit: 1 });
    const rssBefore = process.memoryUsage().rss;
    const learnStarted = process.hrtime.bigint();
    const learning = await peakRssDuring(() =>
      h.adapters.embedder.embed([first!.content], { libraryId, kind: 'document' }),
    );
    const learnSeconds = seconds(learnStarted);
    const embedStarted = process.hrtime.bigint();
    const embedding = await peakRssDuring(() =>
      request(h.app).post('/api/embed').set(auth).send({ libraryId, all: true }).expect(200),
    );
    const embedSeconds = seconds(embedStarted);
    const embedPeak = Math.max(learning.peak, embedding.peak);

    // The service's vectors in memory before the questions: a library past VECTOR_GRAPH_MIN_CHUNKS as its graph.
    const vectors = h.adapters.vectors as SqliteVecVectorIndex;
    const warmStarted = process.hrtime.bigint();
    const searchPath = await vectors.warm(libraryId);
    const warmSeconds = seconds(warmStarted);

    const db = openSqliteDatabase(path.join(h.config.dataDir, 'docshelf.sqlite'));
    const bare = db.prepare(
      'SELECT rowid, bm25(chunk_search) AS score FROM chunk_search WHERE chunk_search MATCH ? ORDER BY score LIMIT 10',
    );
    const questions = topicalQuestions(next, text, QUESTIONS);
    // The vector side alone: the service's index against the exact scan of the same vectors, same question vectors.
    const exact = new SqliteVecVectorIndex(db, h.adapters.embedder.dimensions, {
      graphMinVectors: 0,
      cacheBytes: 2 ** 31,
    });
    await exact.warm(libraryId);
    const questionVectors = new Map<string, number[]>();
    for (const q of questions) {
      const [vector] = await h.adapters.embedder.embed([q], { libraryId, kind: 'query' });
      questionVectors.set(q, vector!);
    }
    let found = 0;
    for (const vector of questionVectors.values()) {
      const truth = new Set((await exact.query(libraryId, vector, 40)).map((m) => m.chunkId));
      found += (await vectors.query(libraryId, vector, 40)).filter((m) => truth.has(m.chunkId)).length;
    }
    const recall = found / (40 * questionVectors.size);
    // The keyword index alone on the benchmark's own connection, top 40 as the search use case asks of it.
    const plans: PrunedPlan[] = [];
    const index = new SqliteFtsKeywordIndex(db, { onPlan: (plan) => plans.push(plan) });
    const t = await latencies(questions, {
      bare: (q) => bare.all(matchOf(q)),
      index: (q) => index.search({ terms: queryTerms(q), libraryIds: [libraryId], limit: 40 }),
      vectors: (q) => vectors.query(libraryId, questionVectors.get(q)!, 40),
      exact: (q) => exact.query(libraryId, questionVectors.get(q)!, 40),
      keyword: (q) => searchDocs(h.adapters, { query: q, libraryIds: [libraryId], limit: 10, mode: 'keyword' }),
      hybrid: (q) => searchDocs(h.adapters, { query: q, libraryIds: [libraryId], limit: 10 }),
    });
    const writing = await searchesDuringWrites(h, auth, questions, (q) =>
      index.search({ terms: queryTerms(q), libraryIds: [libraryId], limit: 40 }),
    );
    await exact.close();
    db.close();
    const ms = (x: number) => x.toFixed(1).padStart(7);
    const scored = plans.map((plan) => plan.scored).sort((a, b) => a - b);
    const pruned = plans.filter((plan) => plan.pruned).length / plans.length;
    return (
      `| ${size.toLocaleString('en').padStart(7)} | ${ms(t.bare.p50)} / ${ms(t.bare.p99)} | ${ms(t.index.p50)} / ${ms(t.index.p99)} ` +
      `| ${(pruned * 100).toFixed(0)}%, ${scored[Math.floor(scored.length / 2)]!.toLocaleString('en')} ` +
      `| ${ms(writing.p50)} / ${ms(writing.p99)} | ${ms(t.exact.p50)} / ${ms(t.exact.p99)} | ${searchPath} ${warmSeconds.toFixed(1)} s: ${ms(t.vectors.p50)} / ${ms(t.vectors.p99)}, recall ${recall.toFixed(3)} ` +
      `| ${ms(t.keyword.p50)} / ${ms(t.keyword.p99)} ` +
      `| ${ms(t.hybrid.p50)} / ${ms(t.hybrid.p99)} | ${(t.hybrid.p50 / t.bare.p50).toFixed(2)}x | ${learnSeconds.toFixed(1)} s ` +
      `| ${embedSeconds.toFixed(0)} s | ${mb(rssBefore)} → ${mb(embedPeak)} MB |`
    );
  } finally {
    await h.close();
  }
}

export async function benchBigLibrary(): Promise<void> {
  const rows: string[] = [];
  for (const size of sizes) {
    rows.push(await benchSize(size));
    console.log(rows.at(-1));
  }
  console.log(
    `\nsearch over libraries of ${WORDS}-word chunks (pages of 20 chunks about one of size / 200 topics: 30% of words from 40 of the topic's own, the rest Zipf over 20,000 words; questions half topic words), ${QUESTIONS} questions, p50 / p99 in ms;` +
      ' the keyword index alone (top 40, pruned: the share of questions answered without the full query, and the median' +
      " chunks it scored); the vector side alone, top 40: the exact in-memory scan, and the service's index (a library" +
      ' past VECTOR_GRAPH_MIN_CHUNKS as an HNSW graph, its build time, its recall of the exact top 40);' +
      ' embedding with the default embedder (learning apart);' +
      ' RSS of the whole process (API, worker, learning thread) before embedding and its peak while embedding',
  );
  console.log(
    '|  chunks | bare FTS5 p50 / p99 | keyword index p50 / p99 | pruned, chunks scored p50 | keyword index during writes p50 / p99 | exact vector scan p50 / p99 | vector index: path, load, p50 / p99, recall@40 | keyword search p50 / p99 | hybrid p50 / p99 | hybrid/bare | learn | embed | RSS → peak |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const row of rows) console.log(row);
}
