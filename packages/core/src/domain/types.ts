import type { z } from 'zod';
import type {
  apiKeyRecordSchema,
  apiKeySchema,
  chunkInputSchema,
  chunkMetaSchema,
  libraryInputSchema,
  librarySchema,
  libraryViewSchema,
  permissionSchema,
  storedChunkSchema,
  userSchema,
} from './schemas';

/** Types of the resources, inferred from their schemas in ./schemas (never written twice). */
export type Permission = z.infer<typeof permissionSchema>;
export type Library = z.infer<typeof librarySchema>;
export type LibraryInput = z.infer<typeof libraryInputSchema>;
export type LibraryView = z.infer<typeof libraryViewSchema>;
export type ChunkInput = z.infer<typeof chunkInputSchema>;
export type StoredChunk = z.infer<typeof storedChunkSchema>;
export type ChunkMeta = z.infer<typeof chunkMetaSchema>;
/** A chunk as a commit writes it: as sent or chunked, with when its page was fetched and the page's hash when known. */
export type ChunkToStore = ChunkInput & Pick<StoredChunk, 'fetchedAt' | 'contentHash'>;
export type User = z.infer<typeof userSchema>;
export type ApiKey = z.infer<typeof apiKeySchema>;
export type ApiKeyRecord = z.infer<typeof apiKeyRecordSchema>;

/** What the record store keeps beside the public shapes; never sent to a client. */
export type UserWithPassword = User & { passwordHash: string };

/** A key record with its stored SHA-256 hash, for the constant-time comparison. */
export type ApiKeyCandidate = ApiKeyRecord & { keyHash: string };

/** Port-internal shapes: they never cross an HTTP or queue boundary, so they have no schema. */
export interface Session {
  userId: string;
  /** Absolute expiry, fixed at login. */
  expiresAt: string;
  /** Last request made with the session (written at most every few seconds), for the idle expiry. */
  lastUsedAt: string;
}

export interface VectorRecord {
  chunkId: string;
  values: number[];
}

export interface VectorMatch {
  chunkId: string;
  score: number;
}

/** One chunk found by a search, with the ranking's own score (higher is better). */
export interface ChunkHit {
  libraryId: string;
  chunkId: string;
  score: number;
  /** The chunk's source URL when the ranking knows it: chunks of one page lend each other evidence. */
  url?: string | null;
}
