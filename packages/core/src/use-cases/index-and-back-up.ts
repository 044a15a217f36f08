import type { ChildOutcome, ChildJob, JobContext } from '../jobs/workflow';
import { childResult } from '../jobs/workflow';
import { jobRegistry } from '../jobs/registry';

/**
 * The last step of every ingestion, once its chunks are committed: the vector index and the backup do not depend on
 * each other, so both jobs run at once.
 */
export async function indexAndBackUp(
  ctx: JobContext,
  ingestion: { libraryId: string; ingestionId: string; replace: boolean; chunks: number; generate: boolean },
): Promise<ChildJob[]> {
  const { libraryId, ingestionId, replace, generate } = ingestion;
  await ctx.reportProgress({ phase: 'indexing', set: { chunksIngested: ingestion.chunks, done: 0, total: generate ? ingestion.chunks : 0 } });
  return [
    { key: 'index', name: 'index-ingestion', payload: { libraryId, ingestionId, replace, generate } },
    { key: 'backup', name: 'write-backup', payload: { libraryId, ingestionId } },
  ];
}

/** Whether the index step embedded the chunks; a failed index or backup fails the workflow with its error. */
export function indexedAndBackedUp(children: ChildOutcome[]): { vectorized: boolean } {
  const { vectorized } = childResult(children, 'index', jobRegistry['index-ingestion'].result);
  childResult(children, 'backup', jobRegistry['write-backup'].result);
  return { vectorized };
}
