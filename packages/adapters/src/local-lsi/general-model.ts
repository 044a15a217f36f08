import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { LsiModel } from './lsi-model';

/**
 * The general-language term model: vectors for about 88,000 `lsiTerms` terms learned offline from Debian's manuals
 * and manual pages (see `models/README.md`), which know that a folder is a directory whatever a library's own pages say.
 */
export const GENERAL_MODEL_FILE = path.join(__dirname, '../../models/general-terms-v1.bin.gz');
/** The SHA-256 of the file as `scripts/train-language-model.ts` wrote it; `models/README.md` records the same. */
export const GENERAL_MODEL_SHA256 = 'd0f2e0dc6a4ae397b0fb4c0e1c66b994ed2b4b216b7d59363f581887588d1e63';

let loaded: LsiModel | undefined;

/** The general-language model, read once (about 25 MB in memory: 88,000 terms × 192 bytes and their strings). */
export function loadGeneralModel(): LsiModel {
  loaded ??= LsiModel.deserialize(gunzipSync(readFileSync(GENERAL_MODEL_FILE)));
  return loaded;
}

let shares: Map<string, number> | undefined;

/**
 * The share of the model's corpus files holding each term (e^-idf), read once from the model's vocabulary and idf
 * without its vectors (about 0.2 s and 10 MB): what keyword search blends with a library's own document frequencies.
 */
export function loadGeneralTermShares(): Map<string, number> {
  shares ??= readGeneralTermShares();
  return shares;
}

/** The shares read from the file, each call (what loadGeneralTermShares keeps). */
export function readGeneralTermShares(): Map<string, number> {
  const data = gunzipSync(readFileSync(GENERAL_MODEL_FILE));
  const { vocabulary, idf } = LsiModel.readVocabulary(data);
  return new Map(vocabulary.map((term, i) => [term, Math.exp(-idf[i]!)]));
}

const unitVectors = new WeakMap<LsiModel, Float32Array>();

/** The `count` terms whose vectors are closest (cosine) to `term`'s, the term itself left out; none if it is unknown. */
export function nearestTerms(model: LsiModel, term: string, count: number): { term: string; similarity: number }[] {
  const { vocabulary, dimensions } = model;
  let vectors = unitVectors.get(model);
  if (!vectors) {
    vectors = new Float32Array(vocabulary.length * dimensions);
    for (let t = 0; t < vocabulary.length; t++) vectors.set(model.project([vocabulary[t]!]), t * dimensions);
    unitVectors.set(model, vectors);
  }
  const probe = model.project([term]);
  if (!probe.some((value) => value !== 0)) return [];
  const best: { term: string; similarity: number }[] = [];
  for (let t = 0; t < vocabulary.length; t++) {
    if (vocabulary[t] === term) continue;
    let similarity = 0;
    for (let d = 0; d < dimensions; d++) similarity += vectors[t * dimensions + d]! * probe[d]!;
    if (best.length < count || similarity > best[best.length - 1]!.similarity) {
      best.push({ term: vocabulary[t]!, similarity });
      best.sort((a, b) => b.similarity - a.similarity);
      if (best.length > count) best.pop();
    }
  }
  return best;
}
