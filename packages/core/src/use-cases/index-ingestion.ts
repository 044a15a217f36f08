import type { StoredChunk } from '../domain/types';
import type { JobPayload, JobResult } from '../jobs/registry';
import type { JobContext } from '../jobs/workflow';
import type { Embedder, RecordStore, VectorIndex } from '../ports';
import { embedChunks } from './embed-chunks';

type IndexDeps = { records: RecordStore; vectors: VectorIndex; embedder: Embedder };

/** Worker side of an ingestion: no vector may survive for a chunk that was replaced or changed. */
export async function indexIngestion(
  deps: IndexDeps,
  job: JobPayload<'index-ingestion'>,
  ctx?: JobContext,
): Promise<JobResult<'index-ingestion'>> {
  const chunks = await deps.records.listChunksOfIngestion(job.libraryId, job.ingestionId);
  if (job.dropChunkIds?.length) await deps.vectors.deleteChunks(job.libraryId, job.dropChunkIds);
  if (job.replace) {
    await deps.vectors.deleteLibrary(job.libraryId);
    // No vector is left, so the library may be embedded with whatever model this service uses now, and an embedder
    // that learned from its old text learns again from the new.
    await deps.records.setEmbeddingModel(job.libraryId, null);
    await deps.embedder.forget?.(job.libraryId);
  } else if (!job.generate) {
    await deps.vectors.deleteChunks(
      job.libraryId,
      chunks.map((c) => c.id),
    );
  }
  if (!job.generate) return { vectorized: false, embedded: 0 };
  const toEmbed =
    job.replace && job.reuseVectorsOf ? await reuseVectors(deps, job.reuseVectorsOf, job.libraryId, chunks) : chunks;
  const embedded = await embedChunks(deps, job.libraryId, toEmbed, ctx);
  await ctx?.reportProgress({ add: { done: chunks.length - toEmbed.length } });
  return { vectorized: true, embedded };
}

/**
 * A re-crawl's replacement carries the vectors of chunks the library already holds unchanged (same id, title and
 * content, same embedding model), with what the embedder learned from the library; returns the chunks left to embed.
 * An embedder that learns but cannot share what it learned gets every chunk to embed.
 */
async function reuseVectors(deps: IndexDeps, from: string, to: string, chunks: StoredChunk[]): Promise<StoredChunk[]> {
  const { embedder } = deps;
  const source = await deps.records.getLibrary(from);
  if (source?.embeddingModel !== embedder.model || source.embeddingDimensions !== embedder.dimensions) return chunks;
  if (embedder.forget && !embedder.shareLearned) return chunks;
  const before = new Map(
    (
      await deps.records.getChunks(
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
  if (vectors.size === 0) return chunks;
  if (embedder.shareLearned && !(await embedder.shareLearned(from, to))) return chunks;
  await deps.records.setEmbeddingModel(to, { model: embedder.model, dimensions: embedder.dimensions });
  await deps.vectors.upsert(
    to,
    [...vectors].map(([chunkId, values]) => ({ chunkId, values })),
  );
  return chunks.filter((c) => !vectors.has(c.id));
}
