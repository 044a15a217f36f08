/**
 * npm run eval:retrieval — retrieval quality on real documentation.
 *
 * Crawls Debian's nodejs-doc and git-doc pages (served on 127.0.0.1) into a real Docshelf (API + worker + Redis +
 * SQLite, in this process), asks the hand-written questions of questions.json, and prints hit@1, hit@5 and MRR of
 * keyword, vector and hybrid search beside a plain BM25 baseline computed here over the same chunks.
 *
 *   --keep <dir>   keep the data directory there and reuse its libraries on the next run (ranking work)
 *   --misses       list the questions hybrid search missed
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { serveFixtures } from '../../test/support/fixture-server';
import { startHarness, type Harness } from '../../test/support/harness';
import { firstHit, score, type Scores } from './metrics';
import { PlainBm25 } from './plain-bm25';

interface Question {
  id: string;
  library: string;
  question: string;
  answers: string[];
}

interface QuestionSet {
  libraries: Record<string, string>;
  questions: Question[];
}

const ROOT = path.resolve(__dirname, '../..');
const DOCS = path.join(ROOT, '.cache/debian-docs');
const CRAWL_BATCH = 150;
const EMBED_BATCH = 500;
const TOP = 10;

/** Which pages of each docs set are ingested: every HTML page but the single-page and index copies of Node's. */
const PAGE_SETS: Record<string, { dirs: string[]; exclude: string[] }> = {
  nodejs: { dirs: [''], exclude: ['all.html', 'index.html'] },
  git: { dirs: ['', 'howto/', 'technical/'], exclude: [] },
};

const args = process.argv.slice(2);
const keepDir = args.includes('--keep') ? path.resolve(args[args.indexOf('--keep') + 1] ?? '.cache/eval-data') : null;
const showMisses = args.includes('--misses');

