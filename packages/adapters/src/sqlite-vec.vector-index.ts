import type { VectorIndex, VectorMatch, VectorRecord } from '@docshelf/core';
import type { Database } from './sqlite.database';
import { statement } from './sqlite.statements';
import type { GraphMatch } from './vector-graph';
import { VectorMatrix } from './vector-matrix';
import { VectorMemory, type VectorMemoryOptions, type VectorSearchPath } from './sqlite-vec.vector-memory';

export type { VectorSearchPath } from './sqlite-vec.vector-memory';

/** sqlite-vec refuses KNN queries with k above this. */
const MAX_K = 4096;
const DIMENSIONS_KEY = 'vector_dimensions';

export interface SqliteVecVectorIndexOptions extends VectorMemoryOptions {
  /** When true close() closes the Database; leave false when the record store shares it. */
  ownsDatabase?: boolean;
}

/**
 * VectorIndex in a sqlite-vec `vec0` table partitioned by library id, so a KNN query only scans that library.
 * `vector_keys` maps (library, chunk id) to the vec0 rowid; `vector_versions` counts each library's vector writes.
 *
 * Searched libraries whose vectors have stopped changing are also held in memory (sqlite-vec.vector-memory.ts, within
 * `cacheBytes`): an exact matrix without sqlite-vec's per-query cost, or a big library's graph. Every query reads the
 * library's version first, so a write by any process is seen by the next query.
 */
export class SqliteVecVectorIndex implements VectorIndex {
  private readonly ownsDatabase: boolean;
  /** The vectors of libraries searched lately, held in this process. */
  private readonly memory: VectorMemory;

  constructor(
    private readonly db: Database,
    readonly dimensions: number,
    options: SqliteVecVectorIndexOptions = {},
  ) {
    if (!Number.isInteger(dimensions) || dimensions < 1) {
      throw new Error(`vector dimensions must be a positive integer, got ${dimensions}`);
    }
    this.ownsDatabase = options.ownsDatabase ?? false;
    this.ensureTable();
    this.memory = new VectorMemory(db, dimensions, (libraryId) => this.versionOf(libraryId), options);
  }

  async upsert(libraryId: string, records: VectorRecord[]): Promise<void> {
    const blobs = records.map((record) => this.encodeVector(record.values, `vector of chunk '${record.chunkId}'`));
    const findKey = this.db.prepare('SELECT rowid FROM vector_keys WHERE library_id = ? AND chunk_id = ?');
    const insertKey = this.db.prepare('INSERT INTO vector_keys (library_id, chunk_id) VALUES (?, ?) RETURNING rowid');
    const deleteVector = this.db.prepare('DELETE FROM vec_chunks WHERE rowid = ?');
    const insertVector = this.db.prepare('INSERT INTO vec_chunks (rowid, library_id, embedding) VALUES (?, ?, ?)');
    this.db
      .transaction(() => {
        this.bumpVersion(libraryId);
        records.forEach((record, i) => {
          const existing = findKey.get(libraryId, record.chunkId) as { rowid: number } | undefined;
          if (existing) deleteVector.run(existing.rowid);
          const rowid = existing?.rowid ?? (insertKey.get(libraryId, record.chunkId) as { rowid: number }).rowid;
          // vec0 rejects a JS number bound as REAL for its primary key, so bind an integer.
          insertVector.run(BigInt(rowid), libraryId, blobs[i]);
        });
      })
      .immediate();
  }

  async deleteChunks(libraryId: string, chunkIds: string[]): Promise<void> {
    if (chunkIds.length === 0) return;
    this.deleteKeys(
      libraryId,
      'SELECT rowid FROM vector_keys WHERE library_id = ? AND chunk_id IN (SELECT value FROM json_each(?))',
      libraryId,
      JSON.stringify(chunkIds),
    );
  }

  async deleteLibrary(libraryId: string): Promise<void> {
    this.deleteKeys(libraryId, 'SELECT rowid FROM vector_keys WHERE library_id = ?', libraryId);
    this.memory.graphs?.remove(libraryId);
  }

