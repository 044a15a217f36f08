import { useEffect, useMemo, useState } from 'preact/hooks';
import { api, libraryPath, messageOf, type Library } from '../api';
import { ErrorMessage, formatDate, PageHeading, shareText } from '../ui';

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

  const shown = useMemo(() => {
    const words = filter.toLowerCase().split(/\s+/).filter(Boolean);
    return (libraries ?? []).filter((library) => {
      const text =
        `${library.id} ${library.name} ${library.description ?? ''} ${library.sourceUrl ?? ''}`.toLowerCase();
      return words.every((word) => text.includes(word));
    });
  }, [libraries, filter]);

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
          {libraries === null ? 'Loading…' : `${shown.length} of ${libraries.length} libraries`}
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
              {shown.map((library) => (
                <tr key={library.id}>
                  <td>
                    <a href={`/libraries/${libraryPath(library.id)}`}>{library.name}</a>
                  </td>
                  <td>
                    <code>{library.id}</code>
                  </td>
                  <td class="source">
                    {library.sourceUrl ? (
                      <span title={library.sourceUrl}>{library.sourceUrl}</span>
                    ) : (
                      library.sourceType
                    )}
                  </td>
                  <td>{library.version ?? '–'}</td>
                  <td class="num">{library.chunkCount}</td>
                  <td>
                    <EmbeddedShare library={library} />
                  </td>
                  <td>{formatDate(library.updatedAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

export function EmbeddedShare({ library }: { library: Library }) {
  return (
    <span class="share">
      <meter min={0} max={Math.max(library.chunkCount, 1)} value={library.vectorCount} aria-hidden="true" />
      <span>{shareText(library.vectorCount, library.chunkCount)}</span>
    </span>
  );
}
