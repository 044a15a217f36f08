import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Index, MetricKind, ScalarKind } from 'usearch';

/**
 * HNSW settings (USearch): links per node, and candidates kept while adding and while searching; vectors kept as
 * 16-bit floats (half the memory of 32-bit ones, the same recall). On 200,000 topical chunks of the benchmark's text
 * embedded by local-lsi-v1, a search keeping 1,024 candidates found 99.9% of the exact top 40 in 1.9 ms (128: 82% in
 * 0.35 ms; 512: 97% in 1.0 ms), against 95 ms for the exact scan. `npm run bench -- big-library` prints the recall.
 */
const CONNECTIVITY = 16;
const EXPANSION_ADD = 128;
const EXPANSION_SEARCH = 1024;

const graphIndex = (dimensions: number) =>
  new Index({
    metric: MetricKind.Cos,
    quantization: ScalarKind.F16,
    multi: false,
    dimensions,
    connectivity: CONNECTIVITY,
    expansion_add: EXPANSION_ADD,
    expansion_search: EXPANSION_SEARCH,
  });

/** Memory a mapped graph still takes in the process for each node (USearch's node table), for the cache's budget. */
export const GRAPH_NODE_BYTES = 16;

/** A graph's answer: the `vector_keys` rowid of a vector and its cosine similarity to the question. */
export interface GraphMatch {
  key: number;
  score: number;
}

/**
 * A library's vectors as a navigable small-world graph (HNSW, through USearch): a query visits a few thousand vectors
 * instead of all of them. Approximate: the benchmarks print its recall against the exact scan. Its nodes are keyed by
 * the vectors' `vector_keys` rowids. The graph is a file mapped into memory, not read into it: the operating system
 * keeps its pages in its file cache while they are used (and can take them back), every process searching the
 * library shares them, and a restart finds the graph built.
 */
export class VectorGraph {
  /** Bytes held in the process, for the cache's budget (the graph itself is the mapped file's). */
  readonly bytes: number;

  private constructor(private readonly index: Index) {
    this.bytes = index.size() * GRAPH_NODE_BYTES;
  }

  /** The graph saved at `file` by VectorGraphFiles.write, mapped. */
  static view(file: string, dimensions: number): VectorGraph {
    const index = graphIndex(dimensions);
    index.view(file);
    return new VectorGraph(index);
  }

  get size(): number {
    return this.index.size();
  }

  /** About the `topK` most similar vectors by cosine, best first. */
  nearest(query: number[], topK: number): GraphMatch[] {
    const k = Math.min(Math.floor(topK), this.size);
    if (!(k >= 1)) return [];
    const found = this.index.search(Float32Array.from(query), k, 1);
    return Array.from(found.keys, (key, i) => ({ key: Number(key), score: 1 - found.distances[i]! }));
  }
}

/**
 * The graphs of libraries' vectors kept in a folder, one file per library and vector version:
 * `<database's prefix>-<hash of the library id>-<version>.usearch`, written under a temporary name and renamed into
 * place, so a process finds a whole graph or none.
 */
export class VectorGraphFiles {
  constructor(
    readonly dir: string,
    /** Set apart by database, whose vector versions start again at 1. */
    readonly prefix: string,
  ) {}

  /** The library's part of every file name: its id hashed, so any id makes a safe name. */
  stem(libraryId: string): string {
    return `${this.prefix}-${createHash('sha256').update(libraryId).digest('hex').slice(0, 32)}`;
  }

  file(libraryId: string, version: number): string {
    return path.join(this.dir, `${this.stem(libraryId)}-${version}.usearch`);
  }

  /** The library's graph at this version when one was built (by this process or another), else null. */
  open(libraryId: string, version: number, dimensions: number): VectorGraph | null {
    const file = this.file(libraryId, version);
    if (!fs.existsSync(file)) return null;
    try {
      return VectorGraph.view(file, dimensions);
    } catch {
      // A file that cannot be read as a graph is built again.
      fs.rmSync(file, { force: true });
      return null;
    }
  }

  /**
   * Removes the library's graphs, or (`before`) those of versions older than that one: a newer graph another process
   * built meanwhile stays. A process still searching a removed graph keeps its mapping.
   */
  remove(libraryId: string, before?: number): void {
    const stem = `${this.stem(libraryId)}-`;
    let names: string[];
    try {
      names = fs.readdirSync(this.dir);
    } catch {
      return;
    }
    for (const name of names) {
      if (!name.startsWith(stem)) continue;
      const version = Number(/^(\d+)\./.exec(name.slice(stem.length))?.[1]);
      if (before === undefined || !(version >= before)) fs.rmSync(path.join(this.dir, name), { force: true });
    }
  }

  /**
   * Builds the graph of the vectors laid end to end in `vectors`, keyed by `keys`, and puts it in place for `version`
   * (in a thread: a graph of 200,000 vectors takes about a minute).
   */
  write(
    libraryId: string,
    version: number,
    keys: BigUint64Array,
    vectors: Float32Array,
    dimensions: number,
    threads: number,
  ): void {
    const index = graphIndex(dimensions);
    if (keys.length > 0) index.add(keys, vectors, threads);
    fs.mkdirSync(this.dir, { recursive: true });
    const final = this.file(libraryId, version);
    const temporary = `${final}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      index.save(temporary);
      fs.renameSync(temporary, final);
    } finally {
      fs.rmSync(temporary, { force: true });
    }
  }
}