  async count(libraryId: string): Promise<number> {
    const row = this.db.prepare('SELECT COUNT(*) AS n FROM vector_keys WHERE library_id = ?').get(libraryId) as {
      n: number;
    };
    return row.n;
  }

  async query(libraryId: string, vector: number[], topK: number): Promise<VectorMatch[]> {
    const blob = this.encodeVector(vector, 'query vector');
    const k = Math.min(Math.floor(topK), MAX_K);
    if (!(k >= 1)) return [];
    const searcher = this.memory.searcherOf(libraryId, true);
    if (searcher instanceof VectorMatrix) return searcher.nearest(vector, k);
    if (searcher) return this.chunksOf(searcher.nearest(vector, k));
    const rows = this.db
      .prepare(
        `WITH knn AS (
           SELECT rowid, distance FROM vec_chunks WHERE embedding MATCH ? AND k = ? AND library_id = ?
         )
         SELECT vector_keys.chunk_id AS chunkId, knn.distance AS distance
         FROM knn JOIN vector_keys ON vector_keys.rowid = knn.rowid
         ORDER BY knn.distance, vector_keys.chunk_id`,
      )
      .all(blob, k, libraryId) as { chunkId: string; distance: number }[];
    return rows.map((row) => ({ chunkId: row.chunkId, score: 1 - row.distance }));
  }

  /** The chunk ids of a graph's matches, in its order (a vector deleted since is left out). */
  private chunksOf(matches: GraphMatch[]): VectorMatch[] {
    const rows = statement(
      this.db,
      'SELECT rowid, chunk_id FROM vector_keys WHERE rowid IN (SELECT value FROM json_each(?))',
    )
      .raw()
      .all(JSON.stringify(matches.map((m) => m.key))) as [number, string][];
    const chunkOf = new Map(rows);
    return matches.flatMap((m) => {
      const chunkId = chunkOf.get(m.key);
      return chunkId === undefined ? [] : [{ chunkId, score: m.score }];
    });
  }

  async fetch(libraryId: string, chunkIds: string[]): Promise<Map<string, number[]>> {
    if (chunkIds.length === 0) return new Map();
    // Read from memory when the library is there, but never loaded for this: a search's query loads it.
    const searcher = this.memory.searcherOf(libraryId, false);
    if (searcher instanceof VectorMatrix) return searcher.vectorsOf(chunkIds);
    const rows = this.db
      .prepare(
        `SELECT vector_keys.chunk_id AS chunkId, vec_chunks.embedding AS embedding
         FROM vector_keys JOIN vec_chunks ON vec_chunks.rowid = vector_keys.rowid
         WHERE vector_keys.library_id = ? AND vector_keys.chunk_id IN (SELECT value FROM json_each(?))`,
      )
      .all(libraryId, JSON.stringify(chunkIds)) as { chunkId: string; embedding: Buffer }[];
    return new Map(
      rows.map((row) => [row.chunkId, Array.from(new Float32Array(new Uint8Array(row.embedding).buffer))]),
    );
  }

  async moveLibrary(from: string, to: string, chunkIds: string[]): Promise<void> {
    this.db.transaction(() => this.moveLibraryNow(from, to, chunkIds)).immediate();
  }

  /**
   * The move's statements, for a caller that runs them inside a wider transaction of the same file. A vec0 row
   * cannot change partition, so each vector is written again under the target library with its key's rowid.
   */
  moveLibraryNow(from: string, to: string, chunkIds: string[]): void {
    this.deleteKeys(to, 'SELECT rowid FROM vector_keys WHERE library_id = ?', to);
    this.bumpVersion(from);
    const wanted = new Set(chunkIds);
    const rows = this.db
      .prepare(
        `SELECT vector_keys.rowid AS rowid, vector_keys.chunk_id AS chunkId, vec_chunks.embedding AS embedding
         FROM vector_keys JOIN vec_chunks ON vec_chunks.rowid = vector_keys.rowid WHERE vector_keys.library_id = ?`,
      )
      .all(from) as { rowid: number; chunkId: string; embedding: Buffer }[];
    const deleteVector = this.db.prepare('DELETE FROM vec_chunks WHERE rowid = ?');
    const insertVector = this.db.prepare('INSERT INTO vec_chunks (rowid, library_id, embedding) VALUES (?, ?, ?)');
    const moveKey = this.db.prepare('UPDATE vector_keys SET library_id = ? WHERE rowid = ?');
    const deleteKey = this.db.prepare('DELETE FROM vector_keys WHERE rowid = ?');
    for (const row of rows) {
      deleteVector.run(BigInt(row.rowid));
      if (!wanted.has(row.chunkId)) {
        deleteKey.run(row.rowid);
        continue;
      }
      insertVector.run(BigInt(row.rowid), to, row.embedding);
      moveKey.run(to, row.rowid);
    }
  }

