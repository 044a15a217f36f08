import { z } from 'zod';
import { libraryIdSchema } from '../domain/library-id';
import { callbackUrlSchema } from './crawl-schemas';

/** Request and response bodies of the HTTP API: the single source of truth for their types. */

const optionalText = (max: number) => z.string().max(max).optional();

export const chunkInputSchema = z.object({
  id: z.string().min(1, 'chunk id must not be empty').max(512),
  title: optionalText(1_000),
  content: z.string().min(1, 'chunk content must not be empty'),
  url: optionalText(4_096),
  tokenCount: z.number().int().min(0).optional(),
});

export const ingestRequestSchema = z
  .object({
    libraryId: libraryIdSchema,
    name: z.string().trim().min(1, 'name must not be empty').max(256),
    description: optionalText(4_096),
    sourceUrl: optionalText(4_096),
    sourceType: z.string().min(1).max(64).default('llms_txt'),
    version: optionalText(128),
    chunks: z.array(chunkInputSchema).min(1, 'chunks must contain at least one chunk'),
    replace: z.boolean().default(false),
    skipEmbeddings: z.boolean().default(false),
    callbackUrl: callbackUrlSchema,
  })
  .superRefine((body, ctx) => {
    const seen = new Set<string>();
    body.chunks.forEach((chunk, index) => {
      if (seen.has(chunk.id)) {
        ctx.addIssue({ code: 'custom', path: ['chunks', index, 'id'], message: `duplicate chunk id '${chunk.id}'` });
      }
      seen.add(chunk.id);
    });
  });
export type IngestRequest = z.infer<typeof ingestRequestSchema>;

export const ingestResponseSchema = z.object({
  success: z.boolean(),
  libraryId: z.string(),
  chunksIngested: z.number().int(),
  vectorized: z.boolean(),
});
export type IngestResponse = z.infer<typeof ingestResponseSchema>;

export const embedRequestSchema = z.object({
  libraryId: libraryIdSchema,
  limit: z.number().int().min(1).max(5_000).default(200),
  offset: z.number().int().min(0).default(0),
  callbackUrl: callbackUrlSchema,
});
export type EmbedRequest = z.infer<typeof embedRequestSchema>;

export const embedResponseSchema = z.object({
  libraryId: z.string(),
  processed: z.number().int(),
  total: z.number().int(),
  offset: z.number().int(),
  nextOffset: z.number().int().nullable(),
  done: z.boolean(),
});
export type EmbedResponse = z.infer<typeof embedResponseSchema>;

export const loginRequestSchema = z.object({
  email: z.string().trim().min(1, 'email is required').max(320),
  password: z.string().min(1, 'password is required').max(1_024),
});

export const createKeyRequestSchema = z.object({
  name: z.string().trim().min(1, 'name is required').max(128),
  permissions: z.enum(['read', 'admin']).default('read'),
});

export const deleteKeyQuerySchema = z.object({
  id: z.string().min(1, 'id is required').max(128),
});
