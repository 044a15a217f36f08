import type { StoredChunk } from '../../domain/types';
import type { JobPayload, JobResult } from '../../jobs/registry';
import type { JobContext } from '../../jobs/workflow';
import type { Embedder, LibraryStore, VectorIndex } from '../../ports';
import { chunkPages } from '../libraries/chunk-pages';
import { embedChunks } from './embed-chunks';

type IndexDeps = { libraries: LibraryStore; vectors: VectorIndex; embedder: Embedder };

/** Chunks read (and embedded) at a time: an ingestion of a whole site is never held in memory at once. */
const CHUNKS_PER_READ = 500;

/** Worker side of an ingestion: no vector may survive for a chunk that was replaced or changed. */
export async function indexIngestion(
  deps: IndexDeps,
  job: JobPayload<'index-ingestion'>,
  ctx?: JobContext,
): Promise<JobResult<'index-ingestion'>> {
  const pages = () =>
    chunkPages(deps.libraries, job.libraryId, { ingestionId: job.ingestionId, pageSize: CHUNKS_PER_READ });
  if (job.dropChunkIds?.length) await deps.vectors.deleteChunks(job.libraryId, job.dropChunkIds);
  if (job.replace) {
    await deps.vectors.deleteLibrary(job.libraryId);
    // No vector is left, so the library may be embedded with whatever model this service uses now, and an embedder
    // that learned from its old text learns again from the new.
    await deps.libraries.setEmbeddingModel(job.libraryId, null);
    await deps.embedder.forget?.(job.libraryId);
  } else if (!job.generate) {
    for await (const chunks of pages()) {
      await deps.vectors.deleteChunks(
        job.libraryId,
        chunks.map((c) => c.id),
      );
    }
  }
  if (!job.generate) return { vectorized: false, embedded: 0 };
  const reuse = job.replace && job.reuseVectorsOf ? vectorReuse(deps, job.reuseVectorsOf, job.libraryId) : undefined;
  let embedded = 0;
  // A retried attempt embeds every chunk again: it counts from 0 rather than on top of the last attempt.
  await ctx?.reportProgress({ exact: { done: 0 } });
  for await (const chunks of pages()) {
    const toEmbed = reuse ? await reuse(chunks) : chunks;
    embedded += await embedChunks(deps, job.libraryId, toEmbed, ctx);
    await ctx?.reportProgress({ add: { done: chunks.length - toEmbed.length } });
  }
  return { vectorized: true, embedded };
}

/**
 * A re-crawl's replacement carries the vectors of chunks the library already holds unchanged (same id, title and
 * content, same embedding model), with what the embedder learned from the library: each page of chunks given to the
 * function returned answers the chunks left to embed. What was learned is shared on the first page with a vector to
 * carry, unless chunks were embedded before it (the replacement then learned from its own text, and keeps to it). An
 * embedder that learns but cannot share what it learned gets every chunk to embed.
 */
function vectorReuse(deps: IndexDeps, from: string, to: string): (chunks: StoredChunk[]) => Promise<StoredChunk[]> {
  const { embedder } = deps;
  let shared: boolean | undefined;
  return async (chunks) => {
    if (shared === false) return chunks;
    const source = await deps.libraries.getLibrary(from);
    if (source?.embeddingModel !== embedder.model || source.embeddingDimensions !== embedder.dimensions) {
      shared = false;
      return chunks;
    }
    if (embedder.forget && !embedder.shareLearned) {
      shared = false;
      return chunks;
    }
    const before = new Map(
      (
        await deps.libraries.getChunks(
          from,
          chunks.map((c) => c.id),
        )
      ).map((c) => [c.id, c]),
    );
    const same = chunks.filter((c) => before.get(c.id)?.content === c.content && before.get(c.id)?.title === c.title);
    const vectors =
      same.length > 0
        ? await deps.vectors.fetch(
            from,
            same.map((c) => c.id),
          )
        : new Map<string, number[]>();
    if (vectors.size === 0) {
      // Embedding these teaches an embedder that learns this library's own text: nothing is shared after that.
      if (shared === undefined && embedder.forget && chunks.length > 0) shared = false;
      return chunks;
    }
    if (shared === undefined) {
      shared = embedder.shareLearned ? await embedder.shareLearned(from, to) : true;
      if (!shared) return chunks;
      await deps.libraries.setEmbeddingModel(to, { model: embedder.model, dimensions: embedder.dimensions });
    }
    await deps.vectors.upsert(
      to,
      [...vectors].map(([chunkId, values]) => ({ chunkId, values })),
    );
    return chunks.filter((c) => !vectors.has(c.id));
  };
}
