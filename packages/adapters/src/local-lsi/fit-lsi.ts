import { EigenvalueDecomposition, Matrix } from 'ml-matrix';
import { LsiModel } from './lsi-model';

export interface FitLsiOptions {
  /** Size of the latent space (term vectors are padded with zeros when the library supports fewer). */
  dimensions: number;
  /** The most frequent terms kept, bounding the model's size (about dimensions bytes per term). */
  maxVocabulary?: number;
  /** Extra directions sampled beyond `dimensions`, and subspace iterations: the accuracy of the randomized SVD. */
  oversampling?: number;
  powerIterations?: number;
  /** Same documents and seed, same model: workers that learn a library at once agree. */
  seed?: number;
}

/** Sparse rows: document d has the entries [start[d], start[d + 1]) of column and value. */
export interface SparseRows {
  start: Int32Array;
  column: Int32Array;
  value: Float64Array;
  columns: number;
}

/**
 * Learns an LSI model from a library's documents (each a list of terms): a tf-idf matrix (log term frequency, rows of
 * unit length, terms found in at least two documents) reduced to its top singular directions by randomized SVD
 * (Halko, Martinsson and Tropp 2011). A term's vector is its row of the right singular vectors.
 */
export function fitLsi(documents: string[][], options: FitLsiOptions): LsiModel {
  const { dimensions } = options;
  const { vocabulary, idf, rows } = weighDocuments(documents, options.maxVocabulary ?? 30_000);
  const termVectors = new Float32Array(vocabulary.length * dimensions);
  const rank = Math.min(dimensions, vocabulary.length, documents.length);
  if (rank > 0) {
    const { vectors, count } = rightSingularVectors(rows, rank, options);
    for (let t = 0; t < vocabulary.length; t++) {
      for (let k = 0; k < count; k++) termVectors[t * dimensions + k] = vectors[t * count + k]!;
    }
  }
  return LsiModel.fromVectors(vocabulary, idf, termVectors, dimensions);
}

function weighDocuments(documents: string[][], maxVocabulary: number) {
  const documentFrequency = new Map<string, number>();
  for (const terms of documents)
    for (const term of new Set(terms)) documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1);
  const vocabulary = [...documentFrequency]
    .filter(([, df]) => df >= 2)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, maxVocabulary)
    .map(([term]) => term);
  const columnOf = new Map(vocabulary.map((term, i) => [term, i]));
  const idf = Float32Array.from(vocabulary, (term) => Math.log(documents.length / documentFrequency.get(term)!));

  const start = new Int32Array(documents.length + 1);
  const columns: number[] = [];
  const values: number[] = [];
  documents.forEach((terms, d) => {
    const counts = new Map<number, number>();
    for (const term of terms) {
      const column = columnOf.get(term);
      if (column !== undefined) counts.set(column, (counts.get(column) ?? 0) + 1);
    }
    const weights = [...counts].map(([column, count]) => [column, (1 + Math.log(count)) * idf[column]!] as const);
    const norm = Math.sqrt(weights.reduce((sum, [, w]) => sum + w * w, 0)) || 1;
    for (const [column, weight] of weights) {
      columns.push(column);
      values.push(weight / norm);
    }
    start[d + 1] = columns.length;
  });
  const rows: SparseRows = {
    start,
    column: Int32Array.from(columns),
    value: Float64Array.from(values),
    columns: vocabulary.length,
  };
  return { vocabulary, idf, rows };
}

/** How closely the randomized SVD approximates: extra directions sampled, subspace iterations, and its seed. */
export interface RandomizedSvdOptions {
  oversampling?: number;
  powerIterations?: number;
  seed?: number;
}

/**
 * The randomized SVD's common core (Halko, Martinsson and Tropp 2011): Q, an orthonormal basis of A's dominant range
 * (rows × width), Z = Aᵀ Q (columns × width), and the top `rank` eigenpairs of Zᵀ Z = B Bᵀ for B = Qᵀ A, largest
 * first. A's left singular vectors are Q times those eigenvectors, its right ones Z times them over the singular values
 * (the eigenvalues' square roots).
 */
