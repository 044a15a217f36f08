/**
 * Search latency over a 10,000-chunk library: GET /api/search (hybrid) and the search use case in-process, against a
 * bare FTS5 BM25 query on the same SQLite file, the same questions, one run. The variants take turns every ten
 * questions, so a change of the machine's load during the run falls on all of them alike.
 */
import path from 'node:path';
import { GENERAL_MODEL_FILE, loadGeneralModel, openSqliteDatabase, readGeneralTermShares } from '@docshelf/adapters';
import { embedChunks, queryTerms, searchDocs } from '@docshelf/core';
import request from 'supertest';
import type { Harness } from '@docshelf/testing/e2e/harness';

const LIBRARY = 'bench/search';
const CHUNKS = 10_000;
const WORDS_PER_CHUNK = 400;
const VOCABULARY = 20_000;
const QUESTIONS = 200;

/** A deterministic pseudo-random source, so every run searches the same text with the same questions. */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), state | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Words drawn with Zipf frequencies over a 20,000-word vocabulary, as words of real text are. */
export const wordOf = (rank: number) => `w${rank.toString(36)}${'aeiou'[rank % 5]}${rank % 7 === 0 ? 'Sync' : ''}`;
export const FREQUENT = new Set(Array.from({ length: 50 }, (_, rank) => wordOf(rank)));

export function zipfWords(next: () => number): () => string {
  const weights = Array.from({ length: VOCABULARY }, (_, rank) => 1 / (rank + 1));
  const total = weights.reduce((a, b) => a + b, 0);
  const cumulative: number[] = [];
  weights.reduce((sum, w, i) => (cumulative[i] = sum + w / total), 0);
  const word = wordOf;
  return () => {
    const x = next();
    let lo = 0;
    let hi = VOCABULARY - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    return word(lo);
  };
}

/**
 * Text about topics, as documentation is: each topic has 40 words of its own (drawn from the rarer half of the
 * vocabulary), and a chunk of a topic takes 30% of its words from them, the rest by Zipf over the whole vocabulary.
 * Without topics every chunk is as near any question as any other (nearest neighbours are noise, which no vector
 * index can find faster than by reading everything); with them, chunks of a topic are neighbours, as in real docs.
 */
export function topicalWords(next: () => number, topics: number) {
  const any = zipfWords(next);
  const words = Array.from({ length: topics }, () =>
    Array.from({ length: 40 }, () => wordOf(VOCABULARY / 2 + Math.floor((next() * VOCABULARY) / 2))),
  );
  const own = (topic: number) => words[topic]![Math.floor(next() * 40)]!;
  return { topics, own, any, draw: (topic: number) => (next() < 0.3 ? own(topic) : any()) };
}

/** Questions of 4–8 words about one topic each: half the topic's own words, half other words of the text. */
export function topicalQuestions(next: () => number, text: ReturnType<typeof topicalWords>, count: number): string[] {
  return Array.from({ length: count }, () => {
    const topic = Math.floor(next() * text.topics);
    const words: string[] = [];
    const length = 4 + Math.floor(next() * 5);
    while (words.length < length) {
      const word = words.length % 2 === 0 ? text.own(topic) : text.any();
      if (!FREQUENT.has(word)) words.push(word);
    }
    return words.join(' ');
  });
}

/** The p-th percentile of values sorted ascending (the value at rank floor(p% of n)). */
export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** A search variant: synchronous or not, its answer is awaited. */
export type Variant = (q: string) => unknown;

/** Questions each variant runs in one turn: enough that SQLite's page cache no longer holds the previous variant's pages. */
const TURN = 10;

/**
 * p50 and p99 of each variant over the questions (after 20 warm-up questions). The variants take turns: each runs
 * the next ten questions, then the next variant the same ten, the order of the variants rotating from turn to turn.
 */
export async function latencies<K extends string>(
  questions: string[],
  variants: Record<K, Variant>,
): Promise<Record<K, { p50: number; p99: number }>> {
  const names = Object.keys(variants) as K[];
  for (const q of questions.slice(0, 20)) for (const name of names) await variants[name](q);
  const times = new Map<K, number[]>(names.map((name) => [name, []]));
  for (let start = 0, turn = 0; start < questions.length; start += TURN, turn++) {
    for (let j = 0; j < names.length; j++) {
      const name = names[(turn + j) % names.length]!;
      for (const q of questions.slice(start, start + TURN)) {
        const started = process.hrtime.bigint();
        await variants[name](q);
        times.get(name)!.push(Number(process.hrtime.bigint() - started) / 1e6);
      }
    }
  }
  const figures = {} as Record<K, { p50: number; p99: number }>;
  for (const [name, list] of times) {
    list.sort((a, b) => a - b);
    figures[name] = { p50: percentile(list, 50), p99: percentile(list, 99) };
  }
  return figures;
}

/**
 * Questions of 4–8 words from the text's vocabulary, without its 50 most frequent words: a question's stop words are
 * dropped before it is searched, and what is left is rarer than the average word of the text.
 */
export function makeQuestions(next: () => number, draw: () => string, count: number): string[] {
  return Array.from({ length: count }, () => {
    const words: string[] = [];
    while (words.length < 4 + Math.floor(next() * 5)) {
      const word = draw();
      if (!FREQUENT.has(word)) words.push(word);
    }
    return words.join(' ');
  });
}

