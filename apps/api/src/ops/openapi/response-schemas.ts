import type { ApiKey, ChunkMeta, Library, User } from '@docshelf/core';
import { z } from 'zod';

/**
 * Response bodies that packages/core describes only as TypeScript types. Each schema is checked against its type
 * below, so the document cannot drift from what the routes really send.
 */
const isoTimestamp = z.string().describe('ISO 8601 UTC timestamp');

export const librarySchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().optional(),
  sourceUrl: z.string().optional(),
  sourceType: z.string(),
  version: z.string().optional(),
  chunkCount: z.number().int(),
  ownerId: z.string(),
  createdAt: isoTimestamp,
  updatedAt: isoTimestamp,
  embeddingModel: z.string().optional().describe('Model that made the library vectors; absent until it has some'),
  embeddingDimensions: z.number().int().optional(),
});

export const chunkMetaSchema = z.object({
  id: z.string(),
  title: z.string().optional(),
  url: z.string().optional(),
  tokenCount: z.number().int(),
});

export const apiKeySchema = z.object({
  id: z.string(),
  name: z.string(),
  keyPrefix: z.string().describe('The first 12 characters of the key'),
  permissions: z.enum(['read', 'admin']),
  lastUsedAt: isoTimestamp.nullable().describe('null until first use; written at most once a minute'),
  createdAt: isoTimestamp,
});

export const userSchema = z.object({ id: z.string(), email: z.string() });

/** A library as GET /api/libraries and /api/libraries/:id answer it: the record and how many chunks have a vector. */
export const libraryViewSchema = librarySchema.extend({
  vectorCount: z.number().int().describe('Chunks that have a vector; below chunkCount, POST /api/embed embeds the rest'),
});

export const libraryListSchema = z.object({ libraries: z.array(libraryViewSchema) });
export const libraryDetailSchema = z.object({ library: libraryViewSchema, chunks: z.array(chunkMetaSchema) });
export const keyListSchema = z.object({ keys: z.array(apiKeySchema) });
export const createdKeySchema = z.object({
  id: z.string(),
  name: z.string(),
  key: z.string().describe('The full key, `dsk_` + 64 hex characters: shown in this response only'),
  keyPrefix: z.string(),
  permissions: z.enum(['read', 'admin']),
});
export const userResponseSchema = z.object({ user: userSchema });
export const successSchema = z.object({ success: z.literal(true) });

export const errorSchema = z.object({
  error: z.string().describe('Human-readable message'),
  code: z.string().describe('Stable machine code, e.g. VALIDATION_FAILED, UNAUTHORIZED, LIBRARY_NOT_FOUND, QUEUE_UNAVAILABLE'),
  details: z.array(z.unknown()).optional().describe('Validation issues, each with the `path` of the field'),
  jobId: z.string().optional().describe('On 504 JOB_TIMEOUT: the job that is still queued or running'),
  errorId: z.string().optional().describe('On 500: also written to the log'),
});

export const healthSchema = z.object({ status: z.literal('ok') });
export const readinessSchema = z.object({
  status: z.enum(['ready', 'not_ready']),
  checks: z.record(z.string(), z.enum(['ok', 'failed'])).describe('redis and records; shutdown while stopping'),
  error: z.string().optional(),
  code: z.literal('NOT_READY').optional(),
  details: z.array(z.object({ check: z.string(), message: z.string() })).optional(),
});

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const schemasMatchTypes: [
  Same<z.infer<typeof librarySchema>, Library>,
  Same<z.infer<typeof chunkMetaSchema>, ChunkMeta>,
  Same<z.infer<typeof apiKeySchema>, ApiKey>,
  Same<z.infer<typeof userSchema>, User>,
] = [true, true, true, true];
void schemasMatchTypes;
