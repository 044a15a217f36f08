import { Matrix, SingularValueDecomposition } from 'ml-matrix';
import { CooccurrenceCounts, countWindowPairs } from './cooccurrence-counts';
import type { SparseRows } from './fit-lsi';
import { leftSingularVectors, ppmiTermVectors } from './ppmi-term-vectors';

const cosine = (vectors: Float32Array, dimensions: number, a: number, b: number) => {
  let sum = 0;
  for (let d = 0; d < dimensions; d++) sum += vectors[a * dimensions + d]! * vectors[b * dimensions + d]!;
  return sum;
};

describe('leftSingularVectors', () => {
  it('finds the singular values and subspace of a sparse matrix as a full SVD does', () => {
    let state = 7;
    const random = () => (state = (state * 16807) % 2147483647) / 2147483647;
    const dense = Matrix.zeros(40, 25);
    for (let r = 0; r < 40; r++) for (let c = 0; c < 25; c++) if (random() < 0.3) dense.set(r, c, random());
    const start = new Int32Array(41);
    const column: number[] = [];
    const value: number[] = [];
    for (let r = 0; r < 40; r++) {
      for (let c = 0; c < 25; c++) {
        if (dense.get(r, c) === 0) continue;
        column.push(c);
        value.push(dense.get(r, c));
      }
      start[r + 1] = column.length;
    }
    const sparse: SparseRows = { start, column: Int32Array.from(column), value: Float64Array.from(value), columns: 25 };

    const { u, sigma, count } = leftSingularVectors(sparse, 5, { oversampling: 10, powerIterations: 4 });
    const full = new SingularValueDecomposition(dense);
    expect(count).toBe(5);
    for (let k = 0; k < 5; k++) {
      expect(sigma[k]).toBeCloseTo(full.diagonal[k]!, 4);
      // Each left singular vector matches the full SVD's up to its sign.
      let dot = 0;
      for (let r = 0; r < 40; r++) dot += u[r * count + k]! * full.leftSingularVectors.get(r, k);
      expect(Math.abs(dot)).toBeCloseTo(1, 4);
    }
  });
});

describe('ppmiTermVectors', () => {
  it('brings together terms used in the same company that never meet, and keeps others apart', () => {
    // 0 folder, 1 directory, 2 create, 3 list, 4 files, 5 open, 6 socket, 7 connect, 8 server, 9 port.
    const sentences = [
      [2, 0, 4],
      [3, 0, 4],
      [2, 1, 4],
      [3, 1, 4],
      [5, 6, 8],
      [7, 6, 9],
      [5, 8, 9],
      [7, 8, 9],
    ];
    const tokens = Int32Array.from(sentences.flatMap((sentence) => [...sentence, -1]));
    const counts = new CooccurrenceCounts();
    countWindowPairs(tokens, 10, 2, counts);
    const vectors = ppmiTermVectors(counts.pairs(), 10, 10, { dimensions: 4, seed: 1 });

    expect(cosine(vectors, 4, 0, 0)).toBeCloseTo(1, 5);
    expect(cosine(vectors, 4, 0, 1)).toBeGreaterThan(0.9);
    expect(cosine(vectors, 4, 0, 6)).toBeLessThan(0.3);
    expect(vectors).toEqual(ppmiTermVectors(counts.pairs(), 10, 10, { dimensions: 4, seed: 1 }));
  });
});