export function randomizedSvd(a: SparseRows, rank: number, options: RandomizedSvdOptions) {
  const rows = a.start.length - 1;
  const width = Math.min(rank + (options.oversampling ?? 10), a.columns, rows);
  const random = gaussian(options.seed ?? 0x5eed);
  const omega = new Float64Array(a.columns * width);
  for (let i = 0; i < omega.length; i++) omega[i] = random();
  let q = orthonormal(multiply(a, omega, width), rows, width);
  for (let i = 0; i < (options.powerIterations ?? 2); i++) {
    const z = orthonormal(multiplyTransposed(a, q, width), a.columns, width);
    q = orthonormal(multiply(a, z, width), rows, width);
  }
  const z = multiplyTransposed(a, q, width);
  const gram = new Matrix(width, width);
  for (let i = 0; i < width; i++) {
    for (let j = i; j < width; j++) {
      let sum = 0;
      for (let c = 0; c < a.columns; c++) sum += z[c * width + i]! * z[c * width + j]!;
      gram.set(i, j, sum);
      gram.set(j, i, sum);
    }
  }
  const eigen = new EigenvalueDecomposition(gram, { assumeSymmetric: true });
  const top = eigen.realEigenvalues
    .map((value, index) => ({ value, index }))
    .sort((x, y) => y.value - x.value)
    .filter((e) => e.value > 1e-10)
    .slice(0, rank)
    .map(({ value, index }) => ({ value, vector: eigen.eigenvectorMatrix.getColumn(index) }));
  return { q, z, width, top };
}

/** The top `rank` right singular vectors of A, row-major (one row of `count` values per column of A). */
function rightSingularVectors(
  a: SparseRows,
  rank: number,
  options: FitLsiOptions,
): { vectors: Float64Array; count: number } {
  const { z, width, top } = randomizedSvd(a, rank, options);
  const count = top.length;
  const vectors = new Float64Array(a.columns * count);
  top.forEach(({ value, vector }, k) => {
    const sigma = Math.sqrt(value);
    for (let t = 0; t < a.columns; t++) {
      let sum = 0;
      for (let i = 0; i < width; i++) sum += z[t * width + i]! * vector[i]!;
      vectors[t * count + k] = sum / sigma;
    }
  });
  return { vectors, count };
}

/** A (documents × terms, sparse) times X (terms × width, row-major). */
function multiply(a: SparseRows, x: Float64Array, width: number): Float64Array {
  const documents = a.start.length - 1;
  const y = new Float64Array(documents * width);
  for (let d = 0; d < documents; d++) {
    for (let e = a.start[d]!; e < a.start[d + 1]!; e++) {
      const weight = a.value[e]!;
      const from = a.column[e]! * width;
      for (let c = 0; c < width; c++) y[d * width + c]! += weight * x[from + c]!;
    }
  }
  return y;
}

/** Aᵀ (terms × documents) times Y (documents × width, row-major). */
function multiplyTransposed(a: SparseRows, y: Float64Array, width: number): Float64Array {
  const z = new Float64Array(a.columns * width);
  for (let d = 0; d < a.start.length - 1; d++) {
    for (let e = a.start[d]!; e < a.start[d + 1]!; e++) {
      const weight = a.value[e]!;
      const to = a.column[e]! * width;
      for (let c = 0; c < width; c++) z[to + c]! += weight * y[d * width + c]!;
    }
  }
  return z;
}

/**
 * An orthonormal basis of the columns of a (rows × width, row-major) matrix, by modified Gram-Schmidt run twice;
 * a column that adds no new direction becomes zero. Written here on typed arrays because ml-matrix's QR goes element
 * by element and takes seconds on the tall matrices of a large library.
 */
function orthonormal(values: Float64Array, rows: number, width: number): Float64Array {
  const columns: Float64Array[] = [];
  for (let c = 0; c < width; c++) {
    const column = new Float64Array(rows);
    for (let r = 0; r < rows; r++) column[r] = values[r * width + c]!;
    const before = Math.sqrt(dot(column, column));
    for (let pass = 0; pass < 2; pass++) {
      for (const previous of columns) {
        const projection = dot(column, previous);
        if (projection !== 0) for (let r = 0; r < rows; r++) column[r]! -= projection * previous[r]!;
      }
    }
    const norm = Math.sqrt(dot(column, column));
    const scale = norm > 1e-10 * Math.max(before, 1e-300) ? 1 / norm : 0;
    for (let r = 0; r < rows; r++) column[r]! *= scale;
    columns.push(column);
  }
  const q = new Float64Array(rows * width);
  for (let c = 0; c < width; c++) {
    const column = columns[c]!;
    for (let r = 0; r < rows; r++) q[r * width + c] = column[r]!;
  }
  return q;
}

function dot(a: Float64Array, b: Float64Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
  return sum;
}

/** Standard normal samples from a seeded generator (mulberry32 and Box-Muller). */
function gaussian(seed: number): () => number {
  let state = seed >>> 0;
  const uniform = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return () => Math.sqrt(-2 * Math.log(uniform() || Number.MIN_VALUE)) * Math.cos(2 * Math.PI * uniform());
}
