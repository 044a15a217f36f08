/**
 * npm run eval:retrieval — retrieval quality on real documentation.
 *
 * Crawls the libraries of the question sets (Debian documentation packages served on 127.0.0.1) into a real Docshelf
 * (API + worker + Redis + SQLite, in this process) and asks the development set's questions (the only ones ranking is
 * tuned on) and the test set's (written before any tuning against them). For each set it prints hit@1, hit@5, MRR and
 * nDCG@5 of keyword, vector and hybrid search beside a plain BM25 baseline computed here over the same chunks — over
 * the set, per library and per kind of question — and how often `/api/context` holds an answering page within 1,000
 * and 3,000 tokens, with the median tokens it returns.
 *
 *   --set dev|test  one set only (ranking work runs `--set dev`)
 *   --keep <dir>    keep the data directory there and reuse its libraries on the next run
 *   --misses        list the questions hybrid search missed
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import request from 'supertest';
import { serveFixtures } from '@docshelf/testing/e2e/fixture-site';
import { startHarness, type Harness } from '@docshelf/testing/e2e/harness';
import { median, score, type Outcome, type Scores } from './metrics';
import { PlainBm25 } from './plain-bm25';
import { KINDS, listPages, loadQuestionSets, type QuestionSet } from './question-sets';

const ROOT = path.resolve(__dirname, '../..');
const DOCS = path.join(ROOT, '.cache/debian-docs');
const CRAWL_BATCH = 150;
const EMBED_BATCH = 500;
const TOP = 10;
const MODES = ['keyword', 'vector', 'hybrid'] as const;
const RANKINGS = ['baseline', ...MODES] as const;
type Ranking = (typeof RANKINGS)[number];
const CONTEXT_BUDGETS = [1_000, 3_000] as const;

const args = process.argv.slice(2);
const option = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const keepDir = args.includes('--keep') ? path.resolve(option('--keep') ?? '.cache/eval-data') : null;
const onlySet = option('--set');
const showMisses = args.includes('--misses');

interface Answered {
  question: QuestionSet['questions'][number];
  outcomes: Record<Ranking, Outcome>;
  /** Per context budget: whether an answering page is in the context, and the tokens it returned. */
  context: { budget: number; holdsAnswer: boolean; tokens: number }[];
}

async function main(): Promise<void> {
  execFileSync('bash', [path.join(ROOT, 'scripts/fetch-debian-docs.sh'), '--eval'], { stdio: 'inherit' });
  const sets = Object.values(loadQuestionSets(DOCS)).filter(
    (set) => !onlySet || set.name.startsWith(onlySet === 'dev' ? 'development' : onlySet),
  );
  const site = await serveFixtures({ root: DOCS });
  const h = await startHarness({
    PRIVATE_HOST_ALLOWLIST: '127.0.0.1',
    JOB_WAIT_TIMEOUT_MS: '600000',
    // Every question is asked five times (three rankings, two context budgets), faster than a client's rate limit.
    RATE_LIMIT_PER_KEY: '1000000',
    ...(keepDir ? { DATA_DIR: keepDir } : {}),
    // The embedder under evaluation: the default, or the one the environment names (EMBEDDER=local-general).
    ...(process.env.EMBEDDER ? { EMBEDDER: process.env.EMBEDDER } : {}),
  });
  try {
    const auth = { Authorization: `Bearer ${await h.createKey('admin')}` };
    for (const set of sets) {
      const started = Date.now();
      const baselines = new Map<string, { bm25: PlainBm25; pageOf: Map<string, string> }>();
      let chunkCount = 0;
      for (const [name, library] of Object.entries(set.libraries)) {
        const libraryId = `debian/${name}`;
        const origin = `${site.origin}/${library.root}`;
        await ingestLibrary(
          h,
          auth,
          libraryId,
          listPages(DOCS, library).map((page) => `${origin}${page}`),
        );
        const chunks = (await readChunks(h, auth, libraryId)).map((c) => ({
          id: c.id,
          page: pageOf(c.url, origin),
          text: `${c.title ?? ''}\n${c.content}`,
        }));
        chunkCount += chunks.length;
        baselines.set(name, { bm25: new PlainBm25(chunks), pageOf: new Map(chunks.map((c) => [c.id, c.page])) });
      }
      const ingestSeconds = (Date.now() - started) / 1000;
      const answered: Answered[] = [];
      for (const question of set.questions) {
        const library = set.libraries[question.library]!;
        const baseline = baselines.get(question.library)!;
        answered.push(
          await ask(h, auth, question, `${site.origin}/${library.root}`, (text) =>
            baseline.bm25.search(text, TOP).map((id) => baseline.pageOf.get(id)!),
          ),
        );
      }
      const embedder = (await h.adapters.libraries.getLibrary(`debian/${Object.keys(set.libraries)[0]!}`))
        ?.embeddingModel;
      report(set, answered, { chunkCount, ingestSeconds, embedder: embedder ?? 'none' });
    }
  } finally {
    await h.close();
    await site.close();
  }
}

/** One question asked of every ranking and of /api/context at each budget. */
async function ask(
  h: Harness,
  auth: Record<string, string>,
  question: QuestionSet['questions'][number],
  origin: string,
  baseline: (text: string) => string[],
): Promise<Answered> {
  const libraryId = `debian/${question.library}`;
  const outcomes = {
    baseline: { pages: baseline(question.question), answers: question.answers },
  } as Answered['outcomes'];
  for (const mode of MODES) {
    const res = await request(h.app)
      .get('/api/search')
      .query({ q: question.question, libraryId, limit: TOP, mode })
      .set(auth)
      .expect(200);
    const pages = res.body.results.map((r: { url: string | null }) => pageOf(r.url, origin));
    outcomes[mode] = { pages, answers: question.answers };
  }
  const context: Answered['context'] = [];
  for (const budget of CONTEXT_BUDGETS) {
    const res = await request(h.app)
      .get('/api/context')
      .query({ libraryId, query: question.question, tokens: budget, format: 'json' })
      .set(auth)
      .expect(200);
    const pages = res.body.pieces.map((piece: { url: string | null }) => pageOf(piece.url, origin));
    context.push({
      budget,
      holdsAnswer: pages.some((page: string) => question.answers.includes(page)),
      tokens: res.body.tokens,
    });
  }
  return { question, outcomes, context };
}

