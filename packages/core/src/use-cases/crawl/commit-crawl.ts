import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { chunkMarkdownInTurns } from '../../chunking/chunk-markdown';
import {
  DEFAULT_REPETITION_RULE,
  dropRepeatedLinesInTurns,
  findRepeatedKeysInPasses,
  repeatableKeysInTurns,
  type RepetitionRule,
} from '../../crawl/repeated-blocks';
import { sha256Hex, stampIngestedChunks, stampPageChunks } from '../../domain/chunk-provenance';
import { versionOfLibraryId } from '../../domain/library-id';
import type { ChunkInput, ChunkToStore, LibraryInput, StoredChunk } from '../../domain/types';
import { AppError } from '../../errors';
import type { JobPayload } from '../../jobs/registry';
import type { JobContext } from '../../jobs/workflow';
import type { ConfirmedPage, CrawledPage, LibraryStore, StagedPage, StagingStore } from '../../ports';
import { seedsOf } from './crawl-scope';
import { readStagedOutlines } from './staged-outlines';

/** Pages read, chunked and written per transaction of a commit: a few MB of text at a time. */
const PAGES_PER_WRITE = 100;
/**
 * Chunks written per transaction at most: a transaction holds the event loop (indexing a chunk for search takes about
 * a millisecond), and one page of 300,000 short sections gives 2,000 chunks.
 */
const CHUNKS_PER_WRITE = 250;

/**
 * What a commit needs of the crawl whose pages it writes: a crawl job, or the reading of an uploaded site
 * (`sourceType` then says which; `crawl` when absent).
 */
export type CrawlToCommit = Pick<
  JobPayload<'crawl-site'>,
  'crawlId' | 'libraryId' | 'ownerId' | 'name' | 'description' | 'replace' | 'urls'
> & { sourceType?: string };

export interface CommitCrawlDeps {
  staging: Pick<StagingStore, 'listStagedOutlines' | 'getStagedPages' | 'getCrawledPages' | 'countCrawledPages'>;
  libraries: Pick<LibraryStore, 'commitIngestion' | 'countChunks' | 'getChunks'>;
  /** Which lines are dropped as repeated chrome (minShare 0: none). */
  repetition?: RepetitionRule;
  now?: () => Date;
}

/** What the crawl found, as the coordinator counted it once every page was done. */
export interface CrawledPages {
  /** In breadth-first order: the order their chunks are written in. */
  crawled: string[];
  unchanged: number;
  failed: number;
  /** Pages that answered 404 or 410: an update drops what the library kept of them. */
  gone: string[];
  errors: string[];
}

export interface CrawlCommit {
  /** Chunks the library holds from this crawl: those written and those of unchanged pages left in place. */
  chunksIngested: number;
  /** Whether the crawl replaced the library (a replacement that would change nothing is committed in place). */
  replace: boolean;
  /** Where the chunks were written: the library, or for a replacement its staged copy. */
  target: string;
  /** Chunks the crawl removed from the library (pages changed or gone): their vectors go too. */
  removedChunkIds: string[];
}

/**
 * Writes a crawl's pages into the library, a hundred pages per transaction, never holding more than that many pages'
 * text: lines repeated on most pages are found in two passes over the staged pages' line keys
 * (crawl/repeated-blocks.ts) and dropped; each page is chunked in breadth-first order. An unchanged page keeps its
 * chunks: a replacement copies them from the library, an update leaves them alone. An update also removes the chunks
 * a changed page no longer has and those of pages now gone (in a last write, once every page is in). A replacement is
 * written under its staging id and swapped in whole later, so it is all-or-nothing; an update written halfway is
 * completed by the step's retry (every write is an upsert). Nothing is written (and the job stays cancellable) until
 * a page gives a chunk; a crawl that gives none fails with NO_CONTENT.
 */
