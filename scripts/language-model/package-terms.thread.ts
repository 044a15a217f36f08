import { parentPort, workerData } from 'node:worker_threads';
import { readPackageTerms } from './package-terms';

/** Reads its share of the packages (see term-stream.ts), answering each package's terms as it finishes it. */
const { corpusDir, names, maxBytes } = workerData as { corpusDir: string; names: string[]; maxBytes: number };
for (const name of names) {
  const terms = readPackageTerms(corpusDir, name, maxBytes);
  parentPort!.postMessage(terms, [terms.ids.buffer as ArrayBuffer, terms.fileFrequency.buffer as ArrayBuffer]);
}
