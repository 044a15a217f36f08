import { z } from 'zod';
import { finishingSchema } from './index-and-back-up';

const count = z.number().int().min(0);

/**
 * What the ingestion of a source of files (a git repository, an uploaded archive) carries from its commit to its
 * end: its counts, the files it could not read, and where indexing and the backup are.
 */
export const sourceIngestionState = z.object({
  filesIngested: count,
  chunksIngested: count,
  errors: z.array(z.string()),
  finishing: finishingSchema,
  /** A git source's commit read, recorded as the library's once the ingestion is done. */
  commit: z.string().optional(),
});
export type SourceIngestionState = z.infer<typeof sourceIngestionState>;

/** Its answer once indexed and backed up: `errors` only when there are some. */
export function sourceIngestionResult(libraryId: string, state: SourceIngestionState, vectorized: boolean) {
  const { filesIngested, chunksIngested, errors } = state;
  return {
    success: true,
    libraryId,
    filesIngested,
    chunksIngested,
    vectorized,
    ...(errors.length > 0 ? { errors } : {}),
  };
}
