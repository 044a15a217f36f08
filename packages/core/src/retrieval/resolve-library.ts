import { newestFirst, parseLibraryId, versionOfLibraryId } from '../domain/library-id';
import type { Library } from '../domain/types';
import { libraryNotFound } from '../errors';
import type { LibraryStore } from '../ports';

export type LibraryResolver = Pick<LibraryStore, 'getLibrary' | 'listLibraryVersions'>;

/**
 * The library a read names: the one with exactly this id, else, for an id without a version, the newest of its
 * versions (`demo/lib` reads `demo/lib@1.10.0` when no library `demo/lib` exists). 404 LIBRARY_NOT_FOUND otherwise,
 * naming the versions there are when the id asked for another.
 */
export async function resolveLibrary(store: LibraryResolver, id: string): Promise<Library> {
  const exact = await store.getLibrary(id);
  if (exact) return exact;
  const version = versionOfLibraryId(id);
  if (version === undefined) {
    const [newest] = newestFirst(await store.listLibraryVersions(id));
    if (newest) return newest;
    throw libraryNotFound(id);
  }
  const versions = newestFirst(await store.listLibraryVersions(parseLibraryId(id).baseId));
  throw libraryNotFound(
    id,
    versions.map((library) => library.id),
  );
}

/** Each id resolved (resolveLibrary), each library once, in the order first named. */
export async function resolveLibraries(store: LibraryResolver, ids: string[]): Promise<Library[]> {
  const libraries = await Promise.all([...new Set(ids)].map((id) => resolveLibrary(store, id)));
  return [...new Map(libraries.map((library) => [library.id, library])).values()];
}
