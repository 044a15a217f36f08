import { z } from 'zod';

/** Context7-style ids such as `vercel/next.js`: safe in paths, backup keys and vector namespaces. */
export const libraryIdSchema = z
  .string()
  .min(1, 'libraryId must not be empty')
  .max(128, 'libraryId must be at most 128 characters')
  .regex(/^[A-Za-z0-9._\-/]+$/, 'libraryId may contain only letters, digits, ".", "_", "-" and "/"')
  .refine((id) => !id.startsWith('/') && !id.endsWith('/'), 'libraryId must not start or end with "/"')
  .refine(
    (id) => id.split('/').every((segment) => segment !== '' && segment !== '.' && segment !== '..'),
    'libraryId must not contain empty, "." or ".." segments',
  )
  .meta({ examples: ['vercel/next.js'] });

/**
 * Where a replacement of a library is built before it is swapped in: outside the ids clients may use (they cannot
 * start with "~"), so it is never listed, read or searched as a library of its own.
 */
export function stagedLibraryId(ingestionId: string): string {
  return `~staged/${ingestionId}`;
}

export const STAGED_LIBRARY_PREFIX = '~staged/';

export const isStagedLibraryId = (id: string) => id.startsWith(STAGED_LIBRARY_PREFIX);

/** A library id in a job payload: a client's, or the staging id of a replacement being built. */
export const jobLibraryIdSchema = z.union([
  libraryIdSchema,
  z.string().regex(/^~staged\/[0-9a-f-]{36}$/, 'not a staged library id'),
]);
