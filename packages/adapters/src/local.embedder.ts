import type { Embedder } from '@docshelf/core';

const UNIGRAM_WEIGHT = 1;
const BIGRAM_WEIGHT = 0.5;
const TRIGRAM_WEIGHT = 0.25;
const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** Offline Embedder: signed feature hashing of words, word pairs and character trigrams. */
export class LocalEmbedder implements Embedder {
  readonly model = 'local-hash-v1';

  constructor(readonly dimensions = 256) {
    if (!Number.isInteger(dimensions) || dimensions < 1) {
      throw new Error(`embedder dimensions must be a positive integer, got ${dimensions}`);
    }
  }

  async embed(texts: string[]): Promise<number[][]> {
    return texts.map((text) => this.embedText(text));
  }

  private embedText(text: string): number[] {
    const vector = new Array<number>(this.dimensions).fill(0);
    const words = text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];
    words.forEach((word, i) => {
      this.addFeature(vector, `u:${word}`, UNIGRAM_WEIGHT);
      if (i > 0) this.addFeature(vector, `b:${words[i - 1]} ${word}`, BIGRAM_WEIGHT);
      const padded = ` ${word} `;
      for (let j = 0; j + 3 <= padded.length; j++)
        this.addFeature(vector, `c:${padded.slice(j, j + 3)}`, TRIGRAM_WEIGHT);
    });
    return normalize(vector);
  }

  private addFeature(vector: number[], feature: string, weight: number): void {
    const hash = hashFnv1a(feature);
    const index = hash % this.dimensions;
    vector[index] = (vector[index] as number) + (hash & 0x80000000 ? -weight : weight);
  }
}

/** FNV-1a 32-bit over UTF-16 code units (identical to the byte version for ASCII). */
function hashFnv1a(text: string): number {
  let hash = FNV_OFFSET;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, FNV_PRIME);
  }
  return hash >>> 0;
}

/** Scales to unit length; a text without features (or whose features cancel) gets a fixed unit vector, never NaN. */
function normalize(vector: number[]): number[] {
  const norm = Math.sqrt(vector.reduce((sum, value) => sum + value * value, 0));
  if (norm === 0) return vector.map((_, i) => (i === 0 ? 1 : 0));
  return vector.map((value) => value / norm);
}