/** The FTS5 query of a question's terms, any of them (what the keyword side asks of the index). */
export const matchOf = (q: string) =>
  queryTerms(q)
    .map((t) => `"${t}"`)
    .join(' OR ');

export async function benchSearch(h: Harness, auth: Record<string, string>): Promise<void> {
  const next = random(42);
  const draw = zipfWords(next);
  const chunks = Array.from({ length: CHUNKS }, (_, i) => ({
    id: `c${i}`,
    title: `Page ${i % 500} › Section ${Math.floor(i / 500)} ${draw()} ${draw()}`,
    content: Array.from({ length: WORDS_PER_CHUNK }, draw).join(' '),
    url: `https://docs.bench/page-${i % 500}`,
  }));
  let embedSeconds = NaN;
  if (!(await h.adapters.libraries.getLibrary(LIBRARY))) {
    await request(h.app)
      .post('/api/ingest')
      .set(auth)
      .send({ libraryId: LIBRARY, name: 'Search bench', chunks, skipEmbeddings: true })
      .expect(200);
    const stored = await h.adapters.libraries.listChunks(LIBRARY, { offset: 0, limit: CHUNKS });
    const fitStarted = Date.now();
    await embedChunks(h.adapters, LIBRARY, stored);
    embedSeconds = (Date.now() - fitStarted) / 1000;
  }
  const questions = makeQuestions(next, draw, QUESTIONS);

  // The bare query: BM25 over the FTS5 table alone, same terms, top 10, no library filter, no join, no text.
  const db = openSqliteDatabase(path.join(h.config.dataDir, 'docshelf.sqlite'));
  const bare = db.prepare(
    'SELECT rowid, bm25(chunk_search) AS score FROM chunk_search WHERE chunk_search MATCH ? ORDER BY score LIMIT 10',
  );
  const { bareTimes, useCase, keywordOnly, http } = await latencies(questions, {
    bareTimes: (q) => bare.all(matchOf(q)),
    useCase: (q) => searchDocs(h.adapters, { query: q, libraryIds: [LIBRARY], limit: 10 }),
    keywordOnly: (q) => searchDocs(h.adapters, { query: q, libraryIds: [LIBRARY], limit: 10, mode: 'keyword' }),
    http: (q) => request(h.app).get('/api/search').query({ q, libraryId: LIBRARY }).set(auth).expect(200),
  });
  db.close();

  console.log(
    `\nsearch over ${CHUNKS.toLocaleString('en')} chunks x ${WORDS_PER_CHUNK} words (Zipf over ${VOCABULARY.toLocaleString('en')} words), ` +
      `${QUESTIONS} questions; embedding the library with ${h.adapters.embedder.model} (learning included) took ${embedSeconds.toFixed(1)} s`,
  );
  const line = (name: string, t: { p50: number; p99: number }) =>
    console.log(
      `${name.padEnd(44)} p50 ${t.p50.toFixed(2).padStart(7)} ms  p99 ${t.p99.toFixed(2).padStart(7)} ms | ratio to bare FTS5 p50 ${(t.p50 / bareTimes.p50).toFixed(2)}x`,
    );
  line('bare FTS5 BM25 query (baseline)', bareTimes);
  line('search use case, keyword only', keywordOnly);
  line('search use case, hybrid', useCase);
  line('GET /api/search, hybrid (HTTP in-process)', http);
  printGeneralModelCost();
}

/**
 * What the general-language model costs a process: its corpus shares, which every keyword search of one library
 * blends with the library's own, and the whole model, which `EMBEDDER=local-general` embeds with; each read once, on
 * its first use. Memory is the resident set's growth across the load, after a collection where the flag allows one.
 */
function printGeneralModelCost(): void {
  const shares = measureLoad(readGeneralTermShares);
  console.log(
    `general-language model's corpus shares (keyword search's background, ${shares.value.size.toLocaleString('en')} terms): ${shares.cost}`,
  );
  const model = measureLoad(loadGeneralModel);
  console.log(
    `general-language model ${path.basename(GENERAL_MODEL_FILE)} (${model.value.vocabulary.length.toLocaleString('en')} terms x ` +
      `${model.value.dimensions}, EMBEDDER=local-general): ${model.cost}, holds ${(model.value.bytes / 2 ** 20).toFixed(0)} MB`,
  );
}

function measureLoad<T>(load: () => T): { value: T; cost: string } {
  globalThis.gc?.();
  const before = process.memoryUsage();
  const started = performance.now();
  const value = load();
  const loadMs = performance.now() - started;
  globalThis.gc?.();
  const after = process.memoryUsage();
  const mb = (bytes: number) => `${bytes < 0 ? '' : '+'}${(bytes / 2 ** 20).toFixed(0)}`;
  const heap = after.heapUsed + after.arrayBuffers - before.heapUsed - before.arrayBuffers;
  return {
    value,
    cost: `loaded in ${loadMs.toFixed(0)} ms (resident set ${mb(after.rss - before.rss)} MB, heap and buffers ${mb(heap)} MB)`,
  };
}
