import { z } from 'zod';
import { libraryIdSchema } from '../domain/library-id';
import { isoTimestampSchema } from '../domain/schemas';

/** Query strings and response bodies of the read side (search, context, chunks, library filter). */

export const MAX_QUERY_LENGTH = 1_000;
export const MIN_CONTEXT_TOKENS = 100;
export const MAX_CONTEXT_TOKENS = 100_000;

const queryText = (name: string) =>
  z
    .string({
      error: (issue) => (issue.input === undefined ? `${name} is required` : `${name} must be a single string`),
    })
    .trim()
    .min(1, `${name} must not be empty`)
    .max(MAX_QUERY_LENGTH, `${name} must be at most ${MAX_QUERY_LENGTH} characters`);

/** A whole number from a query string, within bounds, with a default when absent. */
export const queryInteger = (min: number, max: number, fallback: number) =>
  z
    .string({ error: 'must be a single whole number' })
    .regex(/^\d{1,9}$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`))
    .default(fallback);

/** How a read names its library: one version of it, or its base id for the newest (resolveLibrary). */
const READ_LIBRARY_ID =
  'A library id; an id without `@` reads the library with exactly that id, else its newest version (`demo/lib` → ' +
  '`demo/lib@1.10.0`: semver order when both parse, else the latest created)';

export const searchModeSchema = z.enum(['hybrid', 'keyword', 'vector']);

export const searchQuerySchema = z.object({
  q: queryText('q'),
  libraryId: z
    .union([libraryIdSchema, z.array(libraryIdSchema).max(50, 'at most 50 libraryId values')])
    .optional()
    .describe(READ_LIBRARY_ID)
    .transform((ids) => (ids === undefined ? [] : Array.isArray(ids) ? ids : [ids])),
  limit: queryInteger(1, 50, 10),
  mode: searchModeSchema.optional().describe('Force one ranking (default: hybrid where the libraries have vectors)'),
});
export type SearchQuery = z.infer<typeof searchQuerySchema>;

export const contextQuerySchema = z.object({
  libraryId: libraryIdSchema.describe(READ_LIBRARY_ID),
  query: queryText('query'),
  tokens: queryInteger(MIN_CONTEXT_TOKENS, MAX_CONTEXT_TOKENS, 5_000),
  format: z.enum(['txt', 'json']).default('txt'),
});
export type ContextQuery = z.infer<typeof contextQuerySchema>;

export const chunksQuerySchema = z.object({
  libraryId: libraryIdSchema.describe(READ_LIBRARY_ID),
  offset: queryInteger(0, 1_000_000_000, 0),
  limit: queryInteger(1, 500, 100),
});
export type ChunksQuery = z.infer<typeof chunksQuerySchema>;

export const libraryListQuerySchema = z.object({
  q: z.string({ error: 'q must be a single string' }).trim().max(MAX_QUERY_LENGTH).optional(),
});

/** Where a result's or piece's text came from, beside its libraryId and url: the library's version and the page's fetch. */
const provenanceFields = {
  libraryVersion: z.string().nullable().describe("The library's `version`; null when it has none"),
  fetchedAt: isoTimestampSchema
    .nullable()
    .describe(
      'When the page was fetched, or last found unchanged by a re-crawl (POST /api/ingest: the time of the ingest); ' +
        'null for chunks stored before Docshelf kept it',
    ),
  contentHash: z
    .string()
    .nullable()
    .describe(
      'SHA-256 (hex) of the page: a crawl or ingest-url hashes its body as fetched (its HTML as rendered when ' +
        "Chromium rendered it), POST /api/ingest the text of the payload's chunks with that url joined by a blank " +
        'line (a chunk without url: its own text); null for chunks stored before Docshelf kept it',
    ),
};

export const searchResultSchema = z.object({
  libraryId: z.string(),
  libraryVersion: provenanceFields.libraryVersion,
  chunkId: z.string(),
  title: z.string().nullable(),
  url: z.string().nullable(),
  fetchedAt: provenanceFields.fetchedAt,
  contentHash: provenanceFields.contentHash,
  content: z.string(),
  score: z.number().describe('Higher is better; fused reciprocal-rank score in hybrid mode, BM25 or cosine otherwise'),
  tokens: z.number().int().describe('o200k_base BPE tokens of `content`'),
});

export const searchResponseSchema = z
  .object({
    query: z.string(),
    mode: searchModeSchema.describe('Which ranking ran: keyword alone when no library searched has vectors'),
    results: z.array(searchResultSchema),
  })
  .meta({ id: 'SearchResponse' });
export type SearchResponse = z.infer<typeof searchResponseSchema>;

export const contextPieceSchema = z.object({
  chunkId: z.string().describe('The first chunk of the piece; neighbouring chunks of one page are merged'),
  libraryId: z.string(),
  libraryVersion: provenanceFields.libraryVersion,
  title: z.string().nullable(),
  url: z.string().nullable(),
  fetchedAt: provenanceFields.fetchedAt,
  contentHash: provenanceFields.contentHash,
  content: z.string(),
  tokens: z.number().int(),
});

export const contextResponseSchema = z
  .object({
    libraryId: z.string().describe('The library read: the newest version when the request named a base id'),
    query: z.string(),
    tokens: z.number().int().describe('o200k_base tokens of the plain-text rendering; never above the budget'),
    pieces: z.array(contextPieceSchema),
  })
  .meta({ id: 'ContextResponse' });
export type ContextResponse = z.infer<typeof contextResponseSchema>;

export const chunkSchema = z.object({
  id: z.string(),
  title: z.string().nullable(),
  url: z.string().nullable(),
  content: z.string(),
  tokenCount: z.number().int(),
});

export const chunksResponseSchema = z
  .object({
    libraryId: z.string().describe('The library read: the newest version when the request named a base id'),
    chunks: z.array(chunkSchema),
    total: z.number().int(),
    nextOffset: z.number().int().nullable().describe('Offset of the next page; null at the end'),
  })
  .meta({ id: 'ChunksResponse' });
export type ChunksResponse = z.infer<typeof chunksResponseSchema>;
