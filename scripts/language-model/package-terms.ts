import path from 'node:path';
import { lsiTerms } from '../../packages/adapters/src/local-lsi/lsi-terms';
import { corpusFiles, passagesOf } from './corpus-passages';

export const PASSAGE_END = -1;

/**
 * One package's prose as a stream of term ids into its own list of terms, `PASSAGE_END` after each passage, with the
 * number of its files each term occurs in. Terms are `lsiTerms`'s, the embedder's own, so the vectors learned compose
 * with it.
 */
export interface PackageTerms {
  name: string;
  terms: string[];
  ids: Int32Array;
  fileFrequency: Int32Array;
  files: number;
  bytes: number;
  tokens: number;
}

/** Terms numbered in the order first met, with the number of files holding each. */
export class Vocabulary {
  readonly terms: string[] = [];
  readonly fileFrequency: number[] = [];
  private readonly ids = new Map<string, number>();

  /** The term's number, given it on first meeting. */
  idOf(term: string): number {
    let id = this.ids.get(term);
    if (id === undefined) {
      id = this.terms.length;
      this.ids.set(term, id);
      this.terms.push(term);
      this.fileFrequency.push(0);
    }
    return id;
  }
}

/** Up to `maxBytes` of the package's prose: the kernel's or Java's thousands of pages would outweigh the rest. */
export function readPackageTerms(corpusDir: string, name: string, maxBytes: number): PackageTerms {
  const vocabulary = new Vocabulary();
  let ids = new Int32Array(1 << 16);
  let length = 0;
  const push = (id: number) => {
    if (length === ids.length) {
      const grown = new Int32Array(ids.length * 2);
      grown.set(ids);
      ids = grown;
    }
    ids[length++] = id;
  };
  let files = 0;
  let bytes = 0;
  let tokens = 0;
  // Navigation, footers and notices repeat on every page: each passage is read once.
  const passagesRead = new Set<string>();
  for (const { file, kind } of corpusFiles(path.join(corpusDir, name))) {
    if (bytes >= maxBytes) break;
    const seen = new Set<number>();
    for (const passage of passagesOf(file, kind)) {
      const key = passage.trim();
      if (passagesRead.has(key)) continue;
      passagesRead.add(key);
      bytes += passage.length;
      for (const term of lsiTerms(passage)) {
        const id = vocabulary.idOf(term);
        seen.add(id);
        push(id);
        tokens++;
      }
      push(PASSAGE_END);
    }
    for (const id of seen) vocabulary.fileFrequency[id]!++;
    files++;
  }
  return {
    name,
    terms: vocabulary.terms,
    ids: ids.slice(0, length),
    fileFrequency: Int32Array.from(vocabulary.fileFrequency),
    files,
    bytes,
    tokens,
  };
}
