import path from 'node:path';
import type { ChunkHit } from '@docshelf/core';
import { openSqliteDatabase, type Database } from './sqlite.database';
import { SqliteFtsKeywordIndex } from './sqlite-fts.keyword-index';
import type { PrunedPlan } from './sqlite-fts.pruned-search';
import { readVarint } from './sqlite-fts.statistics';
import { SqliteLibraryStore } from './sqlite.library-store';
import { createTempDir } from '@docshelf/testing/targets/temp-dir';

/** A seeded source, so a failure names a question that fails again. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/** Words with Zipf-like frequencies over 3,000 words: a few in most chunks, most in a handful, as in real text. */
function zipf(next: () => number): () => string {
  const words = 3_000;
  const harmonic = Array.from({ length: words }, (_, rank) => 1 / (rank + 1));
  const total = harmonic.reduce((a, b) => a + b, 0);
  return () => {
    let x = next() * total;
    let rank = 0;
    while (rank < words - 1 && (x -= harmonic[rank]!) > 0) rank++;
    return `k${rank.toString(36)}q`;
  };
}

let db: Database;
let removeDir: () => void;
const libraries = ['zipf/one', 'zipf/two', 'zipf/three'];
let questions: string[][];

beforeAll(async () => {
  const temp = createTempDir();
  removeDir = temp.removeDir;
  db = openSqliteDatabase(path.join(temp.dir, 'docshelf.sqlite'));
  const store = new SqliteLibraryStore(db);
  const next = random(7);
  const word = zipf(next);
  // Chunks of varied length (5–120 words), titles of 1–3 words: lengths and title matches move scores.
  for (const [i, id] of libraries.entries()) {
    await store.commitIngestion({
      library: { id, name: id, sourceType: 'json' },
      ownerId: 'o',
      chunks: Array.from({ length: [2_000, 1_500, 300][i]! }, (_, c) => ({
        id: `c${c}`,
        title: Array.from({ length: 1 + Math.floor(next() * 3) }, word).join(' '),
        content: Array.from({ length: 5 + Math.floor(next() * 115) }, word).join(' '),
      })),
      replace: false,
      ingestionId: 'i',
      now: new Date(),
    });
  }
  // Questions of 2–7 words from the same text: some frequent, some rare, a few absent from it.
  questions = Array.from({ length: 80 }, (_, q) => [
    ...Array.from({ length: 2 + Math.floor(next() * 6) }, word),
    ...(q % 10 === 0 ? ['absentword'] : []),
  ]);
});

afterAll(() => {
  db.close();
  removeDir();
});

/**
 * Rank by rank the same chunk, or two chunks whose scores agree within 2.2e-6 a term: FTS5 clamps the idf of a term
 * in more than half the rows to 1e-6 (its share of a score below 2.2e-6), and pruned searches leave such a term out,
 * which can only reorder chunks tied but for it.
 */
function expectSameRanking(pruned: ChunkHit[], full: ChunkHit[], question: string[]) {
  expect({ question, length: pruned.length }).toEqual({ question, length: full.length });
  pruned.forEach((hit, rank) => {
    const other = full[rank]!;
    if (hit.chunkId === other.chunkId && hit.libraryId === other.libraryId) return;
    const tiedButForClampedTerms = Math.abs(hit.score - other.score) <= 2.2e-6 * question.length;
    expect({ question, rank, hit, other, tiedButForClampedTerms }).toMatchObject({ tiedButForClampedTerms: true });
  });
}

describe('pruned keyword search', () => {
  const scopes: [string, string[] | null][] = [
    ['one library', ['zipf/one']],
    ['two libraries', ['zipf/one', 'zipf/three']],
    ['every library', null],
  ];

  it.each(scopes)('ranks %s as scoring every matching chunk does (same top results)', async (_, libraryIds) => {
    const plans: PrunedPlan[] = [];
    const pruned = new SqliteFtsKeywordIndex(db, { onPlan: (plan) => plans.push(plan) });
    const full = new SqliteFtsKeywordIndex(db, { pruning: false });
    for (const terms of questions) {
      for (const limit of [1, 10, 40]) {
        const [a, b] = await Promise.all([
          pruned.search({ terms, libraryIds, limit }),
          full.search({ terms, libraryIds, limit }),
        ]);
        expect(b.length).toBeGreaterThan(0);
        expectSameRanking(a, b, terms);
      }
    }
    // The bounds do cut: most searches read only some of their terms' postings.
    const cut = plans.filter((plan) => plan.pruned && plan.essential < plan.terms);
    expect(cut.length).toBeGreaterThan(plans.length / 2);
  });

  it('counts again after a write: a term the cache knew as absent is found', async () => {
    const store = new SqliteLibraryStore(db);
    const plans: PrunedPlan[] = [];
    const keywords = new SqliteFtsKeywordIndex(db, { onPlan: (plan) => plans.push(plan) });
    const full = new SqliteFtsKeywordIndex(db, { pruning: false });
    const terms = ['k2q', 'freshword'];
    await keywords.search({ terms, libraryIds: ['zipf/three'], limit: 5 });
    await store.commitIngestion({
      library: { id: 'zipf/three', name: 'three', sourceType: 'json' },
      ownerId: 'o',
      chunks: Array.from({ length: 100 }, (_, c) => ({
        id: `fresh${c}`,
        content: `freshword ${'k2q '.repeat(c % 4)}`,
      })),
      replace: false,
      ingestionId: 'j',
      now: new Date(),
    });
    const [a, b] = await Promise.all([
      keywords.search({ terms, libraryIds: ['zipf/three'], limit: 10 }),
      full.search({ terms, libraryIds: ['zipf/three'], limit: 10 }),
    ]);
    expect(a.map((h) => h.chunkId).filter((id) => id.startsWith('fresh'))).toHaveLength(10);
    expect(plans.at(-1)).toMatchObject({ pruned: true, essential: 1 });
    expectSameRanking(a, b, terms);
  });

  it('reads the row count FTS5 keeps as SQLite varints', () => {
    expect(readVarint(Uint8Array.from([0x05]))).toBe(5);
    expect(readVarint(Uint8Array.from([0x8c, 0x9a, 0x40]))).toBe(200_000);
    expect(readVarint(Uint8Array.from([0x81, 0x00]))).toBe(128);
    const rows = db.prepare('SELECT count(*) AS n FROM chunk_search').get() as { n: number };
    const block = (db.prepare('SELECT block FROM chunk_search_data WHERE id = 1').get() as { block: Buffer }).block;
    expect(readVarint(block)).toBe(rows.n);
  });
});
