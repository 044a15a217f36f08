import { z } from 'zod';
import { parseLibraryId, VERSION_SEPARATOR } from './library-version';

export * from './library-version';

/** Characters of a library id before its version: Context7-style ids such as `vercel/next.js`. */
const BASE_CHARACTERS = /^[A-Za-z0-9._\-/]+$/;
/** A version names a release as its project writes it (`3.11`, `1.0.0-rc.1`, `2.1+build.5`). */
const VERSION_CHARACTERS = /^[A-Za-z0-9._\-+]+$/;
export const MAX_LIBRARY_ID_LENGTH = 128;
export const MAX_VERSION_LENGTH = 64;

/**
 * Context7-style ids such as `vercel/next.js`, optionally one version of a library (`python/stdlib@3.11`): safe in
 * paths, backup keys (which percent-encode `@` and `+`) and vector namespaces. The whole id, version included, keeps
 * to 128 characters, the longest Pinecone namespace it may become.
 */
export const libraryIdSchema = z
  .string()
  .min(1, 'libraryId must not be empty')
  .max(MAX_LIBRARY_ID_LENGTH, `libraryId must be at most ${MAX_LIBRARY_ID_LENGTH} characters`)
  .superRefine((id, ctx) => {
    for (const message of libraryIdProblems(id)) ctx.addIssue({ code: 'custom', message });
  })
  .meta({ examples: ['vercel/next.js', 'python/stdlib@3.11'] });

function libraryIdProblems(id: string): string[] {
  if (id === '') return [];
  if ([...id].filter((char) => char === VERSION_SEPARATOR).length > 1)
    return ['libraryId may contain "@" only once, before its version'];
  const { baseId, version } = parseLibraryId(id);
  const problems: string[] = [];
  if (baseId === '') problems.push('libraryId must name a library before "@"');
  else if (!BASE_CHARACTERS.test(baseId))
    problems.push('libraryId may contain only letters, digits, ".", "_", "-" and "/" (then "@" and a version)');
  else if (baseId.startsWith('/') || baseId.endsWith('/')) problems.push('libraryId must not start or end with "/"');
  else if (!baseId.split('/').every((segment) => segment !== '' && segment !== '.' && segment !== '..'))
    problems.push('libraryId must not contain empty, "." or ".." segments');
  if (version !== undefined) problems.push(...versionProblems(version));
  return problems;
}

function versionProblems(version: string): string[] {
  if (version === '') return ['the version after "@" must not be empty'];
  if (version.length > MAX_VERSION_LENGTH)
    return [`the version after "@" must be at most ${MAX_VERSION_LENGTH} characters`];
  if (!VERSION_CHARACTERS.test(version))
    return ['the version after "@" may contain only letters, digits, ".", "_", "-" and "+"'];
  return [];
}

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