export async function commitCrawl(
  deps: CommitCrawlDeps,
  job: CrawlToCommit,
  pages: CrawledPages,
  ctx: JobContext,
  target: (replace: boolean) => string,
): Promise<CrawlCommit> {
  const replace = job.replace && !(await replacesNothing(deps, job, pages));
  const into = target(replace);
  const crawled = new Set(pages.crawled);
  const repeated = await findRepeatedLines(deps, job, crawled);
  const now = (deps.now ?? (() => new Date()))();
  const { seeds } = seedsOf(job);
  const library: LibraryInput = {
    id: into,
    name: job.name,
    description: job.description,
    sourceUrl: seeds[0],
    sourceType: job.sourceType ?? 'crawl',
    // A version's library (`x@1.2`) is that version.
    version: versionOfLibraryId(job.libraryId),
  };
  const seen = new Set<string>();
  const removed: string[] = [];
  let written = 0;
  let kept = 0;
  let committed = 0;
  let started = false;
  let waiting: Pending | null = null;
  let firstWrite = true;
  const write = async (batch: Pending) => {
    // A batch of many chunks in parts, a turn of the event loop between them; its pages' records go with the last
    // part, once their chunks are in. A part written before a crash is rewritten by the step's retry (an upsert).
    for (let start = 0; start === 0 || start < batch.chunks.length; start += CHUNKS_PER_WRITE) {
      if (start > 0) await yieldToEventLoop();
      const last = start + CHUNKS_PER_WRITE >= batch.chunks.length;
      await deps.libraries.commitIngestion({
        library,
        ownerId: job.ownerId,
        chunks: batch.chunks.slice(start, start + CHUNKS_PER_WRITE),
        replace: replace && firstWrite,
        ingestionId: job.crawlId,
        now,
        crawledPages: last ? batch.crawledPages : [],
        confirmedPages: last ? batch.confirmedPages : [],
      });
      firstWrite = false;
    }
    committed += batch.pages;
    await ctx.reportProgress({ set: { done: committed } });
  };
  for (let start = 0; start < pages.crawled.length; start += PAGES_PER_WRITE) {
    // A turn of the event loop per batch: a large crawl's commit must not starve the job lock's renewal.
    await yieldToEventLoop();
    const urls = pages.crawled.slice(start, start + PAGES_PER_WRITE);
    const batch = await buildBatch(deps, job, { replace, now }, urls, repeated, seen);
    written += batch.chunks.length;
    kept += batch.keptChunks;
    removed.push(...batch.removedChunkIds);
    const { chunks, crawledPages, confirmedPages } = batch;
    const next = { chunks, crawledPages, confirmedPages, pages: urls.length };
    if (!started && written + kept === 0) {
      // Nothing to keep yet: the crawl may still turn out empty, and then must have written nothing.
      waiting = waiting
        ? {
            chunks: [],
            crawledPages: [...waiting.crawledPages, ...next.crawledPages],
            confirmedPages: [...waiting.confirmedPages, ...next.confirmedPages],
            pages: waiting.pages + next.pages,
          }
        : next;
      continue;
    }
    if (!started) {
      started = true;
      await ctx.beginCommit();
      // Exact: claiming the commit has put the job in this phase already, where `done` would only be raised.
      await ctx.reportProgress({
        phase: 'committing',
        set: { total: pages.crawled.length, pagesUnchanged: pages.unchanged },
        exact: { done: 0 },
      });
      if (waiting) await write(waiting);
      waiting = null;
    }
    await write(next);
  }
  if (!started) {
    throw new AppError('NO_CONTENT', `No content could be extracted from ${seeds.join(', ')}`, 400, {
      retryable: false,
      details: pages.errors,
    });
  }
  const removedChunkIds = removed.filter((id) => !seen.has(id));
  const gone = replace ? { chunkIds: [], urls: [] } : await goneChunks(deps, job, pages.gone, seen);
  if (removedChunkIds.length + gone.chunkIds.length + gone.urls.length > 0) {
    await deps.libraries.commitIngestion({
      library,
      ownerId: job.ownerId,
      chunks: [],
      replace: false,
      ingestionId: job.crawlId,
      now,
      removeChunkIds: [...removedChunkIds, ...gone.chunkIds],
      removeCrawledPages: gone.urls,
    });
  }
  return {
    chunksIngested: written + kept,
    replace,
    target: into,
    removedChunkIds: [...removedChunkIds, ...gone.chunkIds],
  };
}

