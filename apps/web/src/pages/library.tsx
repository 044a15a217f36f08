import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, messageOf, type Chunk, type Library, type SearchResult } from '../api';
import { navigate } from '../router';
import { ConfirmDialog, ErrorMessage, ExternalLink, formatDate, PageHeading } from '../ui';
import { EmbeddedShare } from './libraries';
import { LibraryRefresh } from './library-refresh';

/** Sources a library keeps to be read again from: a crawl's settings, a git repository's ref. */
const REFRESHABLE_SOURCES = new Set(['crawl', 'git']);

const PAGE_SIZE = 20;
/** Chunks per POST /api/embed call: SPEC's default batch. */
const EMBED_BATCH = 200;

export function LibraryPage({ id }: { id: string }) {
  const [library, setLibrary] = useState<Library | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [missing, setMissing] = useState(false);

  const load = () =>
    api.library(id).then(
      ({ library }) => setLibrary(library),
      (e: unknown) => (e instanceof ApiError && e.status === 404 ? setMissing(true) : setError(messageOf(e))),
    );
  useEffect(() => {
    void load();
  }, [id]);

  if (missing) {
    return (
      <section>
        <PageHeading>Library not found</PageHeading>
        <p>
          There is no library <code>{id}</code>. <a href="/libraries">Back to the libraries</a>.
        </p>
      </section>
    );
  }
  return (
    <section>
      <p class="breadcrumb">
        <a href="/libraries">Libraries</a> / <code>{id}</code>
      </p>
      <PageHeading>{library?.name ?? id}</PageHeading>
      <ErrorMessage message={error} />
      {library ? (
        <>
          <Metadata library={library} />
          <EmbedRest library={library} onDone={() => void load()} />
          {REFRESHABLE_SOURCES.has(library.sourceType) ? <LibraryRefresh key={library.id} library={library} /> : null}
          <SearchBox libraryId={library.id} />
          <Chunks libraryId={library.id} />
          <DeleteLibrary library={library} />
        </>
      ) : (
        <p class="loading">Loading…</p>
      )}
    </section>
  );
}

function Metadata({ library }: { library: Library }) {
  return (
    <dl class="metadata">
      <dt>Id</dt>
      <dd>
        <code>{library.id}</code>
      </dd>
      {library.description ? (
        <>
          <dt>Description</dt>
          <dd>{library.description}</dd>
        </>
      ) : null}
      <dt>Source</dt>
      <dd>
        {library.sourceUrl ? <ExternalLink url={library.sourceUrl} /> : '–'} ({library.sourceType})
      </dd>
      <dt>Version</dt>
      <dd>{library.version ?? '–'}</dd>
      <dt>Chunks</dt>
      <dd>{library.chunkCount}</dd>
      <dt>Embedded</dt>
      <dd>
        <EmbeddedShare library={library} />
        {library.embeddingModel ? <span class="hint"> with {library.embeddingModel}</span> : null}
      </dd>
      <dt>Created</dt>
      <dd>{formatDate(library.createdAt)}</dd>
      <dt>Updated</dt>
      <dd>{formatDate(library.updatedAt)}</dd>
    </dl>
  );
}

/** Drives POST /api/embed from offset 0 to the end, a batch at a time, with a progress bar. */
function EmbedRest({ library, onDone }: { library: Library; onDone: () => void }) {
  const [progress, setProgress] = useState<{ done: number; total: number } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [finished, setFinished] = useState(false);
  if (library.vectorCount >= library.chunkCount && !progress) return null;

  const run = async () => {
    setError(null);
    setFinished(false);
    setProgress({ done: 0, total: library.chunkCount });
    try {
      let offset: number | null = 0;
      while (offset !== null) {
        const page = await api.embed(library.id, offset, EMBED_BATCH);
        setProgress({ done: page.offset + page.processed, total: page.total });
        offset = page.done ? null : page.nextOffset;
      }
      setFinished(true);
      onDone();
    } catch (e) {
      setError(messageOf(e));
    }
  };
  const running = progress !== null && !finished && !error;
  return (
    <div class="embed-rest card">
      <h2>Embeddings</h2>
      <p>
        {library.vectorCount} of {library.chunkCount} chunks have a vector. Search ranks chunks without one by keywords
        only.
      </p>
      <button type="button" onClick={() => void run()} disabled={running}>
        {running ? 'Embedding…' : 'Embed the rest'}
      </button>
      {progress ? (
        <div class="progress-row">
          <label for="embed-progress">Chunks embedded</label>
          <progress id="embed-progress" max={Math.max(progress.total, 1)} value={progress.done} />
          <span role="status">
            {finished
              ? `Done: ${progress.total} of ${progress.total} chunks embedded.`
              : `${progress.done} of ${progress.total}`}
          </span>
        </div>
      ) : null}
      <ErrorMessage message={error} />
    </div>
  );
}

