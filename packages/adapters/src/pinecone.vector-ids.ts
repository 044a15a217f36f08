import { createHash } from 'node:crypto';

/** Pinecone's limit on a record id. */
export const PINECONE_MAX_ID_LENGTH = 512;
/** Marks an id that is a hash; never produced by escaping, which only writes '%' before two hex digits. */
const HASHED_PREFIX = '%h';

/**
 * Deterministic Pinecone record id of a chunk id: printable ASCII is kept, '%' and everything else is percent-encoded
 * (UTF-8), so distinct chunk ids never share a record id. An id that would pass 512 characters becomes a SHA-256
 * hash, and the chunk id travels in the record's metadata instead.
 */
export function toVectorId(chunkId: string): { id: string; hashed: boolean } {
  const escaped = escapeChunkId(chunkId);
  if (escaped !== undefined && escaped.length <= PINECONE_MAX_ID_LENGTH) return { id: escaped, hashed: false };
  return { id: `${HASHED_PREFIX}${createHash('sha256').update(chunkId).digest('hex')}`, hashed: true };
}

/** The chunk id of a record id; hashed ids need the chunk id kept in metadata. */
export function toChunkId(vectorId: string, metadata?: Record<string, unknown>): string {
  if (vectorId.startsWith(HASHED_PREFIX)) {
    const chunkId = metadata?.chunkId;
    if (typeof chunkId !== 'string') throw new Error(`Pinecone record ${vectorId} has no chunkId metadata`);
    return chunkId;
  }
  return decodeURIComponent(vectorId);
}

/** Undefined for a chunk id with a lone surrogate, which has no UTF-8 form; such ids are hashed. */
function escapeChunkId(chunkId: string): string | undefined {
  try {
    return chunkId.replace(/[^\x20-\x24\x26-\x7e]/gu, (char) => encodeURIComponent(char));
  } catch {
    return undefined;
  }
}