/** Pages' chunks and records waiting to be written, in one commit or a few. */
interface Pending {
  chunks: ChunkToStore[];
  crawledPages: CrawledPage[];
  confirmedPages: ConfirmedPage[];
  pages: number;
}

interface Batch {
  chunks: ChunkToStore[];
  keptChunks: number;
  crawledPages: CrawledPage[];
  /** Unchanged pages of an update: their chunks stay, and record when they were found unchanged. */
  confirmedPages: ConfirmedPage[];
  removedChunkIds: string[];
}

/**
 * One batch of pages, chunked: their chunks in order (none twice in the crawl), records and removals. Each chunk is
 * stamped with when its page was fetched and the page's hash; an unchanged page's chunks take this crawl's time, the
 * time the page was last seen as they hold it.
 */
async function buildBatch(
  deps: CommitCrawlDeps,
  job: CrawlToCommit,
  { replace, now }: { replace: boolean; now: Date },
  urls: string[],
  repeated: ReadonlySet<string>,
  seen: Set<string>,
): Promise<Batch> {
  const { staging, libraries } = deps;
  const staged = new Map((await staging.getStagedPages(job.crawlId, urls)).map((page) => [page.url, page]));
  const known = new Map((await staging.getCrawledPages(job.libraryId, urls)).map((page) => [page.url, page]));
  // A replacement copies the chunks of unchanged pages from the library: read in one query a batch.
  const keptIds = replace
    ? urls.flatMap((url) => (staged.get(url)?.page?.unchanged ? (known.get(url)?.chunkIds ?? []) : []))
    : [];
  const kept = new Map((await libraries.getChunks(job.libraryId, keptIds)).map((c) => [c.id, toChunkInput(c)]));
  const take = <T extends { id: string }>(chunks: T[]) => {
    const fresh = chunks.filter((chunk) => !seen.has(chunk.id));
    fresh.forEach((chunk) => seen.add(chunk.id));
    return fresh;
  };
  const batch: Batch = { chunks: [], keptChunks: 0, crawledPages: [], confirmedPages: [], removedChunkIds: [] };
  for (const url of urls) {
    const page: StagedPage | undefined = staged.get(url);
    if (!page) continue;
    const before = known.get(url);
    if (!page.page) {
      batch.chunks.push(...take(stampIngestedChunks(page.chunks, now)));
      continue;
    }
    const { finalUrl, title, links, validators } = page.page;
    const fetchedAt = page.page.fetchedAt ?? now.toISOString();
    if (page.page.unchanged && before) {
      batch.crawledPages.push({ ...before, ...validators, links });
      const provenance = { fetchedAt, contentHash: validators?.contentHash ?? before.contentHash };
      if (replace) {
        const chunks = before.chunkIds.flatMap((id) => kept.get(id) ?? []);
        batch.chunks.push(...take(stampPageChunks(chunks, provenance)));
      } else {
        batch.keptChunks += take(before.chunkIds.map((id) => ({ id }))).length;
        batch.confirmedPages.push({ chunkIds: before.chunkIds, ...provenance });
      }
      continue;
    }
    // In turns of the event loop: a page's Markdown may be megabytes, and the worker's other jobs and locks wait.
    const markdown = await dropRepeatedLinesInTurns(page.page, repeated);
    const provenance = { fetchedAt, contentHash: validators?.contentHash ?? sha256Hex(page.page.markdown) };
    const chunks = take(
      stampPageChunks(await chunkMarkdownInTurns(markdown, { pageUrl: finalUrl, pageTitle: title }), provenance),
    );
    batch.chunks.push(...chunks);
    if (validators)
      batch.crawledPages.push({
        url,
        ...validators,
        chunkIds: chunks.map((c) => c.id),
        lineKeys: page.page.lineKeys ?? (await repeatableKeysInTurns(page.page)),
        links,
      });
    if (before && !replace) {
      const now = new Set(chunks.map((c) => c.id));
      batch.removedChunkIds.push(...before.chunkIds.filter((id) => !now.has(id)));
    }
  }
  return batch;
}

