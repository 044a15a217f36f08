import { newestFirst, parseLibraryId } from '@docshelf/core/library-version';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { api, libraryPath, messageOf, type Library } from '../api';
import { everyText } from '../refresh-every';
import { ErrorMessage, formatDate, PageHeading, shareText } from '../ui';

/**
 * A library with its versions (`demo/lib`, `demo/lib@1.2.0`, …): one row of the table. `members` are what the base id
 * reads first (the library with exactly that id, else the newest version), then the other versions, newest first.
 */
interface LibraryGroup {
  baseId: string;
  members: Library[];
}

function groupVersions(libraries: Library[]): LibraryGroup[] {
  const byBase = new Map<string, Library[]>();
  for (const library of libraries) {
    const { baseId } = parseLibraryId(library.id);
    byBase.set(baseId, [...(byBase.get(baseId) ?? []), library]);
  }
  return [...byBase].map(([baseId, members]) => ({
    baseId,
    members: [
      ...members.filter((library) => library.id === baseId),
      ...newestFirst(members.filter((library) => library.id !== baseId)),
    ],
  }));
}

export function LibrariesPage() {
  const [libraries, setLibraries] = useState<Library[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [filter, setFilter] = useState('');
  const notice = new URLSearchParams(location.search).get('deleted');

  useEffect(() => {
    api.libraries().then(
      ({ libraries }) => setLibraries(libraries),
      (e: unknown) => setError(messageOf(e)),
    );
  }, []);

  const groups = useMemo(() => groupVersions(libraries ?? []), [libraries]);
  const shown = useMemo(() => {
    const words = filter.toLowerCase().split(/\s+/).filter(Boolean);
    const matches = (library: Library) => {
      const text =
        `${library.id} ${library.name} ${library.description ?? ''} ${library.sourceUrl ?? ''}`.toLowerCase();
      return words.every((word) => text.includes(word));
    };
    return groups.filter((group) => group.members.some(matches));
  }, [groups, filter]);

  return (
    <section>
      <div class="page-title">
        <PageHeading>Libraries</PageHeading>
        <a class="button" href="/add">
          Add docs
        </a>
      </div>
      {notice ? (
        <p class="message notice" role="status">
          Library {notice} was deleted.
        </p>
      ) : null}
      <ErrorMessage message={error} />
      <div class="filter">
        <label for="library-filter">Filter libraries</label>
        <input
          id="library-filter"
          type="search"
          placeholder="Name, id or source"
          value={filter}
          onInput={(e) => setFilter(e.currentTarget.value)}
          aria-describedby="library-count"
        />
        <p id="library-count" class="hint" aria-live="polite">
          {libraries === null ? 'Loading…' : `${shown.length} of ${groups.length} libraries`}
        </p>
      </div>
      {libraries !== null && libraries.length === 0 ? (
        <p>
          No libraries yet. <a href="/add">Crawl a site or ingest a URL</a> to create one.
        </p>
      ) : (
        <div class="table-scroll" tabIndex={0} role="region" aria-label="Libraries table">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Id</th>
                <th scope="col">Source</th>
                <th scope="col">Version</th>
                <th scope="col" class="num">
                  Chunks
                </th>
                <th scope="col">Share embedded</th>
                <th scope="col">Updated</th>
              </tr>
            </thead>
            <tbody>
              {shown.map((group) => (
                <LibraryRow key={group.baseId} group={group} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

/** One library; with versions, a menu picks the one the row shows (what the base id reads, at first). */
function LibraryRow({ group }: { group: LibraryGroup }) {
  const [selectedId, setSelectedId] = useState(group.members[0]!.id);
  const library = group.members.find((member) => member.id === selectedId) ?? group.members[0]!;
  const menuId = `versions-${group.baseId}`;
  return (
    <tr>
      <td>
        <a href={`/libraries/${libraryPath(library.id)}`}>{library.name}</a>
      </td>
      <td>
        <code>{group.baseId}</code>
      </td>
      <td class="source">
        {library.sourceUrl ? <span title={library.sourceUrl}>{library.sourceUrl}</span> : library.sourceType}
      </td>
      <td class="version">
        {group.members.length > 1 ? (
          <>
            <label for={menuId} class="visually-hidden">
              Version of {group.baseId}
            </label>
            <select id={menuId} value={library.id} onChange={(e) => setSelectedId(e.currentTarget.value)}>
              {group.members.map((member) => (
                <option key={member.id} value={member.id}>
                  {member.id === group.baseId ? baseLabel(member) : versionLabel(member, group.baseId)}
                </option>
              ))}
            </select>
          </>
        ) : (
          versionLabel(library, group.baseId)
        )}
      </td>
      <td class="num">{library.chunkCount}</td>
      <td>
        <EmbeddedShare library={library} />
      </td>
      <td>
        {formatDate(library.updatedAt)}
        {library.refresh ? <span class="refresh-mark hint">refreshed {everyText(library.refresh.every)}</span> : null}
      </td>
    </tr>
  );
}

/** The version a member names: its id's (`@1.2.0`), else its `version` field, else a dash. */
function versionLabel(library: Library, baseId: string): string {
  if (library.id !== baseId) return parseLibraryId(library.id).version!;
  return library.version ?? '–';
}

/** The library with exactly the base id, beside its versions in the menu. */
const baseLabel = (library: Library) => (library.version ? `${library.id} (${library.version})` : library.id);

export function EmbeddedShare({ library }: { library: Library }) {
  return (
    <span class="share">
      <meter min={0} max={Math.max(library.chunkCount, 1)} value={library.vectorCount} aria-hidden="true" />
      <span>{shareText(library.vectorCount, library.chunkCount)}</span>
    </span>
  );
}
