export type Permission = 'read' | 'admin';

export interface Library {
  id: string;
  name: string;
  description?: string;
  sourceUrl?: string;
  sourceType: string;
  version?: string;
  chunkCount: number;
  ownerId: string;
  createdAt: string;
  updatedAt: string;
  /** Model and size of the library's vectors, set when vectors are first written, cleared when all are removed. */
  embeddingModel?: string;
  embeddingDimensions?: number;
}

/** The library fields a client supplies on ingestion. */
export interface LibraryInput {
  id: string;
  name: string;
  description?: string;
  sourceUrl?: string;
  sourceType: string;
  version?: string;
}

export interface ChunkInput {
  id: string;
  title?: string;
  content: string;
  url?: string;
  tokenCount?: number;
}

/** A chunk as stored: tokenCount always present (estimated when not supplied), position orders the library. */
export interface StoredChunk {
  id: string;
  title?: string;
  content: string;
  url?: string;
  tokenCount: number;
  position: number;
  /** `content` counted by the read side's BPE tokenizer (countTokens) when the chunk was written; absent in older rows. */
  bpeTokens?: number;
}

export interface ChunkMeta {
  id: string;
  title?: string;
  url?: string;
  tokenCount: number;
}

export interface User {
  id: string;
  email: string;
}

export interface UserWithPassword extends User {
  passwordHash: string;
}

export interface Session {
  userId: string;
  /** Absolute expiry, fixed at login. */
  expiresAt: string;
  /** Last request made with the session (written at most every few seconds), for the idle expiry. */
  lastUsedAt: string;
}

export interface ApiKey {
  id: string;
  name: string;
  keyPrefix: string;
  permissions: Permission;
  lastUsedAt: string | null;
  createdAt: string;
}

export interface ApiKeyRecord extends ApiKey {
  userId: string;
}

/** A key record with its stored SHA-256 hash, for the constant-time comparison. */
export interface ApiKeyCandidate extends ApiKeyRecord {
  keyHash: string;
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
