/**
 * `npm run bench`: each figure is printed beside a baseline measured in the same run, on the same machine,
 * so ratios stay meaningful on a noisy host. Needs Redis like the tests.
 */
import { randomUUID } from 'node:crypto';
import { embedChunks } from '@docshelf/core';
import request from 'supertest';
import { startHarness } from '@docshelf/testing/e2e/harness';
import { benchSearch } from './search.bench';
import { benchJobs } from './jobs-overhead';
import { benchColdStart } from './cold-start.bench';
import { benchCrawl } from './crawl.bench';
import { benchRecrawl } from './recrawl.bench';
import { benchExtract } from './extract.bench';
import { benchExtractQuality } from './extract-quality.bench';
import { benchSite } from './site.bench';
import { benchBigLibrary } from './big-library.bench';
import { benchKeywordProfile } from './keyword-profile.bench';
import { benchManyLibraries } from './many-libraries.bench';

const WORDS = 'widget gauge render stream batch layout theme option value event handler refresh interval chart'.split(
  ' ',
);

function makeChunks(count: number, words: number) {
  return Array.from({ length: count }, (_, i) => ({
    id: `chunk-${i}`,
    title: `Section ${i}`,
    content: Array.from({ length: words }, (_, w) => WORDS[(i * 31 + w * 7) % WORDS.length]).join(' '),
  }));
}

async function time<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = process.hrtime.bigint();
  const value = await fn();
  return { ms: Number(process.hrtime.bigint() - started) / 1e6, value };
}

const row = (name: string, ms: number, baselineName: string, baselineMs: number) =>
  console.log(
    `${name.padEnd(44)} ${ms.toFixed(0).padStart(7)} ms | baseline ${baselineName.padEnd(34)} ${baselineMs.toFixed(0).padStart(7)} ms | ratio ${(ms / baselineMs).toFixed(2)}x`,
  );

/**
 * `npm run bench` runs every section but `site`, `big-library` and `many-libraries` (about half an hour each at full
 * size) and `keyword-profile` (a look inside one number of big-library), which run only when named;
 * `npm run bench -- cold-start jobs` runs the named ones.
 */
const only = process.argv.slice(2);
const wanted = (section: string) => only.length === 0 || only.includes(section);
const named = (section: string) => only.includes(section);

async function main() {
  if (wanted('ingest') || wanted('search')) await benchIngestAndSearch();
  // Every request runs as a job: its cost against doing the work inline, and how fast a 202 answers. A fresh
  // service, so the figures are not those of a SQLite file just filled with 50 MB of chunks.
  if (wanted('jobs')) await benchJobs();
  if (wanted('cold-start')) await benchColdStart();
  // Crawling: Docshelf's own processes against a bare Playwright loop, Crawlee and plain HTTP on the same URLs.
  if (wanted('crawl')) await benchCrawl();
  // Refresh: a re-crawl of an unchanged site against its first crawl, on a fresh service of its own.
  if (wanted('recrawl')) await benchRecrawl();
  // Extraction: CPU per page of extractPage against cheerio's parse alone, on the same pages.
  if (wanted('extract')) benchExtract();
  // Extraction quality: word precision and recall against hand-checked truth, beside Readability (about a minute).
  if (wanted('extract-quality')) benchExtractQuality();
  // Whole sites: 10,000 pages of rust-doc and all of PostgreSQL's manual, a worker killed, a cancel, two workers.
  if (named('site')) await benchSite();
  // Big libraries: 10,000 to 200,000 chunks ingested, embedded and searched (tens of minutes, so only when named).
  if (named('big-library')) await benchBigLibrary();
  // Many libraries: 1,000,000 chunks over 50 libraries, searched all at once and one at a time (only when named).
  if (named('many-libraries')) await benchManyLibraries();
  // Where a pruned keyword search's time goes at 10,000 and 200,000 chunks (a few minutes, only when named).
  if (named('keyword-profile')) await benchKeywordProfile();
}

async function benchIngestAndSearch() {
  const h = await startHarness();
  try {
    const key = await h.createKey('admin');
    const auth = { Authorization: `Bearer ${key}` };

    // 1. The largest payload BODY_LIMIT is sized for: 10,000 chunks of 500 words.
    const chunks = makeChunks(10_000, 500);
    const body = { libraryId: 'bench/big', name: 'Big', chunks, skipEmbeddings: true };
    const bytes = Buffer.byteLength(JSON.stringify(body));
    const heapBefore = process.memoryUsage().rss;
    const api = await time(() => request(h.app).post('/api/ingest').set(auth).send(body).expect(200));
    const rssGrowth = (process.memoryUsage().rss - heapBefore) / 2 ** 20;
    const direct = await time(() =>
      h.adapters.libraries.commitIngestion({
        library: { id: 'bench/direct', name: 'Direct', sourceType: 'llms_txt' },
        ownerId: 'bench',
        chunks,
        replace: false,
        ingestionId: randomUUID(),
        now: new Date(),
      }),
    );
    console.log(
      `payload: ${(bytes / 2 ** 20).toFixed(1)} MiB JSON (BODY_LIMIT 50mb); API process RSS grew ${rssGrowth.toFixed(0)} MiB`,
    );
    row('POST /api/ingest 10,000 x 500 words', api.ms, 'commitIngestion of the same chunks', direct.ms);

    // 2. The embed walk: 2,000 chunks through the queue and the worker, 200 per call.
    await request(h.app)
      .post('/api/ingest')
      .set(auth)
      .send({ libraryId: 'bench/embed', name: 'Embed', chunks: makeChunks(2_000, 300), skipEmbeddings: true })
      .expect(200);
    const walk = await time(async () => {
      let offset: number | null = 0;
      while (offset !== null) {
        const res: request.Response = await request(h.app)
          .post('/api/embed')
          .set(auth)
          .send({ libraryId: 'bench/embed', offset })
          .expect(200);
        offset = res.body.nextOffset;
      }
    });
    // The same chunks in a library of their own, so the inline run learns it too, as the walk's first call did.
    await request(h.app)
      .post('/api/ingest')
      .set(auth)
      .send({ libraryId: 'bench/embed-inline', name: 'Inline', chunks: makeChunks(2_000, 300), skipEmbeddings: true })
      .expect(200);
    const inline = await time(async () => {
      const stored = await h.adapters.libraries.listChunks('bench/embed-inline', { offset: 0, limit: 2_000 });
      await embedChunks(h.adapters, 'bench/embed-inline', stored);
    });
    row('POST /api/embed walk, 2,000 chunks', walk.ms, 'embedChunks in one process', inline.ms);

    // 3. Search latency over a 10,000-chunk library.
    await benchSearch(h, auth);
  } finally {
    await h.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
