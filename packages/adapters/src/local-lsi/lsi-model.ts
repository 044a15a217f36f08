import { createHash } from 'node:crypto';

const MAGIC = 'LSI1';

/**
 * What latent semantic indexing learned from one library: its vocabulary with inverse document frequencies, and for
 * each term a vector in the library's latent topic space. A text maps to the idf-weighted sum of its terms' vectors,
 * so texts that share no word but whose words keep the same company in the library end up close.
 *
 * Term vectors are held as they are stored, one signed byte per value with a scale per term: a model of 30,000 terms
 * × 256 dimensions takes about 10 MB in memory rather than 34, and loads without being expanded, which matters when
 * a search over many libraries places its question with each library's model.
 */
export class LsiModel {
  private readonly indexOf: Map<string, number>;

  private constructor(
    readonly vocabulary: string[],
    readonly idf: Float32Array,
    /** One per term: its vector is its row of `quantized` times its scale. */
    private readonly scales: Float32Array,
    /** Row-major, one row of `dimensions` values per vocabulary term. */
    private readonly quantized: Int8Array,
    readonly dimensions: number,
  ) {
    this.indexOf = new Map(vocabulary.map((term, i) => [term, i]));
  }

  /** The model of learned term vectors (row-major, `dimensions` values a term), each scaled to bytes. */
  static fromVectors(vocabulary: string[], idf: Float32Array, termVectors: Float32Array, dimensions: number): LsiModel {
    const count = vocabulary.length;
    const scales = new Float32Array(count);
    const quantized = new Int8Array(count * dimensions);
    for (let t = 0; t < count; t++) {
      let max = 0;
      for (let d = 0; d < dimensions; d++) max = Math.max(max, Math.abs(termVectors[t * dimensions + d]!));
      scales[t] = max / 127;
      for (let d = 0; d < dimensions; d++) {
        quantized[t * dimensions + d] = max === 0 ? 0 : Math.round((termVectors[t * dimensions + d]! / max) * 127);
      }
    }
    return new LsiModel(vocabulary, idf, scales, quantized, dimensions);
  }

  /** Memory held, about: the bytes of the vectors, the vocabulary and its index (strings and map entries). */
  get bytes(): number {
    return (
      this.quantized.byteLength +
      this.scales.byteLength +
      this.idf.byteLength +
      this.vocabulary.reduce((sum, term) => sum + 2 * term.length + 80, 0)
    );
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
      const scale = this.scales[index]!;
      const row = index * this.dimensions;
      // Each value rounded to 32 bits as an expanded vector would hold it, so the sums are the same.
      for (let d = 0; d < this.dimensions; d++) out[d]! += weight * Math.fround(this.quantized[row + d]! * scale);
    }
    let norm = 0;
    for (const value of out) norm += value * value;
    if (norm > 0) {
      norm = Math.sqrt(norm);
      for (let d = 0; d < out.length; d++) out[d]! /= norm;
    }
    return out;
  }

  /** The stored form: header, vocabulary, idf, scales and the byte-sized term vectors. */
  serialize(): Buffer {
    const terms = Buffer.from(JSON.stringify(this.vocabulary), 'utf8');
    const header = Buffer.alloc(16);
    header.write(MAGIC, 0, 'ascii');
    header.writeUInt32LE(this.dimensions, 4);
    header.writeUInt32LE(this.vocabulary.length, 8);
    header.writeUInt32LE(terms.length, 12);
    return Buffer.concat([header, terms, bytesOf(this.idf), bytesOf(this.scales), bytesOf(this.quantized)]);
  }

  static deserialize(data: Buffer): LsiModel {
    const { vocabulary, idf } = LsiModel.readVocabulary(data);
    const dimensions = data.readUInt32LE(4);
    const count = vocabulary.length;
    let at = 16 + data.readUInt32LE(12) + count * 4;
    const scales = new Float32Array(copy(data, at, (at += count * 4)));
    const quantized = new Int8Array(copy(data, at, at + count * dimensions));
    return new LsiModel(vocabulary, idf, scales, quantized, dimensions);
  }

  /** The vocabulary and idf of a stored model, its vectors left unread. */
  static readVocabulary(data: Buffer): { vocabulary: string[]; idf: Float32Array } {
    if (data.toString('ascii', 0, 4) !== MAGIC) throw new Error('not a serialized LSI model');
    const count = data.readUInt32LE(8);
    const termBytes = data.readUInt32LE(12);
    const vocabulary = JSON.parse(data.toString('utf8', 16, 16 + termBytes)) as string[];
    const idf = new Float32Array(copy(data, 16 + termBytes, 16 + termBytes + count * 4));
    return { vocabulary, idf };
  }

  /** An id that changes whenever the learned model does. */
  static idOf(data: Buffer): string {
    return createHash('sha256').update(data).digest('hex').slice(0, 24);
  }
}

const bytesOf = (array: Float32Array | Int8Array) => Buffer.from(array.buffer, array.byteOffset, array.byteLength);
/** A copy of a slice of the buffer, aligned for typed arrays. */
const copy = (data: Buffer, start: number, end: number) => new Uint8Array(data.subarray(start, end)).buffer;
