import type { CooccurrencePairs } from './cooccurrence-counts';
import { randomizedSvd, type SparseRows } from './fit-lsi';

export interface PpmiOptions {
  dimensions: number;
  /** Exponent of the context distribution (Levy, Goldberg and Dagan 2015): 0.75 keeps rare contexts from ruling PMI. */
  contextSmoothing?: number;
  /** Extra directions sampled beyond `dimensions`, and subspace iterations: the accuracy of the randomized SVD. */
  oversampling?: number;
  powerIterations?: number;
  seed?: number;
}

/**
 * Term vectors from word–context co-occurrences: the positive pointwise mutual information matrix (targets × contexts,
 * smoothed context distribution), reduced by randomized SVD to U·Σ^½, each row of unit length (Levy, Goldberg and
 * Dagan 2015). Terms used in the same company get close vectors whether or not they ever meet: folder and directory.
 * Rows of `targets` × `dimensions` values; a term with no pair is all zeros.
 */
export function ppmiTermVectors(
  pairs: CooccurrencePairs,
  targets: number,
  contexts: number,
  options: PpmiOptions,
): Float32Array {
  const matrix = ppmiMatrix(pairs, targets, contexts, options.contextSmoothing ?? 0.75);
  const { dimensions } = options;
  const vectors = new Float32Array(targets * dimensions);
  const { u, sigma, count } = leftSingularVectors(matrix, Math.min(dimensions, targets, contexts), options);
  for (let t = 0; t < targets; t++) {
    let norm = 0;
    for (let k = 0; k < count; k++) norm += u[t * count + k]! ** 2 * sigma[k]!;
    if (norm === 0) continue;
    const scale = 1 / Math.sqrt(norm);
    for (let k = 0; k < count; k++) vectors[t * dimensions + k] = u[t * count + k]! * Math.sqrt(sigma[k]!) * scale;
  }
  return vectors;
}

/** PPMI(t, c) = max(0, log(n(t, c) / (n(t) · P_α(c)))), as sparse rows by target (zeros left out). */
export function ppmiMatrix(pairs: CooccurrencePairs, targets: number, contexts: number, alpha: number): SparseRows {
  const targetTotal = new Float64Array(targets);
  const contextTotal = new Float64Array(contexts);
  for (let i = 0; i < pairs.weight.length; i++) {
    targetTotal[pairs.target[i]!]! += pairs.weight[i]!;
    contextTotal[pairs.context[i]!]! += pairs.weight[i]!;
  }
  let smoothedSum = 0;
  for (let c = 0; c < contexts; c++) smoothedSum += contextTotal[c]! ** alpha;
  const logContextShare = Float64Array.from(contextTotal, (total) => Math.log(total ** alpha / smoothedSum));

  const pmi = (i: number) =>
    Math.log(pairs.weight[i]! / targetTotal[pairs.target[i]!]!) - logContextShare[pairs.context[i]!]!;
  // Counting sort by target: entries per row, their offsets, then each positive entry in its row's place.
  const start = new Int32Array(targets + 1);
  for (let i = 0; i < pairs.weight.length; i++) if (pmi(i) > 0) start[pairs.target[i]! + 1]!++;
  for (let t = 0; t < targets; t++) start[t + 1]! += start[t]!;
  const next = start.slice(0, targets);
  const column = new Int32Array(start[targets]!);
  const value = new Float64Array(start[targets]!);
  for (let i = 0; i < pairs.weight.length; i++) {
    const weight = pmi(i);
    if (weight <= 0) continue;
    const at = next[pairs.target[i]!]!++;
    column[at] = pairs.context[i]!;
    value[at] = weight;
  }
  return { start, column, value, columns: contexts };
}

/**
 * The top `rank` left singular vectors of A (rows × columns, sparse) and their squared singular values, by randomized
 * SVD (Halko, Martinsson and Tropp 2011): Q spans A·Ω after power iterations, and the eigenvectors of (QᵀA)(QᵀA)ᵀ turn
 * Q into U. Row-major, `count` values a row; `sigma` holds the singular values themselves.
 */
export function leftSingularVectors(
  a: SparseRows,
  rank: number,
  options: Omit<PpmiOptions, 'dimensions'> = {},
): { u: Float64Array; sigma: Float64Array; count: number } {
  const rows = a.start.length - 1;
  const { q, width, top } = randomizedSvd(a, rank, options);
  const count = top.length;
  const rotation = top.map(({ vector }) => vector);
  const u = new Float64Array(rows * count);
  for (let r = 0; r < rows; r++) {
    for (let k = 0; k < count; k++) {
      const column = rotation[k]!;
      let sum = 0;
      for (let i = 0; i < width; i++) sum += q[r * width + i]! * column[i]!;
      u[r * count + k] = sum;
    }
  }
  return { u, sigma: Float64Array.from(top, ({ value }) => Math.sqrt(value)), count };
}