function DeleteLibrary({ library }: { library: Library }) {
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const confirm = async () => {
    setBusy(true);
    try {
      await api.deleteLibrary(library.id);
      navigate(`/libraries?deleted=${encodeURIComponent(library.id)}`);
    } catch (e) {
      setError(messageOf(e));
      setBusy(false);
      setOpen(false);
    }
  };
  return (
    <div class="delete-library card">
      <h2>Delete this library</h2>
      <p>Removes the chunks, vectors and backups of this library.</p>
      <button type="button" class="danger" onClick={() => setOpen(true)}>
        Delete library
      </button>
      <ErrorMessage message={error} />
      <ConfirmDialog
        open={open}
        title={`Delete ${library.name}?`}
        confirmLabel={`Delete ${library.id}`}
        busy={busy}
        onConfirm={() => void confirm()}
        onCancel={() => setOpen(false)}
      >
        <p>
          This deletes the library <strong>{library.name}</strong> (<code>{library.id}</code>) with its{' '}
          {library.chunkCount} chunks, their vectors and its backups. It cannot be undone.
        </p>
      </ConfirmDialog>
    </div>
  );
}

function SearchBox({ libraryId }: { libraryId: string }) {
  const [q, setQ] = useState('');
  const [results, setResults] = useState<{ query: string; mode: string; results: SearchResult[] } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    if (!q.trim()) return;
    setBusy(true);
    setError(null);
    try {
      setResults(await api.search(libraryId, q.trim()));
    } catch (e) {
      setError(messageOf(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="search card" aria-labelledby="search-heading">
      <h2 id="search-heading">Search this library</h2>
      <form role="search" onSubmit={(event) => void submit(event)} class="inline-form">
        <label for="search-q">Question or keywords</label>
        <div class="inline-row">
          <input id="search-q" type="search" value={q} onInput={(e) => setQ(e.currentTarget.value)} />
          <button type="submit" disabled={busy}>
            Search
          </button>
        </div>
      </form>
      <ErrorMessage message={error} />
      {results ? (
        <div aria-live="polite">
          <p class="hint">
            {results.results.length} results for “{results.query}” ({results.mode} ranking)
          </p>
          <ol class="results">
            {results.results.map((r) => (
              <li key={r.chunkId}>
                <h3>{r.title || r.chunkId}</h3>
                <p class="result-meta">
                  {r.tokens} tokens
                  {r.url ? (
                    <>
                      {' · '}
                      <ExternalLink url={r.url} />
                    </>
                  ) : null}
                </p>
                <p class="snippet">{r.content.length > 400 ? `${r.content.slice(0, 400)}…` : r.content}</p>
              </li>
            ))}
          </ol>
        </div>
      ) : null}
    </section>
  );
}

function Chunks({ libraryId }: { libraryId: string }) {
  const [offset, setOffset] = useState(0);
  const [page, setPage] = useState<{ chunks: Chunk[]; total: number; nextOffset: number | null } | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    api.chunks(libraryId, offset, PAGE_SIZE).then(setPage, (e: unknown) => setError(messageOf(e)));
  }, [libraryId, offset]);
  const last = page ? Math.min(offset + PAGE_SIZE, page.total) : 0;
  return (
    <section class="chunks" aria-labelledby="chunks-heading">
      <h2 id="chunks-heading">Chunks</h2>
      <ErrorMessage message={error} />
      {page ? (
        <>
          <p class="hint" aria-live="polite">
            {page.total === 0 ? 'No chunks.' : `Chunks ${offset + 1}–${last} of ${page.total}`}
          </p>
          <ol class="chunk-list" start={offset + 1}>
            {page.chunks.map((chunk) => (
              <li key={chunk.id}>
                <details>
                  <summary>
                    <span class="chunk-title">{chunk.title || chunk.id}</span>{' '}
                    <span class="hint">{chunk.tokenCount} tokens</span>
                  </summary>
                  {chunk.url ? (
                    <p>
                      <ExternalLink url={chunk.url} />
                    </p>
                  ) : null}
                  <pre tabIndex={0} role="region" aria-label={`Text of ${chunk.title || chunk.id}`}>
                    {chunk.content}
                  </pre>
                </details>
              </li>
            ))}
          </ol>
          <div class="pager">
            <button
              type="button"
              class="secondary"
              disabled={offset === 0}
              onClick={() => setOffset(Math.max(0, offset - PAGE_SIZE))}
            >
              Previous chunks
            </button>
            <button
              type="button"
              class="secondary"
              disabled={page.nextOffset === null}
              onClick={() => setOffset(page.nextOffset ?? offset)}
            >
              Next chunks
            </button>
          </div>
        </>
      ) : null}
    </section>
  );
}
