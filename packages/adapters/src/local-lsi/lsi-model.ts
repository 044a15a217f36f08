import { createHash } from 'node:crypto';

const MAGIC = 'LSI1';

/**
 * What latent semantic indexing learned from one library: its vocabulary with inverse document frequencies, and for
 * each term a vector in the library's latent topic space. A text maps to the idf-weighted sum of its terms' vectors,
 * so texts that share no word but whose words keep the same company in the library end up close.
 */
export class LsiModel {
  private readonly indexOf: Map<string, number>;

  constructor(
    readonly vocabulary: string[],
    readonly idf: Float32Array,
    /** Row-major, one row of `dimensions` values per vocabulary term. */
    readonly termVectors: Float32Array,
    readonly dimensions: number,
  ) {
    this.indexOf = new Map(vocabulary.map((term, i) => [term, i]));
  }

  /** The unit vector of a text's terms; all zeros when none of them is in the vocabulary. */
  project(terms: string[]): Float32Array {
    const counts = new Map<number, number>();
    for (const term of terms) {
      const index = this.indexOf.get(term);
      if (index !== undefined) counts.set(index, (counts.get(index) ?? 0) + 1);
    }
    const out = new Float32Array(this.dimensions);
    for (const [index, count] of counts) {
      const weight = (1 + Math.log(count)) * this.idf[index]!;
      const row = index * this.dimensions;
      for (let d = 0; d < this.dimensions; d++) out[d]! += weight * this.termVectors[row + d]!;
    }
    let norm = 0;
    for (const value of out) norm += value * value;
    if (norm > 0) {
      norm = Math.sqrt(norm);
      for (let d = 0; d < out.length; d++) out[d]! /= norm;
    }
    return out;
  }

  /** A compact binary form: term vectors quantized to one byte per value with a scale per term (4× smaller). */
  serialize(): Buffer {
    const terms = Buffer.from(JSON.stringify(this.vocabulary), 'utf8');
    const count = this.vocabulary.length;
    const header = Buffer.alloc(16);
    header.write(MAGIC, 0, 'ascii');
    header.writeUInt32LE(this.dimensions, 4);
    header.writeUInt32LE(count, 8);
    header.writeUInt32LE(terms.length, 12);
    const scales = new Float32Array(count);
    const quantized = new Int8Array(count * this.dimensions);
    for (let t = 0; t < count; t++) {
      let max = 0;
      for (let d = 0; d < this.dimensions; d++)
        max = Math.max(max, Math.abs(this.termVectors[t * this.dimensions + d]!));
      scales[t] = max / 127;
      for (let d = 0; d < this.dimensions; d++) {
        quantized[t * this.dimensions + d] =
          max === 0 ? 0 : Math.round((this.termVectors[t * this.dimensions + d]! / max) * 127);
      }
    }
    return Buffer.concat([header, terms, bytesOf(this.idf), bytesOf(scales), bytesOf(quantized)]);
  }

  static deserialize(data: Buffer): LsiModel {
    if (data.toString('ascii', 0, 4) !== MAGIC) throw new Error('not a serialized LSI model');
    const dimensions = data.readUInt32LE(4);
    const count = data.readUInt32LE(8);
    const termBytes = data.readUInt32LE(12);
    let at = 16;
    const vocabulary = JSON.parse(data.toString('utf8', at, (at += termBytes))) as string[];
    const idf = new Float32Array(copy(data, at, (at += count * 4)));
    const scales = new Float32Array(copy(data, at, (at += count * 4)));
    const quantized = new Int8Array(copy(data, at, at + count * dimensions));
    const termVectors = new Float32Array(count * dimensions);
    for (let i = 0; i < termVectors.length; i++) termVectors[i] = quantized[i]! * scales[Math.floor(i / dimensions)]!;
    return new LsiModel(vocabulary, idf, termVectors, dimensions);
  }

  /** An id that changes whenever the learned model does. */
  static idOf(data: Buffer): string {
    return createHash('sha256').update(data).digest('hex').slice(0, 24);
  }
}

const bytesOf = (array: Float32Array | Int8Array) => Buffer.from(array.buffer, array.byteOffset, array.byteLength);
/** A copy of a slice of the buffer, aligned for typed arrays. */
const copy = (data: Buffer, start: number, end: number) => new Uint8Array(data.subarray(start, end)).buffer;
