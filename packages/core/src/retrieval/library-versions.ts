import type { LibraryStore } from '../ports';
import type { LibraryVersions } from './pack-context';

/** The `version` of each of these libraries (null: it has none, or it is gone), read once per library. */
export async function libraryVersions(
  store: Pick<LibraryStore, 'getLibrary'>,
  libraryIds: Iterable<string>,
): Promise<LibraryVersions> {
  const ids = [...new Set(libraryIds)];
  const libraries = await Promise.all(ids.map((id) => store.getLibrary(id)));
  return new Map(ids.map((id, i) => [id, libraries[i]?.version ?? null]));
}
