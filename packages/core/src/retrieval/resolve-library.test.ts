import type { Library } from '../domain/types';
import { AppError } from '../errors';
import { resolveLibraries, resolveLibrary, type LibraryResolver } from './resolve-library';

const libraryAt = (id: string, createdAt: string): Library => ({
  id,
  name: id,
  sourceType: 'llms_txt',
  chunkCount: 1,
  ownerId: 'owner',
  createdAt,
  updatedAt: createdAt,
});

/** A store of these libraries, answering as the LibraryStore contract says. */
function storeOf(...libraries: Library[]): LibraryResolver {
  return {
    getLibrary: async (id) => libraries.find((l) => l.id === id) ?? null,
    listLibraryVersions: async (baseId) =>
      libraries.filter((l) => l.id.startsWith(`${baseId}@`)).sort((a, b) => (a.id < b.id ? -1 : 1)),
  };
}

const notFound = (message: string) => expect.objectContaining({ code: 'LIBRARY_NOT_FOUND', status: 404, message });

describe('resolveLibrary', () => {
  it('reads the library with exactly the id, also when it has versions', async () => {
    const store = storeOf(libraryAt('demo/lib', '2025-01-01'), libraryAt('demo/lib@2.0.0', '2025-02-01'));
    expect((await resolveLibrary(store, 'demo/lib')).id).toBe('demo/lib');
    expect((await resolveLibrary(store, 'demo/lib@2.0.0')).id).toBe('demo/lib@2.0.0');
  });

  it('reads the newest version of a base id by semver order, whatever the creation order', async () => {
    const store = storeOf(
      libraryAt('demo/lib@1.10.0', '2025-01-01'),
      libraryAt('demo/lib@1.2.0', '2025-03-01'),
      libraryAt('demo/lib@1.10.0-rc.1', '2025-04-01'),
    );
    expect((await resolveLibrary(store, 'demo/lib')).id).toBe('demo/lib@1.10.0');
  });

  it('reads the latest created version when versions are not both semver', async () => {
    const store = storeOf(libraryAt('python/stdlib@3.9', '2025-03-01'), libraryAt('python/stdlib@3.11', '2025-01-01'));
    expect((await resolveLibrary(store, 'python/stdlib')).id).toBe('python/stdlib@3.9');
  });

  it('answers 404 for an unknown id, and names the versions there are for an unknown version', async () => {
    const store = storeOf(libraryAt('demo/lib@1.2.0', '2025-01-01'), libraryAt('demo/lib@1.10.0', '2025-01-01'));
    await expect(resolveLibrary(store, 'demo/other')).rejects.toEqual(notFound("Library 'demo/other' not found"));
    await expect(resolveLibrary(store, 'demo/lib@9')).rejects.toEqual(
      notFound("Library 'demo/lib@9' not found; its versions are demo/lib@1.10.0, demo/lib@1.2.0"),
    );
    await expect(resolveLibrary(store, 'demo/other@1')).rejects.toBeInstanceOf(AppError);
  });
});

describe('resolveLibraries', () => {
  it('reads each library once, in the order first named', async () => {
    const store = storeOf(
      libraryAt('demo/lib@1.0.0', '2025-01-01'),
      libraryAt('demo/lib@2.0.0', '2025-01-01'),
      libraryAt('other', '2025-01-01'),
    );
    const libraries = await resolveLibraries(store, ['other', 'demo/lib', 'demo/lib@2.0.0', 'demo/lib@1.0.0']);
    expect(libraries.map((l) => l.id)).toEqual(['other', 'demo/lib@2.0.0', 'demo/lib@1.0.0']);
  });
});
