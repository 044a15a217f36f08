import { z } from 'zod';
import { libraryIdSchema } from '../domain/library-id';
import { callbackUrlSchema, httpUrlSchema } from './crawl-schemas';

/** A multipart form's fields are text: `true` and `false` stand for the booleans. */
const formBoolean = z
  .enum(['true', 'false'])
  .transform((value) => value === 'true')
  .or(z.boolean());

/**
 * The fields of POST /api/ingest-archive beside its `file` part (multipart/form-data): what the library is, and where
 * the uploaded site is published.
 */
export const ingestArchiveFieldsSchema = z
  .strictObject({
    libraryId: libraryIdSchema,
    name: z.string().trim().min(1, 'name must not be empty').max(256),
    description: z.string().max(4_096).optional(),
    baseUrl: httpUrlSchema
      .optional()
      .describe(
        "Where the site is published, e.g. https://example.com/docs/: each page's URL is this URL and the page's path " +
          "from the root page's folder (the archive's shallowest index.html); without it, chunk URLs and the links in " +
          'the text are paths in the archive',
      ),
    embedAll: formBoolean
      .default(false)
      .describe('Embed every chunk of the ingestion whatever their number (`vectorized` is then true)'),
    callbackUrl: callbackUrlSchema,
  })
  .meta({ id: 'IngestArchiveFields' });
export type IngestArchiveFields = z.infer<typeof ingestArchiveFieldsSchema>;

export const ingestArchiveResponseSchema = z
  .object({
    success: z.boolean(),
    libraryId: z.string(),
    filesIngested: z
      .number()
      .int()
      .describe('Pages of the site reached from its root page, and Markdown, MDX and reStructuredText files, read'),
    chunksIngested: z.number().int(),
    vectorized: z.boolean(),
    errors: z
      .array(z.string())
      .optional()
      .describe('Files not read and pages reached from no other page, each "<path>: <why>"'),
  })
  .meta({ id: 'IngestArchiveResponse' });
export type IngestArchiveResponse = z.infer<typeof ingestArchiveResponseSchema>;
