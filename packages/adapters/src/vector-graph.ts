import fs from 'node:fs';
import type { VectorMatch } from '@docshelf/core';
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

/** The memory a graph of `count` vectors takes, about: its 16-bit vectors, the bottom layer's links, node overhead. */
export const graphBytes = (count: number, dimensions: number) => count * (dimensions * 2 + 2 * CONNECTIVITY * 4 + 64);

/**
 * A big library's vectors in memory as a navigable small-world graph (HNSW, through USearch): a query visits a few
 * thousand vectors instead of all of them. Approximate: the benchmark prints its recall against the exact scan.
 */
export class VectorGraph {
  /** Bytes held, for the cache's budget. */
  readonly bytes: number;

  private constructor(
    private readonly index: Index,
    private readonly chunkIds: string[],
    fileBytes: number,
  ) {
    this.bytes = fileBytes + chunkIds.reduce((sum, id) => sum + 2 * id.length + 50, 0);
  }

  /** The graph saved at `file` by buildVectorGraph; node `i` is the chunk `chunkIds[i]`. */
  static load(file: string, chunkIds: string[], dimensions: number): VectorGraph {
    const index = graphIndex(dimensions);
    index.load(file);
    return new VectorGraph(index, chunkIds, fs.statSync(file).size);
  }

  get size(): number {
    return this.chunkIds.length;
  }

  /** About the `topK` most similar vectors by cosine, best first. */
  nearest(query: number[], topK: number): VectorMatch[] {
    const k = Math.min(Math.floor(topK), this.size);
    if (!(k >= 1)) return [];
    const found = this.index.search(Float32Array.from(query), k, 1);
    return Array.from(found.keys, (key, i) => ({
      chunkId: this.chunkIds[Number(key)]!,
      score: 1 - found.distances[i]!,
    }));
  }
}

/** Builds the graph of `count` vectors laid end to end in `vectors` and saves it to `file` (in a thread: it takes a while). */
export function buildVectorGraph(
  vectors: Float32Array,
  count: number,
  dimensions: number,
  threads: number,
  file: string,
) {
  const index = graphIndex(dimensions);
  index.add(
    BigUint64Array.from({ length: count }, (_, i) => BigInt(i)),
    vectors,
    threads,
  );
  index.save(file);
}
