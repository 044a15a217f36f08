import type { VectorMatch } from '@docshelf/core';

/**
 * One library's vectors in memory, each scaled to unit length and laid out in one Float32Array, for exact
 * nearest-neighbour search by cosine similarity: a plain scan of dot products, with no per-row overhead.
 */
export class VectorMatrix {
  /** Bytes held, for the cache's budget. */
  readonly bytes: number;
  private readonly rowOf: Map<string, number>;

  private constructor(
    private readonly chunkIds: string[],
    private readonly values: Float32Array,
    private readonly dimensions: number,
  ) {
    this.rowOf = new Map(chunkIds.map((id, i) => [id, i]));
    // Each id is held twice (list and map), two bytes per UTF-16 code unit, plus about 100 bytes of entry overhead.
    this.bytes = values.byteLength + chunkIds.reduce((sum, id) => sum + 4 * id.length + 100, 0);
  }

  /** Builds the matrix from stored rows: each embedding is `dimensions` little-endian float32 values. */
  static fromRows(rows: { chunkId: string; embedding: Buffer }[], dimensions: number): VectorMatrix {
    const values = new Float32Array(rows.length * dimensions);
    rows.forEach((row, i) => {
      const vector = new Float32Array(new Uint8Array(row.embedding).buffer);
      const scale = 1 / lengthOf(vector);
      for (let d = 0; d < dimensions; d++) values[i * dimensions + d] = vector[d]! * scale;
    });
    return new VectorMatrix(
      rows.map((row) => row.chunkId),
      values,
      dimensions,
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
      if (row !== undefined) found.set(id, Array.from(this.values.subarray(row * this.dimensions, (row + 1) * this.dimensions)));
    }
    return found;
  }

  /** The `topK` most similar vectors, best first; equal scores in chunk id order, as the SQL query orders them. */
  nearest(query: number[], topK: number): VectorMatch[] {
    const n = this.size;
    const k = Math.min(Math.floor(topK), n);
    if (!(k >= 1)) return [];
    const dims = this.dimensions;
    const q = Float32Array.from(query);
    const scale = 1 / lengthOf(q);
    for (let d = 0; d < dims; d++) q[d]! *= scale;
    const scores = new Float64Array(n);
    const m = this.values;
    // Four running sums: independent additions that the CPU can overlap.
    const tail = dims - (dims % 4);
    for (let i = 0, row = 0; i < n; i++, row += dims) {
      let a = 0;
      let b = 0;
      let c = 0;
      let e = 0;
      let d = 0;
      for (; d < tail; d += 4) {
        a += m[row + d]! * q[d]!;
        b += m[row + d + 1]! * q[d + 1]!;
        c += m[row + d + 2]! * q[d + 2]!;
        e += m[row + d + 3]! * q[d + 3]!;
      }
      for (; d < dims; d++) a += m[row + d]! * q[d]!;
      scores[i] = a + b + c + e;
    }
    return this.best(scores, k).map((i) => ({ chunkId: this.chunkIds[i]!, score: scores[i]! }));
  }

  /** Indexes of the k best scores, best first, through a min-heap of the best seen so far. */
  private best(scores: Float64Array, k: number): number[] {
    const ids = this.chunkIds;
    // True when x ranks below y: a lower score, or an equal score and a later chunk id.
    const below = (x: number, y: number) => scores[x]! < scores[y]! || (scores[x] === scores[y] && ids[x]! > ids[y]!);
    const heap: number[] = [];
    const siftDown = (from: number) => {
      for (let at = from; ; ) {
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
        for (let at = heap.length - 1; at > 0; ) {
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