async function main(): Promise<void> {
  execFileSync('bash', [path.join(ROOT, 'scripts/fetch-debian-docs.sh')], { stdio: 'inherit' });
  const set = JSON.parse(fs.readFileSync(path.join(__dirname, 'questions.json'), 'utf8')) as QuestionSet;
  const site = await serveFixtures({ root: DOCS });
  const h = await startHarness({
    PRIVATE_HOST_ALLOWLIST: '127.0.0.1',
    JOB_WAIT_TIMEOUT_MS: '600000',
    ...(keepDir ? { DATA_DIR: keepDir } : {}),
  });
  try {
    const auth = { Authorization: `Bearer ${await h.createKey('admin')}` };
    const started = Date.now();
    const chunksByLibrary = new Map<string, { id: string; page: string; text: string }[]>();
    for (const [library, root] of Object.entries(set.libraries)) {
      const libraryId = `debian/${library}`;
      const pageUrl = (page: string) => `${site.origin}/${root}${page}`;
      await ingestLibrary(h, auth, libraryId, listPages(root, PAGE_SETS[library]!).map(pageUrl));
      const chunks = await readChunks(h, auth, libraryId);
      chunksByLibrary.set(
        libraryId,
        chunks.map((c) => ({
          id: c.id,
          page: pageOf(c.url, `${site.origin}/${root}`),
          text: `${c.title ?? ''}\n${c.content}`,
        })),
      );
    }
    const ingestSeconds = (Date.now() - started) / 1000;

    const modes = ['keyword', 'vector', 'hybrid'] as const;
    const ranks: Record<string, (number | null)[]> = { baseline: [], keyword: [], vector: [], hybrid: [] };
    const perLibrary = new Map<string, Record<string, (number | null)[]>>();
    const misses: string[] = [];
    const baselines = new Map(
      [...chunksByLibrary].map(([id, chunks]) => [id, { chunks, bm25: new PlainBm25(chunks) }]),
    );
    for (const q of set.questions) {
      const libraryId = `debian/${q.library}`;
      const root = `${site.origin}/${set.libraries[q.library]}`;
      const lib = perLibrary.get(q.library) ?? { baseline: [], keyword: [], vector: [], hybrid: [] };
      perLibrary.set(q.library, lib);
      const baseline = baselines.get(libraryId)!;
      const pageById = new Map(baseline.chunks.map((c) => [c.id, c.page]));
      const baselineRank = firstHit(
        baseline.bm25.search(q.question, TOP).map((id) => pageById.get(id)!),
        q.answers,
      );
      ranks.baseline!.push(baselineRank);
      lib.baseline!.push(baselineRank);
      for (const mode of modes) {
        const res = await request(h.app)
          .get('/api/search')
          .query({ q: q.question, libraryId, limit: TOP, mode })
          .set(auth)
          .expect(200);
        const rank = firstHit(
          res.body.results.map((r: { url: string | null }) => pageOf(r.url, root)),
          q.answers,
        );
        ranks[mode]!.push(rank);
        lib[mode]!.push(rank);
        if (mode === 'hybrid' && (rank === null || rank > 5)) {
          const got = res.body.results
            .slice(0, 3)
            .map((r: { url: string | null }) => pageOf(r.url, root))
            .join(', ');
          misses.push(`${q.id} (rank ${rank ?? '>10'}): ${q.question}\n    wants ${q.answers.join(' | ')}; got ${got}`);
        }
      }
    }

    const chunkCount = [...chunksByLibrary.values()].reduce((n, c) => n + c.length, 0);
    const library = await h.adapters.libraries.getLibrary('debian/nodejs');
    console.log(
      `\nRetrieval evaluation: ${set.questions.length} questions (${[...perLibrary].map(([l, r]) => `${l} ${r.hybrid!.length}`).join(', ')}), ` +
        `${chunkCount} chunks, embedder ${library?.embeddingModel ?? 'none'}; ingest ${ingestSeconds.toFixed(0)} s\n`,
    );
    printTable(ranks);
    for (const [name, libRanks] of perLibrary) {
      console.log(`\n${name}:`);
      printTable(libRanks);
    }
    console.log('\nHalves of the set (odd-numbered questions, even-numbered questions):');
    for (const [name, list] of Object.entries(ranks)) {
      const half = (parity: number) => score(list.filter((_, i) => i % 2 === parity));
      const [odd, even] = [half(0), half(1)];
      console.log(
        `  ${name.padEnd(9)} hit@5 ${odd.hitAt5.toFixed(3)} / ${even.hitAt5.toFixed(3)}   MRR ${odd.mrr.toFixed(3)} / ${even.mrr.toFixed(3)}`,
      );
    }
    if (showMisses) console.log(`\nHybrid misses (not in the top 5):\n${misses.join('\n')}`);
  } finally {
    await h.close();
    await site.close();
  }
}

function listPages(root: string, pages: { dirs: string[]; exclude: string[] }): string[] {
  return pages.dirs.flatMap((dir) =>
    fs
      .readdirSync(path.join(DOCS, root, dir))
      .filter((file) => file.endsWith('.html') && !pages.exclude.includes(`${dir}${file}`))
      .sort()
      .map((file) => `${dir}${file}`),
  );
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

/** The page a result came from, relative to its library's root path, without origin, fragment or query. */
function pageOf(url: string | null, root: string): string {
  if (!url) return '';
  const rootPath = new URL(root).pathname;
  const bare = new URL(url).pathname;
  return bare.startsWith(rootPath) ? bare.slice(rootPath.length) : bare;
}

function printTable(ranks: Record<string, (number | null)[]>): void {
  const rows: [string, Scores][] = [
    ['plain BM25 (baseline, outside the service)', score(ranks.baseline!)],
    ['keyword (GET /api/search?mode=keyword)', score(ranks.keyword!)],
    ['vector (mode=vector)', score(ranks.vector!)],
    ['hybrid (default)', score(ranks.hybrid!)],
  ];
  console.log(`| ranking | hit@1 | hit@5 | MRR |\n|---|---|---|---|`);
  for (const [name, s] of rows)
    console.log(`| ${name} | ${s.hitAt1.toFixed(3)} | ${s.hitAt5.toFixed(3)} | ${s.mrr.toFixed(3)} |`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
