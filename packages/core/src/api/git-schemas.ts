import { z } from 'zod';
import { libraryIdSchema } from '../domain/library-id';
import { callbackUrlSchema, embedAllSchema, httpUrlSchema, pathPattern } from './crawl-schemas';
import { refreshEverySchema } from './refresh-every';

/** A branch, a tag or a full commit id, as git names them; nothing git could read as an option or a range. */
export const gitRefSchema = z
  .string()
  .min(1)
  .max(255)
  .regex(/^(?!-)(?!.*\.\.)(?!.*\/\/)[\w./+@-]+(?<![./])$/, 'must be a branch, a tag or a commit id');

export const ingestGitRequestSchema = z
  .object({
    libraryId: libraryIdSchema,
    name: z.string().trim().min(1, 'name must not be empty').max(256),
    description: z.string().max(4_096).optional(),
    repoUrl: httpUrlSchema.describe('An http(s) git remote, e.g. https://github.com/org/project.git'),
    ref: gitRefSchema.optional().describe("A branch, a tag or a commit id; the remote's default branch when absent"),
    paths: z
      .array(pathPattern)
      .max(50)
      .optional()
      .describe('Globs of the repository paths to read (default: docs/**, doc/**, documentation/** and every README)'),
    pageUrlTemplate: z
      .string()
      .max(2_048)
      .refine((value) => value.includes('{path}'), 'must contain {path}')
      .optional()
      .describe(
        "Each chunk's URL, `{path}` standing for the file's path without its extension " +
          '(e.g. https://example.com/docs/{path}); the path in the repository when absent',
      ),
    embedAll: embedAllSchema,
    callbackUrl: callbackUrlSchema,
    refreshEvery: refreshEverySchema
      .optional()
      .describe('How often the ref is looked at again ("12h", "1d", "7d"): a new commit on it is read in'),
  })
  .meta({ id: 'IngestGitRequest' });
export type IngestGitRequest = z.infer<typeof ingestGitRequestSchema>;

export const ingestGitResponseSchema = z
  .object({
    success: z.boolean(),
    libraryId: z.string(),
    filesIngested: z.number().int().describe('Markdown, MDX and reStructuredText files read into chunks'),
    chunksIngested: z.number().int(),
    vectorized: z.boolean(),
    errors: z
      .array(z.string())
      .optional()
      .describe('Files selected but not read, each "<path>: <why>" (e.g. larger than the limit of one file)'),
    commit: z.string().optional().describe('The commit read'),
    unchanged: z
      .boolean()
      .optional()
      .describe('A refresh found the ref still at the commit the library holds: nothing was fetched or written'),
  })
  .meta({ id: 'IngestGitResponse' });
export type IngestGitResponse = z.infer<typeof ingestGitResponseSchema>;