/**
 * The keys of lines on most of the crawl's pages (crawl/repeated-blocks.ts), counting an unchanged page's lines as
 * its last crawl kept them; the pages' keys are read twice from the staged outlines, never all at once.
 */
async function findRepeatedLines(
  deps: CommitCrawlDeps,
  job: CrawlToCommit,
  crawled: ReadonlySet<string>,
): Promise<Set<string>> {
  const rule = deps.repetition ?? DEFAULT_REPETITION_RULE;
  if (rule.minShare <= 0) return new Set();
  async function* keysOfPages(): AsyncGenerator<string[]> {
    for await (const outlines of readStagedOutlines(deps.staging, job.crawlId)) {
      const pages = outlines.filter((outline) => crawled.has(outline.url) && !outline.chunksOnly);
      const unchanged = pages.filter((outline) => outline.unchanged).map((outline) => outline.url);
      const known = new Map(
        (await deps.staging.getCrawledPages(job.libraryId, unchanged)).map((page) => [page.url, page.lineKeys]),
      );
      // Pages staged without their keys (by an older worker): counted from their text.
      const keyless = pages.filter((outline) => !outline.unchanged && !outline.lineKeys).map((outline) => outline.url);
      const counted = new Map<string, string[]>();
      for (const page of await deps.staging.getStagedPages(job.crawlId, keyless))
        counted.set(page.url, page.page ? await repeatableKeysInTurns(page.page) : []);
      for (const outline of pages) {
        yield outline.unchanged ? (known.get(outline.url) ?? []) : (outline.lineKeys ?? counted.get(outline.url) ?? []);
      }
    }
  }
  return findRepeatedKeysInPasses(keysOfPages, rule);
}

/** What the library kept of pages now gone (404 or 410), to remove in an update. */
async function goneChunks(
  deps: CommitCrawlDeps,
  job: CrawlToCommit,
  gone: string[],
  seen: ReadonlySet<string>,
): Promise<{ chunkIds: string[]; urls: string[] }> {
  const known = await deps.staging.getCrawledPages(job.libraryId, gone);
  return {
    chunkIds: known.flatMap((page) => page.chunkIds.filter((id) => !seen.has(id))),
    urls: known.map((page) => page.url),
  };
}

/**
 * Whether a `replace` crawl found the library exactly as it is: every page it keeps crawled again and unchanged, no
 * other page, no failure, and no chunk in the library beyond those pages' (one added by another ingestion). Every
 * page crawled unchanged is a page the library kept, so counting the kept pages tells whether there are others.
 */
async function replacesNothing(deps: CommitCrawlDeps, job: CrawlToCommit, pages: CrawledPages): Promise<boolean> {
  if (!job.replace || pages.failed > 0 || pages.crawled.length === 0 || pages.unchanged !== pages.crawled.length)
    return false;
  const known = await deps.staging.countCrawledPages(job.libraryId);
  if (known.pages !== new Set(pages.crawled).size) return false;
  return (await deps.libraries.countChunks(job.libraryId)) === known.chunks;
}

function toChunkInput(chunk: StoredChunk): ChunkInput {
  const { id, title, content, url, tokenCount } = chunk;
  return { id, content, tokenCount, ...(title === undefined ? {} : { title }), ...(url === undefined ? {} : { url }) };
}
