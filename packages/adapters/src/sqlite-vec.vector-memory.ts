import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import type { Worker } from 'node:worker_threads';
import { runInThread } from './run-in-thread';
import type { Database } from './sqlite.database';
import { statement } from './sqlite.statements';
import { GRAPH_NODE_BYTES, VectorGraph, VectorGraphFiles } from './vector-graph';
import type { GraphBuildRequest, GraphBuilt } from './vector-graph.thread';
import { VectorMatrix } from './vector-matrix';

/** Names this database's graph files, so a graph folder outliving its database is never read for another. */
const GRAPHS_KEY = 'vector_graphs_id';
const DEFAULT_CACHE_BYTES = 256 * 2 ** 20;
const DEFAULT_GRAPH_MIN_VECTORS = 30_000;

/** How a library's queries are answered: from its graph or matrix in memory, or in SQL. */
export type VectorSearchPath = 'graph' | 'matrix' | 'sql';

/** How much of the vectors this process holds, and when (SqliteVecVectorIndexOptions passes them on). */
export interface VectorMemoryOptions {
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
 * The vectors of the libraries searched lately, held in this process within a budget: a library's exact matrix
 * (VectorMatrix), or the graph of a big one (VectorGraph, a mapped file built in a thread). Every lookup names the
 * library's current vector version (read from SQLite by the index), so a write by any process is seen by the next
 * query; what is held for an older version is let go.
 */
export class VectorMemory {
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
  readonly graphs: VectorGraphFiles | null;
  private readonly threads = new Set<Worker>();
  private closed = false;
  /** The version each library had when last queried, and how many queries in a row found it. */
  private readonly seenVersions = new Map<string, { version: number; queries: number }>();

  constructor(
    private readonly db: Database,
    private readonly dimensions: number,
    private readonly versionOf: (libraryId: string) => number,
    options: VectorMemoryOptions = {},
  ) {
    this.cacheBytes = options.cacheBytes ?? DEFAULT_CACHE_BYTES;
    this.loadAfterQueries = options.loadAfterQueries ?? 2;
    // A graph is built by a thread reading the same file: an in-memory database has none to share.
    this.graphMinVectors = db.memory ? 0 : (options.graphMinVectors ?? DEFAULT_GRAPH_MIN_VECTORS);
    this.busyMs = options.busyMs ?? 60_000;
    this.graphs =
      this.graphMinVectors > 0
        ? new VectorGraphFiles(path.join(path.dirname(db.name), 'vector-graphs'), this.graphsId())
        : null;
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
  searcherOf(libraryId: string, load: boolean): VectorMatrix | VectorGraph | null {
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

  async close(): Promise<void> {
    this.closed = true;
    this.held.clear();
    await Promise.all([...this.threads].map((thread) => thread.terminate()));
  }
}
