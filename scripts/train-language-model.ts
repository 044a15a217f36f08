/**
 * Learns the general-language term model from the corpus `scripts/fetch-training-corpus.sh` unpacks: word–context
 * PPMI reduced by truncated SVD (Levy, Goldberg and Dagan 2015) over the terms `lsiTerms` makes, stored as an
 * `LsiModel`, gzipped. Prints the corpus, the time and memory of each step, the model's SHA-256 and the nearest
 * terms of a list of probes. Deterministic for a given corpus.
 *
 *   npm run train:language-model [-- --dimensions 192 --vocabulary 100000 --package-mb 12 --out file.bin.gz]
 */
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import {
  CooccurrenceCounts,
  MAX_CONTEXTS,
  MAX_TARGETS,
  countWindowPairs,
} from '../packages/adapters/src/local-lsi/cooccurrence-counts';
import { GENERAL_MODEL_FILE, nearestTerms } from '../packages/adapters/src/local-lsi/general-model';
import { LsiModel } from '../packages/adapters/src/local-lsi/lsi-model';
import { lsiTerms } from '../packages/adapters/src/local-lsi/lsi-terms';
import { ppmiTermVectors } from '../packages/adapters/src/local-lsi/ppmi-term-vectors';
import { PASSAGE_END, readTermStream, type TermStream } from './language-model/term-stream';

const { values: args } = parseArgs({
  options: {
    corpus: { type: 'string', default: '.cache/training-corpus' },
    out: { type: 'string', default: GENERAL_MODEL_FILE },
    dimensions: { type: 'string', default: '192' },
    vocabulary: { type: 'string', default: '100000' },
    contexts: { type: 'string', default: '30000' },
    window: { type: 'string', default: '5' },
    subsample: { type: 'string', default: '1e-4' },
    'min-count': { type: 'string', default: '5' },
    'package-mb': { type: 'string', default: '12' },
    threads: { type: 'string', default: '4' },
  },
});
const dimensions = Number(args.dimensions);
const maxVocabulary = Math.min(Number(args.vocabulary), MAX_TARGETS);
const maxContexts = Math.min(Number(args.contexts), MAX_CONTEXTS);
const window = Number(args.window);
const subsample = Number(args.subsample);
const minCount = Number(args['min-count']);
const SEED = 0x5eed;

/** What a developer asks about and docs say otherwise; printed so the quality of a model is visible. */
const PROBES = [
  'folder', 'directory', 'delete', 'remove', 'erase', 'wipe', 'trash', 'junk', 'undo', 'stash', 'commit', 'branch',
  'untracked', 'error', 'install', 'crash', 'slow', 'thread', 'socket', 'permission', 'password', 'download',
  'config', 'memory', 'exit', 'shortcut',
]; // prettier-ignore

const started = Date.now();
const step = (what: string) => {
  const { heapUsed, rss } = process.memoryUsage();
  const seconds = ((Date.now() - started) / 1000).toFixed(0);
  console.log(`[${seconds}s, rss ${mb(rss)} MB, heap ${mb(heapUsed)} MB] ${what}`);
};
const mb = (bytes: number) => (bytes / 1e6).toFixed(0);

async function main(): Promise<void> {
  const stream = await readTermStream(args.corpus, Number(args['package-mb']) * 1e6, Number(args.threads), (line) =>
    console.log(`  ${line}`),
  );
  const { tokens } = stream;
  step(`read ${stream.files} files: ${mb(stream.bytes)} MB of text, ${tokens} terms, ${stream.terms.length} distinct`);

  const vocabulary = chooseVocabulary(stream);
  const targetIds = keptTerms(stream, vocabulary, tokens);
  step(
    `vocabulary ${vocabulary.length} terms (${maxContexts} of them contexts); ${countKept(targetIds)} terms counted`,
  );

  const counts = new CooccurrenceCounts(1 << 26);
  countWindowPairs(targetIds, Math.min(maxContexts, vocabulary.length), window, counts);
  const pairs = counts.pairs();
  step(`${pairs.weight.length} distinct pairs within ±${window}`);

  const vectors = ppmiTermVectors(pairs, vocabulary.length, Math.min(maxContexts, vocabulary.length), {
    dimensions,
    seed: SEED,
  });
  step(`PPMI + SVD: ${dimensions} dimensions`);

  const idf = Float32Array.from(vocabulary, (id) => Math.log(stream.files / stream.fileFrequency[id]!));
  const model = LsiModel.fromVectors(
    vocabulary.map((id) => stream.terms[id]!),
    idf,
    vectors,
    dimensions,
  );
  const data = gzipSync(model.serialize(), { level: 9 });
  mkdirSync(path.dirname(args.out), { recursive: true });
  writeFileSync(args.out, data);
  copyFileSync(path.join(args.corpus, 'manifest.tsv'), args.out.replace(/\.bin(\.gz)?$/, '.manifest.tsv'));
  step(
    `wrote ${args.out}: ${(data.length / 1e6).toFixed(1)} MB, sha256 ${createHash('sha256').update(data).digest('hex')}`,
  );

  for (const probe of PROBES) {
    const neighbours = nearestTerms(model, lsiTermOf(probe), 12);
    console.log(`${probe}: ${neighbours.map(({ term, similarity }) => `${term} ${similarity.toFixed(2)}`).join(', ')}`);
  }
  step(`done; peak rss ${mb(process.resourceUsage().maxRSS * 1024)} MB`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

/** The `maxVocabulary` most frequent terms seen `minCount` times, of letters and digits only, most frequent first. */
function chooseVocabulary({ terms, frequency }: TermStream): number[] {
  const ids: number[] = [];
  for (let id = 0; id < terms.length; id++) {
    if (frequency[id]! >= minCount && /^[a-z][a-z0-9]*$/.test(terms[id]!)) ids.push(id);
  }
  ids.sort((a, b) => frequency[b]! - frequency[a]! || (terms[a]! < terms[b]! ? -1 : 1));
  return ids.slice(0, maxVocabulary);
}

/**
 * The stream in vocabulary ids, terms outside the vocabulary dropped (windows close over them, as word2vec's do) and
 * frequent terms subsampled (kept with probability √(t / f)): "use" and "file" stop filling every window.
 */
function keptTerms(stream: TermStream, vocabulary: number[], total: number): Int32Array {
  const rank = new Int32Array(stream.terms.length).fill(-2);
  vocabulary.forEach((id, index) => (rank[id] = index));
  const keep = Float64Array.from(vocabulary, (id) =>
    Math.min(1, Math.sqrt(subsample / (stream.frequency[id]! / total))),
  );
  const random = uniform(SEED);
  const out = new Int32Array(stream.ids.length);
  let length = 0;
  for (const id of stream.ids) {
    if (id === PASSAGE_END) {
      if (length > 0 && out[length - 1] !== PASSAGE_END) out[length++] = PASSAGE_END;
      continue;
    }
    const index = rank[id]!;
    if (index >= 0 && (subsample <= 0 || random() < keep[index]!)) out[length++] = index;
  }
  return out.subarray(0, length);
}

function countOf(ids: Int32Array, value: number): number {
  let count = 0;
  for (const id of ids) if (id === value) count++;
  return count;
}

function countKept(ids: Int32Array): number {
  return ids.length - countOf(ids, PASSAGE_END);
}

function lsiTermOf(word: string): string {
  return lsiTerms(word)[0] ?? word;
}

/** Uniform samples in [0, 1) from a seeded generator (mulberry32). */
function uniform(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
