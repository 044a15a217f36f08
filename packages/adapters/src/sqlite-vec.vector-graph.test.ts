import fs from 'node:fs';
import path from 'node:path';
import { SqliteVecVectorIndex } from './sqlite-vec.vector-index';
import { openSqliteDatabase, type Database } from './sqlite.database';
import { createTempDir } from '@docshelf/testing/targets/temp-dir';

const DIMENSIONS = 32;
const VECTORS = 4_000;
const LIBRARY = 'big/graph';

/** A seeded source, so a failure repeats. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32 - 0.5;
  };
}

/** Vectors around 40 centres, as embeddings of a library's topics cluster. */
function clustered(count: number, next: () => number): number[][] {
  const centres = Array.from({ length: 40 }, () => Array.from({ length: DIMENSIONS }, next));
  return Array.from({ length: count }, (_, i) => centres[i % 40]!.map((value) => value + 0.4 * next()));
}

let dir: string;
let removeDir: () => void;
let db: Database;
let vectors: number[][];
const next = random(11);

beforeAll(async () => {
  ({ dir, removeDir } = createTempDir());
  db = openSqliteDatabase(path.join(dir, 'docshelf.sqlite'));
  vectors = clustered(VECTORS, next);
  const writer = new SqliteVecVectorIndex(db, DIMENSIONS);
  await writer.upsert(
    LIBRARY,
    vectors.map((values, i) => ({ chunkId: `c${i}`, values })),
  );
  await writer.upsert('small/exact', [{ chunkId: 'only', values: vectors[0]! }]);
});

afterAll(() => {
  db.close();
  removeDir();
});

describe('SqliteVecVectorIndex, big libraries as graphs', () => {
  it('searches a library past graphMinVectors through its graph, finding what the exact scan finds', async () => {
    const graph = new SqliteVecVectorIndex(db, DIMENSIONS, { graphMinVectors: 1_000 });
    const exact = new SqliteVecVectorIndex(db, DIMENSIONS, { graphMinVectors: 0 });
    try {
      expect(await graph.warm(LIBRARY)).toBe('graph');
      expect(await exact.warm(LIBRARY)).toBe('matrix');
      expect(await graph.warm('small/exact')).toBe('matrix');

      let found = 0;
      const questions = 50;
      for (let q = 0; q < questions; q++) {
        const question = vectors[(q * 79) % VECTORS]!.map((value) => value + 0.2 * next());
        const [approximate, truth] = await Promise.all([
          graph.query(LIBRARY, question, 10),
          exact.query(LIBRARY, question, 10),
        ]);
        expect(approximate).toHaveLength(10);
        const wanted = new Set(truth.map((m) => m.chunkId));
        found += approximate.filter((m) => wanted.has(m.chunkId)).length;
        // Scores are cosine similarities, as the exact scan's.
        expect(approximate[0]!.score).toBeCloseTo(truth[0]!.score, 4);
      }
      expect(found / (10 * questions)).toBeGreaterThanOrEqual(0.95);
      // A stored vector finds its own chunk first.
      expect((await graph.query(LIBRARY, vectors[123]!, 1))[0]).toMatchObject({ chunkId: 'c123' });
    } finally {
      await Promise.all([graph.close(), exact.close()]);
    }
  });

  it('keeps the graph beside the database, where another index on the file finds it without building it', async () => {
    const graphs = path.join(dir, 'vector-graphs');
    const built = () =>
      fs
        .readdirSync(graphs)
        .map((name) => `${name} ${fs.statSync(path.join(graphs, name)).mtimeMs}`)
        .sort();
    const before = built();
    expect(before.filter((file) => file.includes('.usearch '))).toHaveLength(1);
    const reopened = new SqliteVecVectorIndex(openSqliteDatabase(path.join(dir, 'docshelf.sqlite')), DIMENSIONS, {
      graphMinVectors: 1_000,
      ownsDatabase: true,
    });
    try {
      expect(await reopened.warm(LIBRARY)).toBe('graph');
      expect((await reopened.query(LIBRARY, vectors[321]!, 1))[0]).toMatchObject({ chunkId: 'c321' });
      expect(built()).toEqual(before);
    } finally {
      await reopened.close();
    }
  });

  it('answers from SQL while the graph is built and after a write makes it stale', async () => {
    fs.rmSync(path.join(dir, 'vector-graphs'), { recursive: true, force: true });
    const index = new SqliteVecVectorIndex(db, DIMENSIONS, { graphMinVectors: 1_000, loadAfterQueries: 1 });
    const exact = new SqliteVecVectorIndex(db, DIMENSIONS, { cacheBytes: 0 });
    try {
      // The first query starts the build and is answered at once, exactly, from SQL.
      const question = vectors[7]!;
      expect(await index.query(LIBRARY, question, 5)).toEqual(await exact.query(LIBRARY, question, 5));
      expect(await index.warm(LIBRARY)).toBe('graph');

      const fresh = vectors[7]!.map((value) => -value);
      await index.upsert(LIBRARY, [{ chunkId: 'fresh', values: fresh }]);
      expect((await index.query(LIBRARY, fresh, 1))[0]).toMatchObject({
        chunkId: 'fresh',
        score: expect.closeTo(1, 5),
      });
    } finally {
      await index.deleteChunks(LIBRARY, ['fresh']);
      await Promise.all([index.close(), exact.close()]);
    }
  });

  it("answers from SQL when even a mapped graph's node table does not fit the memory budget", async () => {
    const index = new SqliteVecVectorIndex(db, DIMENSIONS, { graphMinVectors: 1_000, cacheBytes: 10_000 });
    try {
      expect(await index.warm(LIBRARY)).toBe('sql');
      expect((await index.query(LIBRARY, vectors[42]!, 1))[0]).toMatchObject({ chunkId: 'c42' });
    } finally {
      await index.close();
    }
  });

  it("replaces a library's graph when its vectors change, and removes it with the library", async () => {
    const index = new SqliteVecVectorIndex(db, DIMENSIONS, { graphMinVectors: 1_000 });
    try {
      await index.upsert(
        'big/doomed',
        vectors.slice(0, 1_200).map((values, i) => ({ chunkId: `d${i}`, values })),
      );
      const files = () => fs.readdirSync(path.join(dir, 'vector-graphs')).length;
      const others = files();
      expect(await index.warm('big/doomed')).toBe('graph');
      expect(files()).toBe(others + 1);
      // A change of its vectors: the next graph replaces the old one's file.
      await index.upsert('big/doomed', [{ chunkId: 'd-new', values: vectors[5]!.map((value) => -value) }]);
      expect(await index.warm('big/doomed')).toBe('graph');
      expect(files()).toBe(others + 1);
      expect(
        (
          await index.query(
            'big/doomed',
            vectors[5]!.map((value) => -value),
            1,
          )
        )[0],
      ).toMatchObject({
        chunkId: 'd-new',
      });
      await index.deleteLibrary('big/doomed');
      expect(files()).toBe(others);
    } finally {
      await index.close();
    }
  });

  it('ends a build in progress when it closes', async () => {
    fs.rmSync(path.join(dir, 'vector-graphs'), { recursive: true, force: true });
    const index = new SqliteVecVectorIndex(db, DIMENSIONS, { graphMinVectors: 1_000 });
    const building = index.warm(LIBRARY);
    await index.close();
    expect(await building).toBe('sql');
  });
});
