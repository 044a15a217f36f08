import {
  AppError,
  libraryIdSchema,
  libraryNotFound,
  newestFirst,
  parseLibraryId,
  resolveLibrary,
  versionedLibraryId,
  type Library,
  type RetrievalDeps,
} from '@docshelf/core';

/** How the MCP tools name libraries: Context7's ID forms, and a library listed once with its versions. */

/**
 * The library an ID names (resolveLibrary: a base id reads its newest version). Context7 writes IDs with a leading
 * slash ("/vercel/next.js") and a version as a last segment ("/vercel/next.js/15.1"), read as "vercel/next.js@15.1"
 * when that library exists.
 */
export async function existingLibrary(deps: RetrievalDeps, raw: string): Promise<Library> {
  const id = raw.trim().replace(/^\/+/, '');
  const parsed = libraryIdSchema.safeParse(id);
  if (!parsed.success) throw libraryNotFound(raw);
  try {
    return await resolveLibrary(deps.libraries, parsed.data);
  } catch (error) {
    if (!(error instanceof AppError && error.code === 'LIBRARY_NOT_FOUND')) throw error;
    const versioned = context7Version(parsed.data);
    const library = versioned === null ? null : await deps.libraries.getLibrary(versioned);
    if (library) return library;
    throw error;
  }
}

/** `org/project/1.2.0` → `org/project@1.2.0`; null when the ID has no version segment to read so. */
function context7Version(id: string): string | null {
  const slash = id.lastIndexOf('/');
  if (slash === -1 || parseLibraryId(id).version !== undefined) return null;
  const versioned = versionedLibraryId(id.slice(0, slash), id.slice(slash + 1));
  return libraryIdSchema.safeParse(versioned).success ? versioned : null;
}

/** A library with its versions, as resolve-library-id lists it: `id` is what to pass, it reads `reads`. */
interface LibraryGroup {
  id: string;
  reads: Library;
  versions: Library[];
}

/** The matches grouped by base id in the order first matched, each with every version there is, newest first. */
export function groupVersions(matches: Library[], libraries: Library[]): LibraryGroup[] {
  const versionsOf = new Map<string, Library[]>();
  for (const library of libraries) {
    const { baseId, version } = parseLibraryId(library.id);
    if (version !== undefined) versionsOf.set(baseId, [...(versionsOf.get(baseId) ?? []), library]);
  }
  const groups = new Map<string, LibraryGroup>();
  for (const match of matches) {
    const baseId = parseLibraryId(match.id).baseId;
    if (groups.has(baseId)) continue;
    const versions = newestFirst(versionsOf.get(baseId) ?? []);
    const exact = libraries.find((library) => library.id === baseId);
    groups.set(baseId, { id: baseId, reads: exact ?? versions[0] ?? match, versions });
  }
  return [...groups.values()];
}

export function describeGroup(group: LibraryGroup): string {
  const { id, reads: library, versions } = group;
  return [
    `- Library ID: ${id}`,
    `- Name: ${library.name}`,
    ...(library.description ? [`- Description: ${library.description}`] : []),
    ...(library.version ? [`- Version: ${library.version}`] : []),
    ...(versions.length > 0
      ? [`- Versions (newest first; pass one as its Library ID): ${versions.map((v) => v.id).join(', ')}`]
      : []),
    `- Chunks: ${library.chunkCount}`,
    ...(library.sourceUrl ? [`- Source: ${library.sourceUrl}`] : []),
  ].join('\n');
}
