import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import type { Worker } from 'node:worker_threads';
import type { VectorIndex, VectorMatch, VectorRecord } from '@docshelf/core';
import { runInThread } from './run-in-thread';
import type { Database } from './sqlite.database';
import { statement } from './sqlite.statements';
import { GRAPH_NODE_BYTES, VectorGraph, VectorGraphFiles, type GraphMatch } from './vector-graph';
import type { GraphBuildRequest, GraphBuilt } from './vector-graph.thread';
import { VectorMatrix } from './vector-matrix';

/** sqlite-vec refuses KNN queries with k above this. */
const MAX_K = 4096;
const DIMENSIONS_KEY = 'vector_dimensions';
/** Names this database's graph files, so a graph folder outliving its database is never read for another. */
const GRAPHS_KEY = 'vector_graphs_id';
const DEFAULT_CACHE_BYTES = 256 * 2 ** 20;
const DEFAULT_GRAPH_MIN_VECTORS = 30_000;

/** How a library's queries are answered: from its graph or matrix in memory, or in SQL. */
export type VectorSearchPath = 'graph' | 'matrix' | 'sql';

export interface SqliteVecVectorIndexOptions {
  /** When true close() closes the Database; leave false when the record store shares it. */
  ownsDatabase?: boolean;
  /** Memory for libraries' vectors kept in this process for exact search without SQL (0: every query runs in SQL). */
  cacheBytes?: number;
  /**
   * A library is loaded into memory by the query that finds its vectors unchanged this many times in a row (default
   * 2: the second). While a library is being embedded its version changes with every batch, and is not loaded.
   */
  loadAfterQueries?: number;
  /**
   * A library of at least this many vectors is searched through an approximate graph (HNSW) instead of the exact
   * matrix, and so is a smaller one whose matrix does not fit the memory left (default 30,000; 0: never a graph).
   * A graph is built in a thread while the library's queries run in SQL, kept as a file beside the database (see
   * VectorGraph) and mapped from it, so it costs the budget only its node table (16 bytes a vector).
   */
  graphMinVectors?: number;
  /**
   * A library searched within this many milliseconds is not let go to make room for another (default 60,000): when
   * the libraries searched together do not all fit, the others are searched in SQL rather than loaded in turn.
   */
  busyMs?: number;
}

/** A library's vectors in memory: the exact matrix, or the graph of a big library; when it was last searched. */
type Held = { version: number; searcher: VectorMatrix | VectorGraph; usedAt: number };

/**
 * VectorIndex in a sqlite-vec `vec0` table partitioned by library id, so a KNN query only scans that library.
 * `vector_keys` maps (library, chunk id) to the vec0 rowid; `vector_versions` counts each library's vector writes.
 *
 * Searched libraries whose vectors have stopped changing are also held in memory (VectorMatrix, within `cacheBytes`):
 * the same exact cosine ranking without sqlite-vec's per-query cost, about three times faster. Every query reads the
 * library's version first, so a write by any process is seen by the next query.
 */
export class SqliteVecVectorIndex implements VectorIndex {
  private readonly ownsDatabase: boolean;
  private readonly cacheBytes: number;
  /** Libraries in memory, least recently searched first. */
  private readonly held = new Map<string, Held>();
  private readonly loadAfterQueries: number;
  private readonly graphMinVectors: number;
  private readonly busyMs: number;
  /** Graphs being built or waiting their turn, by library, with the vector version they were asked for. */
  private readonly building = new Map<string, { version: number; done: Promise<VectorSearchPath> }>();
  /** One build at a time: each holds a library's vectors and takes half the machine's cores. */
  private buildQueue: Promise<unknown> = Promise.resolve();
  /** Where graphs are kept; null when there are none (an in-memory database, or graphs turned off). */
  private readonly graphs: VectorGraphFiles | null;
  private readonly threads = new Set<Worker>();
  private closed = false;
  /** The version each library had when last queried, and how many queries in a row found it. */
  private readonly seenVersions = new Map<string, { version: number; queries: number }>();

