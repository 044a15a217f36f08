import { z } from 'zod';
import { sha256Hex, stampPageChunks } from '../../domain/chunk-provenance';
import { chunkLlmsTxtPage, chunkLoadedPage } from '../../crawl/page-chunks';
import type { PageLoader } from '../../crawl/page-loader';
import { AppError } from '../../errors';
import type { Workflow } from '../../jobs/workflow';
import type { LibraryStore, LibrarySwap } from '../../ports';
import {
  commitReplacement,
  continueIndexAndBackUp,
  discardReplacement,
  finishingSchema,
} from '../ingest/index-and-back-up';
import { CRAWL_AUTO_EMBED_LIMIT } from './crawl-site.workflow';

/** URL ingestion fetches like a crawl, so it embeds under the same limit. */
export const URL_AUTO_EMBED_LIMIT = CRAWL_AUTO_EMBED_LIMIT;

const state = z.object({ chunksIngested: z.number().int().min(0), finishing: finishingSchema });

/**
 * Worker side of POST /api/ingest-url: plain HTTP first, the browser only for script shells; replaces the library,
 * whole or not at all (index-and-back-up.ts).
 */
export function ingestUrlWorkflow(deps: {
  libraries: Pick<LibraryStore, 'commitIngestion' | 'countChunks'>;
  loader: PageLoader;
  swap: LibrarySwap;
  now?: () => Date;
}): Workflow<'ingest-url', z.infer<typeof state>> {
  return {
    state,
    async step(job, committed, children, ctx) {
      if (committed) {
        const next = await continueIndexAndBackUp(deps, job, committed.finishing, children);
        if ('wait' in next) return { state: { ...committed, finishing: next.finishing }, wait: next.wait };
        return {
          done: {
            success: true,
            libraryId: job.libraryId,
            chunksIngested: committed.chunksIngested,
            vectorized: next.vectorized,
          },
        };
      }
      await ctx.reportProgress({ phase: 'fetching', set: { done: 0, total: 1 } });
      const llmsTxt = job.sourceType === 'llms_txt';
      const fetchedAt = (deps.now ?? (() => new Date()))();
      const page = await deps.loader.load(job.sourceUrl, { renderer: llmsTxt ? 'http' : 'auto', signal: ctx.signal });
      if (page.status >= 400) {
        throw new AppError('URL_UNREACHABLE', `Fetching ${job.sourceUrl} returned HTTP ${page.status}`, 400, {
          retryable: false,
        });
      }
      const chunks = llmsTxt ? chunkLlmsTxtPage(page) : await chunkLoadedPage(page);
      // A page whose text gave no content is refused with the reason, not stored as its title alone.
      if (chunks.length === 0 || page.lostContent) {
        const why = page.lostContent ? ` (${page.lostContent})` : '';
        throw new AppError('NO_CONTENT', `No content could be extracted from ${job.sourceUrl}${why}`, 400, {
          retryable: false,
        });
      }
      const { name, description, sourceUrl, sourceType } = job;
      const { finishing, wait } = await commitReplacement(deps, ctx, {
        job,
        library: { name, description, sourceUrl, sourceType },
        chunks: stampPageChunks(chunks, {
          fetchedAt: fetchedAt.toISOString(),
          contentHash: page.validators?.contentHash ?? sha256Hex(page.text),
        }),
        autoEmbedLimit: URL_AUTO_EMBED_LIMIT,
        now: (deps.now ?? (() => new Date()))(),
      });
      return { state: { chunksIngested: chunks.length, finishing }, wait };
    },
    discard: (job) => discardReplacement(deps, { ingestionId: job.ingestionId, replace: true }),
  };
}
