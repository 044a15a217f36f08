import { z } from 'zod';
import { libraryIdSchema, versionOfLibraryId } from '../domain/library-id';
import {
  apiKeySchema,
  chunkInputSchema,
  chunkMetaSchema,
  libraryViewSchema,
  permissionSchema,
  userSchema,
} from '../domain/schemas';
import { callbackUrlSchema, embedAllSchema } from './crawl-schemas';

/** Request and response bodies of the HTTP API: the single source of truth for their types. */

const optionalText = (max: number) => z.string().max(max).optional();

export const ingestRequestSchema = z
  .object({
    libraryId: libraryIdSchema,
    name: z.string().trim().min(1, 'name must not be empty').max(256),
    description: optionalText(4_096),
    sourceUrl: optionalText(4_096),
    sourceType: z.string().min(1).max(64).default('llms_txt'),
    version: optionalText(128).describe(
      'Free text; a libraryId that ends in `@<version>` sets it, and a different value here is refused',
    ),
    chunks: z.array(chunkInputSchema).min(1, 'chunks must contain at least one chunk'),
    replace: z.boolean().default(false),
    skipEmbeddings: z.boolean().default(false),
    embedAll: embedAllSchema,
    callbackUrl: callbackUrlSchema,
  })
  .superRefine((body, ctx) => {
    const idVersion = versionOfLibraryId(body.libraryId);
    if (body.version !== undefined && idVersion !== undefined && body.version !== idVersion) {
      ctx.addIssue({
        code: 'custom',
        path: ['version'],
        message: `version '${body.version}' contradicts libraryId '${body.libraryId}', which is version '${idVersion}'`,
      });
    }
    if (body.embedAll && body.skipEmbeddings) {
      for (const field of ['embedAll', 'skipEmbeddings']) {
        ctx.addIssue({ code: 'custom', path: [field], message: 'embedAll and skipEmbeddings cannot both be true' });
      }
    }
    const seen = new Set<string>();
    body.chunks.forEach((chunk, index) => {
      if (seen.has(chunk.id)) {
        ctx.addIssue({ code: 'custom', path: ['chunks', index, 'id'], message: `duplicate chunk id '${chunk.id}'` });
      }
      seen.add(chunk.id);
    });
  })
  .meta({ id: 'IngestRequest' });
export type IngestRequest = z.infer<typeof ingestRequestSchema>;

export const ingestResponseSchema = z
  .object({
    success: z.boolean(),
    libraryId: z.string(),
    chunksIngested: z.number().int(),
    vectorized: z.boolean(),
  })
  .meta({ id: 'IngestResponse' });
export type IngestResponse = z.infer<typeof ingestResponseSchema>;

export const embedRequestSchema = z
  .object({
    libraryId: libraryIdSchema,
    limit: z.number().int().min(1).max(5_000).default(200),
    offset: z.number().int().min(0).default(0),
    all: z
      .boolean()
      .optional()
      .describe(
        'Embed every chunk of the library that has no vector yet, in one job; `offset` must then be 0 and `limit` is ignored',
      ),
    callbackUrl: callbackUrlSchema,
  })
  .superRefine((body, ctx) => {
    // `all` walks the whole library from its start: an offset would say otherwise.
    if (body.all && body.offset !== 0) {
      for (const field of ['all', 'offset']) {
        ctx.addIssue({ code: 'custom', path: [field], message: 'all: true starts at offset 0; leave offset out' });
      }
    }
  })
  .meta({ id: 'EmbedRequest' });
export type EmbedRequest = z.infer<typeof embedRequestSchema>;

export const embedResponseSchema = z
  .object({
    libraryId: z.string(),
    processed: z.number().int(),
    total: z.number().int(),
    offset: z.number().int(),
    nextOffset: z.number().int().nullable(),
    done: z.boolean(),
  })
  .meta({ id: 'EmbedResponse' });
export type EmbedResponse = z.infer<typeof embedResponseSchema>;

export const loginRequestSchema = z
  .object({
    email: z.string().trim().min(1, 'email is required').max(320),
    password: z.string().min(1, 'password is required').max(1_024),
  })
  .meta({ id: 'LoginRequest' });

export const createKeyRequestSchema = z
  .object({
    name: z.string().trim().min(1, 'name is required').max(128),
    permissions: permissionSchema.default('read'),
  })
  .meta({ id: 'CreateKeyRequest' });

export const deleteKeyQuerySchema = z.object({
  id: z.string().min(1, 'id is required').max(128),
});

export const libraryListResponseSchema = z
  .object({ libraries: z.array(libraryViewSchema) })
  .meta({ id: 'LibraryList' });
export type LibraryListResponse = z.infer<typeof libraryListResponseSchema>;

export const libraryDetailResponseSchema = z
  .object({ library: libraryViewSchema, chunks: z.array(chunkMetaSchema) })
  .meta({ id: 'LibraryDetail' });
export type LibraryDetailResponse = z.infer<typeof libraryDetailResponseSchema>;

export const keyListResponseSchema = z.object({ keys: z.array(apiKeySchema) }).meta({ id: 'KeyList' });
export type KeyListResponse = z.infer<typeof keyListResponseSchema>;

/** POST /api/keys: the only answer that carries the key itself. */
export const createdKeySchema = z
  .object({
    id: z.string(),
    name: z.string(),
    key: z.string().describe('The full key, `dsk_` + 64 hex characters: shown in this response only'),
    keyPrefix: z.string(),
    permissions: permissionSchema,
  })
  .meta({ id: 'CreatedKey' });
export type CreatedKey = z.infer<typeof createdKeySchema>;

export const userResponseSchema = z.object({ user: userSchema }).meta({ id: 'UserResponse' });
export type UserResponse = z.infer<typeof userResponseSchema>;

export const successSchema = z.object({ success: z.literal(true) }).meta({ id: 'Success' });
export type SuccessResponse = z.infer<typeof successSchema>;
