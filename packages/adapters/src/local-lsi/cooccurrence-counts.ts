/** Bits of a pair's key that hold the context: 32,768 context terms at most, and 131,072 target terms. */
const CONTEXT_BITS = 15;
export const MAX_CONTEXTS = 1 << CONTEXT_BITS;
export const MAX_TARGETS = 1 << (32 - CONTEXT_BITS);
const EMPTY = 0xffffffff;
/** Grown (doubled) past this share of slots taken: open addressing slows down as the table fills. */
const MAX_LOAD = 0.6;

/** The weighted co-occurrences, one entry per (target, context) pair seen, in no particular order. */
export interface CooccurrencePairs {
  target: Uint32Array;
  context: Uint32Array;
  weight: Float32Array;
}

/**
 * Weighted counts of (target term, context term) pairs in an open-addressing hash table of typed arrays: a corpus of
 * tens of millions of tokens makes hundreds of millions of increments, which a `Map` of string keys takes minutes and
 * gigabytes to hold. A pair is one 32-bit key, `target << 15 | context`.
 */
export class CooccurrenceCounts {
  private keys: Uint32Array;
  private weights: Float32Array;
  private used = 0;

  constructor(initialSlots = 1 << 20) {
    const slots = 2 ** Math.ceil(Math.log2(Math.max(initialSlots, 16)));
    this.keys = new Uint32Array(slots).fill(EMPTY);
    this.weights = new Float32Array(slots);
  }

  get size(): number {
    return this.used;
  }

  add(target: number, context: number, weight: number): void {
    if (target >= MAX_TARGETS || context >= MAX_CONTEXTS) throw new RangeError(`pair (${target}, ${context}) too big`);
    const key = ((target << CONTEXT_BITS) | context) >>> 0;
    const mask = this.keys.length - 1;
    let slot = hash(key) & mask;
    for (;;) {
      const found = this.keys[slot]!;
      if (found === key) {
        this.weights[slot]! += weight;
        return;
      }
      if (found === EMPTY) break;
      slot = (slot + 1) & mask;
    }
    this.keys[slot] = key;
    this.weights[slot] = weight;
    if (++this.used > this.keys.length * MAX_LOAD) this.grow();
  }

  /** Every pair counted, with its total weight. */
  pairs(): CooccurrencePairs {
    const target = new Uint32Array(this.used);
    const context = new Uint32Array(this.used);
    const weight = new Float32Array(this.used);
    let at = 0;
    for (let slot = 0; slot < this.keys.length; slot++) {
      const key = this.keys[slot]!;
      if (key === EMPTY) continue;
      target[at] = key >>> CONTEXT_BITS;
      context[at] = key & (MAX_CONTEXTS - 1);
      weight[at++] = this.weights[slot]!;
    }
    return { target, context, weight };
  }

  private grow(): void {
    const { keys, weights } = this;
    this.keys = new Uint32Array(keys.length * 2).fill(EMPTY);
    this.weights = new Float32Array(keys.length * 2);
    const mask = this.keys.length - 1;
    for (let old = 0; old < keys.length; old++) {
      const key = keys[old]!;
      if (key === EMPTY) continue;
      let slot = hash(key) & mask;
      while (this.keys[slot] !== EMPTY) slot = (slot + 1) & mask;
      this.keys[slot] = key;
      this.weights[slot] = weights[old]!;
    }
  }
}

/** A 32-bit integer mix (the finalizer of MurmurHash3): neighbouring keys land far apart. */
function hash(key: number): number {
  let h = key;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/**
 * Counts each pair of terms at most `window` apart in a stream of term ids (a negative id ends a passage: no window
 * crosses it), both ways round, weighted as word2vec's shrinking window samples them: (window − distance + 1) / window.
 * Ids below `contexts` are also context terms; the others are only targets.
 */
export function countWindowPairs(
  tokens: Int32Array,
  contexts: number,
  window: number,
  counts: CooccurrenceCounts,
): void {
  for (let i = 0; i < tokens.length; i++) {
    const target = tokens[i]!;
    if (target < 0) continue;
    for (let distance = 1; distance <= window && i + distance < tokens.length; distance++) {
      const other = tokens[i + distance]!;
      if (other < 0) break;
      const weight = (window - distance + 1) / window;
      if (other < contexts) counts.add(target, other, weight);
      if (target < contexts) counts.add(other, target, weight);
    }
  }
}