  constructor(
    private readonly db: Database,
    readonly dimensions: number,
    options: SqliteVecVectorIndexOptions = {},
  ) {
    if (!Number.isInteger(dimensions) || dimensions < 1) {
      throw new Error(`vector dimensions must be a positive integer, got ${dimensions}`);
    }
    this.ownsDatabase = options.ownsDatabase ?? false;
    this.cacheBytes = options.cacheBytes ?? DEFAULT_CACHE_BYTES;
    this.loadAfterQueries = options.loadAfterQueries ?? 2;
    // A graph is built by a thread reading the same file: an in-memory database has none to share.
    this.graphMinVectors = db.memory ? 0 : (options.graphMinVectors ?? DEFAULT_GRAPH_MIN_VECTORS);
    this.busyMs = options.busyMs ?? 60_000;
    this.ensureTable();
    this.graphs =
      this.graphMinVectors > 0
        ? new VectorGraphFiles(path.join(path.dirname(db.name), 'vector-graphs'), this.graphsId())
        : null;
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
    this.graphs?.remove(libraryId);
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
    const searcher = this.searcherOf(libraryId, true);
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
    const searcher = this.searcherOf(libraryId, false);
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
    this.closed = true;
    this.held.clear();
    await Promise.all([...this.threads].map((thread) => thread.terminate()));
    if (this.ownsDatabase && this.db.open) this.db.close();
  }

  /**
   * Puts the library's vectors in memory now, without waiting for repeated queries, and answers once they are there
   * (a big library's graph is built first): how its queries will be answered. For benchmarks, tests and warm-up.
   */
  async warm(libraryId: string): Promise<VectorSearchPath> {
    if (this.cacheBytes <= 0) return 'sql';
    const version = this.versionOf(libraryId);
    const held = this.held.get(libraryId);
    if (held?.version === version) return held.searcher instanceof VectorGraph ? 'graph' : 'matrix';
    return this.load(libraryId, version);
  }

  /**
   * The library's vectors in memory when they are there and current, or (`load`) loaded now when enough queries in a
   * row found the same version (see loadAfterQueries). Null when the caller should read SQL, as it does while a big
   * library's graph is being built.
   */
  private searcherOf(libraryId: string, load: boolean): VectorMatrix | VectorGraph | null {
    if (this.cacheBytes <= 0) return null;
    const version = this.versionOf(libraryId);
    const cached = this.held.get(libraryId);
    if (cached?.version === version) {
      this.held.delete(libraryId);
      this.held.set(libraryId, { ...cached, usedAt: Date.now() });
      return cached.searcher;
    }
    if (!load) return null;
    this.held.delete(libraryId);
    const seen = this.seenVersions.get(libraryId);
    const queries = seen?.version === version ? seen.queries + 1 : 1;
    this.seenVersions.set(libraryId, { version, queries });
    if (queries < this.loadAfterQueries) return null;
    void this.load(libraryId, version);
    return this.held.get(libraryId)?.searcher ?? null;
  }

  /**
   * Loads the library's matrix when it is not a big library and fits beside the libraries searched lately; else opens
   * its graph, or builds it (SQL answers meanwhile). Without graphs, a library that does not fit stays in SQL.
   */
  private load(libraryId: string, version: number): Promise<VectorSearchPath> {
    const running = this.building.get(libraryId);
    if (running?.version === version) return running.done;
    const count = statement(this.db, 'SELECT COUNT(*) FROM vector_keys WHERE library_id = ?')
      .pluck()
      .get(libraryId) as number;
    // Four bytes per value: a library that cannot fit is not read at all.
    const matrixBytes = count * this.dimensions * 4;
    const big = this.graphs !== null && count >= this.graphMinVectors;
    if (!big && matrixBytes <= this.cacheBytes && this.roomFor(libraryId, matrixBytes)) {
      const loaded = this.loadMatrix(libraryId);
      if (loaded && loaded.searcher.bytes <= this.cacheBytes && this.place(libraryId, loaded))
        return Promise.resolve('matrix');
    }
    if (!this.graphs) return Promise.resolve(matrixBytes > this.cacheBytes ? this.tooLarge(libraryId, version) : 'sql');
    if (count * GRAPH_NODE_BYTES > this.cacheBytes) return Promise.resolve(this.tooLarge(libraryId, version));
    const found = this.graphs.open(libraryId, version, this.dimensions);
    if (found) return Promise.resolve(this.placeGraph(libraryId, version, found));
    return this.buildGraph(libraryId, version);
  }

  /**
   * Holds a graph whose node table fits beside the libraries searched lately; one that never can is not tried again
   * until the library changes.
   */
  private placeGraph(libraryId: string, version: number, graph: VectorGraph): VectorSearchPath {
    if (graph.bytes > this.cacheBytes) return this.tooLarge(libraryId, version);
    return this.place(libraryId, { version, searcher: graph }) ? 'graph' : 'sql';
  }