  async close(): Promise<void> {
    await this.memory.close();
    if (this.ownsDatabase && this.db.open) this.db.close();
  }

  /**
   * Puts the library's vectors in memory now, without waiting for repeated queries, and answers once they are there
   * (a big library's graph is built first): how its queries will be answered. For benchmarks, tests and warm-up.
   */
  warm(libraryId: string): Promise<VectorSearchPath> {
    return this.memory.warm(libraryId);
  }

  private versionOf(libraryId: string): number {
    const row = statement(this.db, 'SELECT version FROM vector_versions WHERE library_id = ?').get(libraryId) as
      { version: number } | undefined;
    return row?.version ?? 0;
  }

  /** Marks a change of the library's vectors; called inside the write's transaction. */
  private bumpVersion(libraryId: string): void {
    this.db
      .prepare(
        'INSERT INTO vector_versions (library_id, version) VALUES (?, 1) ON CONFLICT (library_id) DO UPDATE SET version = version + 1',
      )
      .run(libraryId);
  }

  /** Creates the vec0 table on first use; its dimension is fixed from then on, so a different one is refused. */
  private ensureTable(): void {
    this.db
      .transaction(() => {
        const row = this.db.prepare('SELECT value FROM meta WHERE key = ?').get(DIMENSIONS_KEY) as
          { value: string } | undefined;
        if (row) {
          const stored = Number(row.value);
          if (stored !== this.dimensions) {
            throw new Error(`vector index was created with ${stored} dimensions, embedder produces ${this.dimensions}`);
          }
          return;
        }
        // chunk_size well below the default 1024 keeps small libraries from each preallocating a large chunk.
        this.db.exec(
          `CREATE VIRTUAL TABLE IF NOT EXISTS vec_chunks USING vec0(
             library_id text partition key,
             embedding float[${this.dimensions}] distance_metric=cosine,
             chunk_size=128
           )`,
        );
        this.db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)').run(DIMENSIONS_KEY, String(this.dimensions));
      })
      .immediate();
  }

  /** Deletes the library's vectors and keys of the rowids that `select` finds, in one write transaction. */
  private deleteKeys(libraryId: string, select: string, ...params: string[]): void {
    const deleteVector = this.db.prepare('DELETE FROM vec_chunks WHERE rowid = ?');
    const deleteKey = this.db.prepare('DELETE FROM vector_keys WHERE rowid = ?');
    this.db
      .transaction(() => {
        this.bumpVersion(libraryId);
        const rows = this.db.prepare(select).all(...params) as { rowid: number }[];
        for (const { rowid } of rows) {
          deleteVector.run(rowid);
          deleteKey.run(rowid);
        }
      })
      .immediate();
  }

  private encodeVector(values: number[], what: string): Buffer {
    if (!Array.isArray(values) || values.length !== this.dimensions) {
      const length = Array.isArray(values) ? values.length : typeof values;
      throw new Error(`${what} has ${length} dimensions, the index expects ${this.dimensions}`);
    }
    const floats = Float32Array.from(values);
    let squares = 0;
    for (let i = 0; i < floats.length; i++) {
      const value = floats[i] as number;
      if (typeof values[i] !== 'number' || !Number.isFinite(value)) {
        throw new Error(`${what} has a non-finite value at index ${i}`);
      }
      squares += value * value;
    }
    // Cosine distance to a zero vector is undefined (sqlite-vec returns NULL), so refuse it up front.
    if (squares === 0) throw new Error(`${what} is all zeros`);
    return Buffer.from(floats.buffer, floats.byteOffset, floats.byteLength);
  }
}
