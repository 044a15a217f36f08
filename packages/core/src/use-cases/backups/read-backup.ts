import { gunzipSync } from 'node:zlib';
import { z } from 'zod';
import type { Library } from '../../domain/types';
import type { BackupStorage } from '../../ports';
import { isIncrementName } from './write-backup';

const chunkSchema = z.object({
  id: z.string(),
  title: z.string().optional(),
  content: z.string(),
  url: z.string().optional(),
  tokenCount: z.number(),
  // Objects of the first format kept chunks in library order without their positions.
  position: z.number().optional(),
  // Objects written before chunks kept their page's provenance have neither.
  fetchedAt: z.string().optional(),
  contentHash: z.string().optional(),
});
type BackedUpChunk = z.infer<typeof chunkSchema>;

const objectSchema = z.object({
  format: z.enum(['docshelf-backup/v1', 'docshelf-backup/v2']),
  kind: z.enum(['snapshot', 'increment']).default('snapshot'),
  createdAt: z.string(),
  ingestionId: z.string(),
  library: z.object({ id: z.string(), name: z.string() }).passthrough(),
  removedChunkIds: z.array(z.string()).default([]),
  chunks: z.array(chunkSchema),
});

export interface RestoredLibrary {
  /** The library's fields as the last object read saw them. */
  library: Library;
  /** Its chunks in library order, as `listChunks` gives them (without positions). */
  chunks: Omit<BackedUpChunk, 'position'>[];
  /** The objects read: the latest snapshot and the increments after it. */
  objects: string[];
}

/**
 * What a library's backups restore: its latest snapshot with every increment after it applied in order, as the
 * record store applies ingestions (a chunk sent again keeps its place, a new one goes after the last, removed ids
 * go). Null when the library has no snapshot. Objects are checked as they are read: storage is not trusted.
 */
export async function readBackup(backups: BackupStorage, libraryId: string): Promise<RestoredLibrary | null> {
  const names = await backups.list(libraryId);
  const from = names.findLastIndex((name) => !isIncrementName(name));
  if (from < 0) return null;
  const chunks = new Map<string, BackedUpChunk>();
  let library: Library | undefined;
  let next = 0;
  for (const name of names.slice(from)) {
    const object = objectSchema.parse(JSON.parse(gunzipSync(await backups.read(libraryId, name)).toString('utf8')));
    library = object.library as unknown as Library;
    for (const id of object.removedChunkIds) chunks.delete(id);
    for (const chunk of object.chunks) {
      const place = chunks.get(chunk.id)?.position ?? chunk.position ?? next;
      chunks.set(chunk.id, { ...chunk, position: place });
      next = Math.max(next, place + 1);
    }
  }
  const ordered = [...chunks.values()].sort((a, b) => a.position! - b.position!);
  return {
    library: library!,
    chunks: ordered.map(({ position: _position, ...chunk }) => chunk),
    objects: names.slice(from),
  };
}
