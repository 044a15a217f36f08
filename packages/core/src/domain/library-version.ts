import compareSemver from 'semver/functions/compare';
import parseSemver from 'semver/functions/parse';

/**
 * A library's versions: `python/stdlib@3.11` is version `3.11` of `python/stdlib`, a library of its own. Free of zod
 * and I/O, so the dashboard bundles it (`@docshelf/core/library-version`) to order versions as the API does.
 */

/** Separates a library's base id from its version. */
export const VERSION_SEPARATOR = '@';

/** A library id split at its version. */
export interface ParsedLibraryId {
  baseId: string;
  version?: string;
}

/** Splits an id at its last `@`; an id without one has no version. Checks nothing (libraryIdSchema does). */
export function parseLibraryId(id: string): ParsedLibraryId {
  const at = id.lastIndexOf(VERSION_SEPARATOR);
  return at === -1 ? { baseId: id } : { baseId: id.slice(0, at), version: id.slice(at + 1) };
}

/** The version an id names (`x@1.2` → `1.2`), undefined for an id without one. */
export const versionOfLibraryId = (id: string): string | undefined => parseLibraryId(id).version;

/** `versionedLibraryId('python/stdlib', '3.11')` is `python/stdlib@3.11`. */
export const versionedLibraryId = (baseId: string, version: string) => `${baseId}${VERSION_SEPARATOR}${version}`;

/**
 * The ids of a library's versions as a range of strings in code-point order, `[from, below)`: every id that starts
 * with `<baseId>@` and nothing else, since "A" follows "@". A range lets a store read them by its id index.
 */
export const versionIdRange = (baseId: string): [string, string] => [
  `${baseId}${VERSION_SEPARATOR}`,
  `${baseId}${String.fromCharCode(VERSION_SEPARATOR.charCodeAt(0) + 1)}`,
];

/** What ordering versions needs of a library. */
export interface VersionedLibrary {
  id: string;
  createdAt: string;
}

/**
 * Newest first: by semantic-version order when both versions parse as one (`1.10.0` after `1.2.0`), else the later
 * created first; ties by id, so the order is the same on every call.
 */
export function compareNewestFirst(a: VersionedLibrary, b: VersionedLibrary): number {
  const semverA = semverOf(a.id);
  const semverB = semverOf(b.id);
  const bySemver = semverA && semverB ? compareSemver(semverB, semverA) : 0;
  if (bySemver !== 0) return bySemver;
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? 1 : -1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** A library's versions, newest first (compareNewestFirst). */
export const newestFirst = <L extends VersionedLibrary>(libraries: readonly L[]): L[] =>
  [...libraries].sort(compareNewestFirst);

function semverOf(id: string) {
  const version = versionOfLibraryId(id);
  return version === undefined ? null : parseSemver(version);
}
