import type { VectorMatch } from '@docshelf/core';
import { exactSearch, MetricKind } from 'usearch';

/** Floats per turn of the scan's inner loop: rows and the query are padded with zeros to a multiple of this. */
const LANES = 4;
/** Matches asked of USearch beyond the k wanted, to see whether equal scores reach past the k-th. */
const TIE_MARGIN = 8;

/**
 * One library's vectors in memory, each scaled to unit length and laid out in one Float32Array (rows padded with
 * zeros to `stride` floats), for exact nearest-neighbour search by cosine similarity: one scan of dot products.
 */
export class VectorMatrix {
  /** Bytes held, for the cache's budget. */
  readonly bytes: number;
  private readonly rowOf: Map<string, number>;

  private constructor(
    private readonly chunkIds: string[],
    private readonly values: Float32Array,
    private readonly dimensions: number,
    private readonly stride: number,
  ) {
    this.rowOf = new Map(chunkIds.map((id, i) => [id, i]));
    // Each id is held twice (list and map), two bytes per UTF-16 code unit, plus about 100 bytes of entry overhead.
    this.bytes = values.byteLength + 4 * chunkIds.length + chunkIds.reduce((sum, id) => sum + 4 * id.length + 100, 0);
  }

  /** Builds the matrix from stored rows: each embedding is `dimensions` little-endian float32 values. */
  static fromRows(rows: { chunkId: string; embedding: Buffer }[], dimensions: number): VectorMatrix {
    const stride = Math.ceil(dimensions / LANES) * LANES;
    const values = new Float32Array(rows.length * stride);
    rows.forEach((row, i) => {
      const vector = new Float32Array(new Uint8Array(row.embedding).buffer);
      const scale = 1 / lengthOf(vector);
      for (let d = 0; d < dimensions; d++) values[i * stride + d] = vector[d]! * scale;
    });
    return new VectorMatrix(
      rows.map((row) => row.chunkId),
      values,
      dimensions,
      stride,
    );
  }

  get size(): number {
    return this.chunkIds.length;
  }

  /** The vectors of these chunks, at unit length; chunks without one are left out. */
  vectorsOf(chunkIds: string[]): Map<string, number[]> {
    const found = new Map<string, number[]>();
    for (const id of chunkIds) {
      const row = this.rowOf.get(id);
      if (row !== undefined)
        found.set(id, Array.from(this.values.subarray(row * this.stride, row * this.stride + this.dimensions)));
    }
    return found;
  }

  /**
   * The `topK` most similar vectors, best first; equal scores in chunk id order, as the SQL query orders them. USearch's
   * exact search (SIMD, one thread) scans several times faster than JavaScript; when equal scores reach past what it
   * returned, the order among them is decided by the scan here.
   */
  nearest(query: number[], topK: number): VectorMatch[] {
    const n = this.size;
    const k = Math.min(Math.floor(topK), n);
    if (!(k >= 1)) return [];
    const q = new Float32Array(this.stride);
    const scale = 1 / lengthOf(query);
    for (let d = 0; d < this.dimensions; d++) q[d] = query[d]! * scale;
    if (this.stride === this.dimensions) {
      const wanted = Math.min(n, k + TIE_MARGIN);
      const found = exactSearch(this.values, q, this.dimensions, wanted, MetricKind.IP, 1);
      const matches = Array.from(found.keys, (key, i) => ({
        chunkId: this.chunkIds[Number(key)]!,
        score: 1 - found.distances[i]!,
      })).sort((a, b) => b.score - a.score || (a.chunkId < b.chunkId ? -1 : a.chunkId > b.chunkId ? 1 : 0));
      if (matches.length === wanted && (wanted === n || matches[k - 1]!.score > matches[wanted - 1]!.score)) {
        return matches.slice(0, k);
      }
    }
    const scores = this.scan(q);
    return this.best(scores, k).map((i) => ({ chunkId: this.chunkIds[i]!, score: scores[i]! }));
  }

  /** The dot products, four running sums at a time (independent additions the CPU can overlap). */
  private scan(q: Float32Array): Float64Array {
    const scores = new Float64Array(this.size);
    const m = this.values;
    const stride = this.stride;
    for (let i = 0, row = 0; i < scores.length; i++, row += stride) {
      let a = 0;
      let b = 0;
      let c = 0;
      let e = 0;
      for (let d = 0; d < stride; d += 4) {
        a += m[row + d]! * q[d]!;
        b += m[row + d + 1]! * q[d + 1]!;
        c += m[row + d + 2]! * q[d + 2]!;
        e += m[row + d + 3]! * q[d + 3]!;
      }
      scores[i] = a + b + c + e;
    }
    return scores;
  }

  /** Indexes of the k best scores, best first, through a min-heap of the best seen so far. */
  private best(scores: Float64Array, k: number): number[] {
    const ids = this.chunkIds;
    // True when x ranks below y: a lower score, or an equal score and a later chunk id.
    const below = (x: number, y: number) => scores[x]! < scores[y]! || (scores[x] === scores[y] && ids[x]! > ids[y]!);
    const heap: number[] = [];
    const siftDown = (from: number) => {
      for (let at = from; ;) {
        const left = 2 * at + 1;
        let lowest = at;
        if (left < heap.length && below(heap[left]!, heap[lowest]!)) lowest = left;
        if (left + 1 < heap.length && below(heap[left + 1]!, heap[lowest]!)) lowest = left + 1;
        if (lowest === at) return;
        [heap[at], heap[lowest]] = [heap[lowest]!, heap[at]!];
        at = lowest;
      }
    };
    for (let i = 0; i < scores.length; i++) {
      if (heap.length < k) {
        heap.push(i);
        for (let at = heap.length - 1; at > 0;) {
          const parent = (at - 1) >> 1;
          if (!below(heap[at]!, heap[parent]!)) break;
          [heap[at], heap[parent]] = [heap[parent]!, heap[at]!];
          at = parent;
        }
      } else if (below(heap[0]!, i)) {
        heap[0] = i;
        siftDown(0);
      }
    }
    return heap.sort((x, y) => (below(x, y) ? 1 : below(y, x) ? -1 : 0));
  }
}

function lengthOf(vector: ArrayLike<number>): number {
  let squares = 0;
  for (let i = 0; i < vector.length; i++) squares += vector[i]! * vector[i]!;
  return Math.sqrt(squares);
}