  /** Whether `bytes` fit beside the libraries searched lately (the others may be let go). */
  private roomFor(libraryId: string, bytes: number): boolean {
    const busySince = Date.now() - this.busyMs;
    let kept = bytes;
    for (const [id, other] of this.held) if (id !== libraryId && other.usedAt > busySince) kept += other.searcher.bytes;
    return kept <= this.cacheBytes;
  }

  /** Not read again until its vectors change. */
  private tooLarge(libraryId: string, version: number): VectorSearchPath {
    this.seenVersions.set(libraryId, { version, queries: -Infinity });
    return 'sql';
  }

  /**
   * Holds `entry`, letting the least recently searched libraries go until everything held fits the budget, but none
   * searched lately: false (nothing held) when it does not fit beside those.
   */
  private place(libraryId: string, entry: Omit<Held, 'usedAt'>): boolean {
    if (!this.roomFor(libraryId, entry.searcher.bytes)) return false;
    this.held.delete(libraryId);
    let held = entry.searcher.bytes;
    for (const other of this.held.values()) held += other.searcher.bytes;
    const busySince = Date.now() - this.busyMs;
    for (const [id, other] of this.held) {
      if (held <= this.cacheBytes) break;
      if (other.usedAt > busySince) continue;
      this.held.delete(id);
      held -= other.searcher.bytes;
    }
    this.held.set(libraryId, { ...entry, usedAt: Date.now() });
    return true;
  }

  /**
   * Builds the library's graph in a thread that reads the vectors on a connection of its own, so the event loop goes
   * on serving (about a minute for 200,000 vectors, two seconds for 20,000), one build at a time. A graph whose
   * library changed meanwhile is not used: the next queries that find the library unchanged build it again.
   */
  private buildGraph(libraryId: string, version: number): Promise<VectorSearchPath> {
    const graphs = this.graphs!;
    const request: GraphBuildRequest = {
      file: this.db.name,
      libraryId,
      dimensions: this.dimensions,
      // Half the machine: the build must not starve the process's own requests.
      threads: Math.max(1, Math.floor(os.availableParallelism() / 2)),
      dir: graphs.dir,
      prefix: graphs.prefix,
    };
    const build = async (): Promise<VectorSearchPath> => {
      if (this.closed) return 'sql';
      const built = await runInThread<GraphBuilt>(
        path.join(__dirname, 'vector-graph.thread'),
        request,
        'vector graph',
        (t) => {
          this.threads.add(t);
          t.once('exit', () => this.threads.delete(t));
        },
      );
      graphs.remove(libraryId, built.version);
      if (this.closed || built.version !== this.versionOf(libraryId)) return 'sql';
      const graph = graphs.open(libraryId, built.version, this.dimensions);
      return graph ? this.placeGraph(libraryId, built.version, graph) : this.tooLarge(libraryId, built.version);
    };
    const done = this.buildQueue
      .then(build)
      // A graph that could not be built leaves the library in SQL until its vectors change.
      .catch(() => this.tooLarge(libraryId, version))
      .finally(() => {
        if (this.building.get(libraryId)?.done === done) this.building.delete(libraryId);
      });
    this.buildQueue = done;
    this.building.set(libraryId, { version, done });
    return done;
  }

  /** This database's name for its graph files, made on first use. */
  private graphsId(): string {
    return this.db
      .transaction(() => {
        const row = statement(this.db, 'SELECT value FROM meta WHERE key = ?').get(GRAPHS_KEY) as
          { value: string } | undefined;
        if (row) return row.value;
        const id = randomBytes(8).toString('hex');
        statement(this.db, 'INSERT INTO meta (key, value) VALUES (?, ?)').run(GRAPHS_KEY, id);
        return id;
      })
      .immediate();
  }

  /** The library's vectors and their version, read in one transaction so the two agree. */
  private loadMatrix(libraryId: string): Omit<Held, 'usedAt'> | null {
    return this.db.transaction(() => {
      const version = this.versionOf(libraryId);
      const count = (
        this.db.prepare('SELECT COUNT(*) AS n FROM vector_keys WHERE library_id = ?').get(libraryId) as { n: number }
      ).n;
      if (count * this.dimensions * 4 > this.cacheBytes) return null;
      const rows = this.db
        .prepare(
          `SELECT vector_keys.chunk_id AS chunkId, vec_chunks.embedding AS embedding
           FROM vector_keys JOIN vec_chunks ON vec_chunks.rowid = vector_keys.rowid WHERE vector_keys.library_id = ?`,
        )
        .all(libraryId) as { chunkId: string; embedding: Buffer }[];
      return { version, searcher: VectorMatrix.fromRows(rows, this.dimensions) };
    })();
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
