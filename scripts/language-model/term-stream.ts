import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { PASSAGE_END, Vocabulary, type PackageTerms } from './package-terms';

export { PASSAGE_END };

/** The whole corpus as one stream of term ids, with each term's count and the number of files it occurs in. */
export interface TermStream {
  terms: string[];
  ids: Int32Array;
  frequency: Float64Array;
  fileFrequency: Float64Array;
  files: number;
  bytes: number;
  tokens: number;
}

/**
 * Reads the manifest's packages in `threads` worker threads (turning prose into terms is most of the time) and joins
 * them in the manifest's order, so the same corpus gives the same stream however the threads were scheduled.
 */
export async function readTermStream(
  corpusDir: string,
  maxPackageBytes: number,
  threads: number,
  report = (_line: string) => {},
): Promise<TermStream> {
  const names = readFileSync(path.join(corpusDir, 'manifest.tsv'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => line.split('\t')[0]!);
  const read = new Map<string, PackageTerms>();
  await Promise.all(
    Array.from({ length: threads }, (_, thread) => {
      const share = names.filter((_name, i) => i % threads === thread);
      const worker = new Worker(path.join(__dirname, 'package-terms.thread.ts'), {
        workerData: { corpusDir, names: share, maxBytes: maxPackageBytes },
        execArgv: ['--require', require.resolve('tsx/cjs'), '--conditions=@docshelf/source'],
      });
      worker.on('message', (terms: PackageTerms) => {
        read.set(terms.name, terms);
        report(`${terms.name}: ${(terms.bytes / 1e6).toFixed(1)} MB of text, ${terms.tokens} terms`);
      });
      return new Promise<void>((resolve, reject) => {
        worker.once('error', reject);
        worker.once('exit', (code) =>
          code === 0 ? resolve() : reject(new Error(`reader thread exited with ${code}`)),
        );
      });
    }),
  );
  return joinPackages(names.map((name) => read.get(name)!));
}

function joinPackages(packages: PackageTerms[]): TermStream {
  const vocabulary = new Vocabulary();
  const ids = new Int32Array(packages.reduce((sum, p) => sum + p.ids.length, 0));
  let at = 0;
  for (const p of packages) {
    const global = p.terms.map((term, local) => {
      const id = vocabulary.idOf(term);
      vocabulary.fileFrequency[id]! += p.fileFrequency[local]!;
      return id;
    });
    for (const id of p.ids) ids[at++] = id === PASSAGE_END ? PASSAGE_END : global[id]!;
  }
  const { terms, fileFrequency } = vocabulary;
  const frequency = new Float64Array(terms.length);
  for (const id of ids) if (id !== PASSAGE_END) frequency[id]!++;
  return {
    terms,
    ids,
    frequency,
    fileFrequency: Float64Array.from(fileFrequency),
    files: packages.reduce((sum, p) => sum + p.files, 0),
    bytes: packages.reduce((sum, p) => sum + p.bytes, 0),
    tokens: packages.reduce((sum, p) => sum + p.tokens, 0),
  };
}