function report(
  set: QuestionSet,
  answered: Answered[],
  run: { chunkCount: number; ingestSeconds: number; embedder: string },
): void {
  const libraries = Object.keys(set.libraries);
  const count = (filter: (a: Answered) => boolean) => answered.filter(filter).length;
  console.log(
    `\n## Retrieval, ${set.name} set: ${answered.length} questions ` +
      `(${libraries.map((name) => `${name} ${count((a) => a.question.library === name)}`).join(', ')}), ` +
      `${run.chunkCount} chunks, embedder ${run.embedder}; ingest ${run.ingestSeconds.toFixed(0)} s\n`,
  );
  printTable('all questions', answered);
  for (const name of libraries)
    printTable(
      name,
      answered.filter((a) => a.question.library === name),
    );
  for (const kind of KINDS) {
    const ofKind = answered.filter((a) => a.question.kind === kind);
    if (ofKind.length > 0) printTable(`${kind} questions`, ofKind);
  }
  console.log(`\n/api/context (hybrid), ${set.name} set:\n`);
  console.log('| budget | answering page in the context | median tokens returned |\n|---|---|---|');
  for (const budget of CONTEXT_BUDGETS) {
    const at = answered.map((a) => a.context.find((c) => c.budget === budget)!);
    const share = at.filter((c) => c.holdsAnswer).length / at.length;
    console.log(`| ${budget} | ${share.toFixed(3)} | ${median(at.map((c) => c.tokens)).toFixed(0)} |`);
  }
  if (showMisses) {
    const misses = answered.filter(
      (a) => !a.outcomes.hybrid.pages.slice(0, 5).some((p) => a.question.answers.includes(p)),
    );
    console.log(`\nHybrid misses (not in the top 5):`);
    for (const { question, outcomes } of misses) {
      console.log(`${question.id} [${question.kind}]: ${question.question}`);
      console.log(`    wants ${question.answers.join(' | ')}; got ${outcomes.hybrid.pages.slice(0, 3).join(', ')}`);
    }
  }
}

function printTable(title: string, answered: Answered[]): void {
  const label: Record<Ranking, string> = {
    baseline: 'plain BM25 (baseline, outside the service)',
    keyword: 'keyword (mode=keyword)',
    vector: 'vector (mode=vector)',
    hybrid: 'hybrid (default)',
  };
  console.log(`\n${title} (${answered.length}):\n`);
  console.log('| ranking | hit@1 | hit@5 | MRR | nDCG@5 |\n|---|---|---|---|---|');
  for (const ranking of RANKINGS) {
    const s: Scores = score(answered.map((a) => a.outcomes[ranking]));
    console.log(
      `| ${label[ranking]} | ${s.hitAt1.toFixed(3)} | ${s.hitAt5.toFixed(3)} | ${s.mrr.toFixed(3)} | ${s.ndcgAt5.toFixed(3)} |`,
    );
  }
}

/** Crawls the pages over plain HTTP in batches, then embeds whatever the crawl left unembedded. */
async function ingestLibrary(
  h: Harness,
  auth: Record<string, string>,
  libraryId: string,
  urls: string[],
): Promise<void> {
  const existing = await h.adapters.libraries.getLibrary(libraryId);
  if (keepDir && existing && existing.chunkCount > 0) {
    console.log(`${libraryId}: reusing ${existing.chunkCount} chunks in ${keepDir}`);
    return;
  }
  let chunks = 0;
  for (let start = 0; start < urls.length; start += CRAWL_BATCH) {
    const res = await request(h.app)
      .post('/api/crawl')
      .set(auth)
      .send({
        libraryId,
        name: libraryId,
        urls: urls.slice(start, start + CRAWL_BATCH),
        replace: start === 0,
        renderer: 'http',
      })
      .expect(200);
    chunks = res.body.chunksIngested as number;
    if (res.body.errors.length > 0)
      console.warn(`${libraryId}: ${res.body.errors.length} page errors, e.g. ${res.body.errors[0]}`);
  }
  for (let offset: number | null = 0; offset !== null;) {
    const res: request.Response = await request(h.app)
      .post('/api/embed')
      .set(auth)
      .send({ libraryId, offset, limit: EMBED_BATCH })
      .expect(200);
    offset = res.body.nextOffset;
  }
  console.log(`${libraryId}: ${urls.length} pages, ${chunks} chunks in the last batch, embedded`);
}

async function readChunks(h: Harness, auth: Record<string, string>, libraryId: string) {
  const chunks: { id: string; title: string | null; url: string | null; content: string }[] = [];
  for (let offset: number | null = 0; offset !== null;) {
    const res: request.Response = await request(h.app)
      .get('/api/chunks')
      .query({ libraryId, offset, limit: 500 })
      .set(auth)
      .expect(200);
    chunks.push(...res.body.chunks);
    offset = res.body.nextOffset;
  }
  return chunks;
}

/** The page a result came from, relative to its library's root URL, without origin, fragment or query. */
function pageOf(url: string | null, root: string): string {
  if (!url) return '';
  const rootPath = new URL(root).pathname;
  const bare = new URL(url).pathname;
  return bare.startsWith(rootPath) ? bare.slice(rootPath.length) : bare;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
