import { z } from 'zod';
import { refreshScheduleSchema } from '../api/refresh-schemas';

/**
 * The API's resources as zod schemas (docs/api.md): their TypeScript types are inferred (domain/types.ts) and the
 * OpenAPI document is generated from them. A `.meta({ id })` names a schema as a component of that document.
 */

export const isoTimestampSchema = z.string().describe('ISO 8601 UTC timestamp');

export const permissionSchema = z
  .enum(['read', 'admin'])
  .describe('`read`: read endpoints and search; `admin`: also ingest, crawl, embed and delete');

const optionalText = (max: number) => z.string().max(max).optional();

/** A chunk as a client sends it on ingest. */
export const chunkInputSchema = z.object({
  id: z.string().min(1, 'chunk id must not be empty').max(512),
  title: optionalText(1_000),
  content: z.string().min(1, 'chunk content must not be empty'),
  url: optionalText(4_096),
  tokenCount: z.number().int().min(0).optional(),
});

/** A library as stored. */
export const librarySchema = z.object({
  id: z.string().meta({ examples: ['vercel/next.js'] }),
  name: z.string(),
  description: z.string().optional(),
  sourceUrl: z.string().optional(),
  sourceType: z.string().meta({ examples: ['llms_txt'] }),
  version: z.string().optional(),
  chunkCount: z.number().int(),
  ownerId: z.string(),
  createdAt: isoTimestampSchema,
  updatedAt: isoTimestampSchema,
  /** Model and size of the library's vectors, set when vectors are first written, cleared when all are removed. */
  embeddingModel: z.string().optional().describe('Model that made the library vectors; absent until it has some'),
  embeddingDimensions: z.number().int().optional(),
});

/** The library fields a client supplies on ingestion. */
export const libraryInputSchema = librarySchema.pick({
  id: true,
  name: true,
  description: true,
  sourceUrl: true,
  sourceType: true,
  version: true,
});

/** A library as GET /api/libraries and /api/libraries/:id answer it: the record and how many chunks have a vector. */
export const libraryViewSchema = librarySchema
  .extend({
    vectorCount: z
      .number()
      .int()
      .describe('Chunks that have a vector; below chunkCount, POST /api/embed embeds the rest'),
    refresh: refreshScheduleSchema
      .optional()
      .describe('Present while the library is crawled again on a schedule (refreshEvery, POST /api/refresh)'),
  })
  .meta({ id: 'Library' });

/** A chunk as stored: tokenCount always present (estimated when not supplied), position orders the library. */
export const storedChunkSchema = z.object({
  id: z.string(),
  title: z.string().optional(),
  content: z.string(),
  url: z.string().optional(),
  tokenCount: z.number().int(),
  position: z.number().int(),
  /** `content` counted by the read side's BPE tokenizer (countTokens) when the chunk was written; absent in older rows. */
  bpeTokens: z.number().int().optional(),
  /** When the chunk's page was last fetched (or found unchanged by a re-crawl), or ingested; absent in older rows. */
  fetchedAt: isoTimestampSchema.optional(),
  /** SHA-256 (hex) of the chunk's page: as fetched by a crawl, or its text as ingested; absent in older rows. */
  contentHash: z.string().optional(),
});

/** A chunk as GET /api/libraries/:id lists it: without its content. */
export const chunkMetaSchema = storedChunkSchema
  .pick({ id: true, title: true, url: true, tokenCount: true })
  .meta({ id: 'ChunkMeta' });

export const userSchema = z.object({ id: z.string(), email: z.string() }).meta({ id: 'User' });

/** An API key as GET /api/keys lists it: never the key itself. */
export const apiKeySchema = z
  .object({
    id: z.string(),
    name: z.string(),
    keyPrefix: z.string().describe('The first 12 characters of the key'),
    permissions: permissionSchema,
    lastUsedAt: isoTimestampSchema.nullable().describe('null until first use; written at most once a minute'),
    createdAt: isoTimestampSchema,
  })
  .meta({ id: 'ApiKey' });

export const apiKeyRecordSchema = apiKeySchema.extend({ userId: z.string() });
