/** The Add docs forms, one per source: each starts its job and opens its page, or shows why the API refused. */
import { useState } from 'preact/hooks';
import { api, messageOf } from '../api';
import { everyText, REFRESH_CHOICES } from '../refresh-every';
import { navigate } from '../router';
import { ErrorMessage } from '../ui';

const lines = (text: string) =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);

/** The crawl options with the defaults the API applies (POST /api/crawl). */
const RENDERERS = [
  ['browser', 'browser (every page in Chromium)'],
  ['auto', 'auto (Chromium for script pages)'],
  ['http', 'http (no rendering)'],
] as const;

const CRAWL_DEFAULTS = { maxDepth: 1, maxPages: 150, respectRobotsTxt: true, useSitemap: false, renderer: 'auto' };

function LibraryFields() {
  return (
    <>
      <div class="field">
        <label for="libraryId">Library id</label>
        <input id="libraryId" name="libraryId" required placeholder="acme/widgets" aria-describedby="libraryId-hint" />
        <p id="libraryId-hint" class="hint">
          Letters, digits, <code>. _ - /</code>; an existing id updates that library.
        </p>
      </div>
      <div class="field">
        <label for="name">Name</label>
        <input id="name" name="name" required placeholder="Acme Widgets" />
      </div>
      <div class="field">
        <label for="description">Description (optional)</label>
        <input id="description" name="description" />
      </div>
    </>
  );
}

function useSubmit(start: (form: FormData) => Promise<{ jobId: string }>) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const { jobId } = await start(new FormData(event.currentTarget as HTMLFormElement));
      navigate(`/jobs/${jobId}`);
    } catch (e) {
      setError(messageOf(e));
      setBusy(false);
    }
  };
  return { error, busy, submit };
}

const text = (form: FormData, name: string) => {
  const value = form.get(name);
  return typeof value === 'string' ? value.trim() : '';
};
const optional = (form: FormData, name: string) => (text(form, name) ? { [name]: text(form, name) } : {});

export function CrawlForm() {
  const { error, busy, submit } = useSubmit((form) =>
    api.crawl({
      libraryId: text(form, 'libraryId'),
      name: text(form, 'name'),
      ...optional(form, 'description'),
      urls: lines(text(form, 'urls')),
      maxDepth: Number(form.get('maxDepth')),
      maxPages: Number(form.get('maxPages')),
      includePaths: lines(text(form, 'includePaths')),
      excludePaths: lines(text(form, 'excludePaths')),
      respectRobotsTxt: form.get('respectRobotsTxt') === 'on',
      useSitemap: form.get('useSitemap') === 'on',
      // The menu's values are RENDERERS' own.
      renderer: text(form, 'renderer') as (typeof RENDERERS)[number][0],
      replace: form.get('replace') === 'on',
      ...optional(form, 'refreshEvery'),
    }),
  );
  return (
    <form class="card job-form" onSubmit={(event) => void submit(event)} aria-labelledby="crawl-heading">
      <h2 id="crawl-heading">Crawl a site</h2>
      <LibraryFields />
      <div class="field">
        <label for="urls">Seed URLs, one per line</label>
        <textarea
          id="urls"
          name="urls"
          rows={3}
          required
          placeholder="https://docs.acme.example/"
          aria-describedby="urls-hint"
        />
        <p id="urls-hint" class="hint">
          One URL: Docshelf follows its same-origin links. Several URLs: each is crawled, nothing more.
        </p>
      </div>
      <div class="field">
        <label for="refreshEvery">Crawl again</label>
        <select id="refreshEvery" name="refreshEvery" aria-describedby="refreshEvery-hint">
          <option value="">never</option>
          {REFRESH_CHOICES.map((every) => (
            <option key={every} value={every}>
              {everyText(every)}
            </option>
          ))}
        </select>
        <p id="refreshEvery-hint" class="hint">
          With these settings; unchanged pages keep their chunks and vectors. With “never”, a schedule the library
          already has stays: its page stops it.
        </p>
      </div>
      <details class="options">
        <summary>Crawl options</summary>
        <div class="grid">
          <div class="field">
            <label for="maxDepth">Link depth</label>
            <input
              id="maxDepth"
              name="maxDepth"
              type="number"
              min={0}
              max={10}
              defaultValue={String(CRAWL_DEFAULTS.maxDepth)}
              required
            />
          </div>
          <div class="field">
            <label for="maxPages">Most pages</label>
            <input
              id="maxPages"
              name="maxPages"
              type="number"
              min={1}
              defaultValue={String(CRAWL_DEFAULTS.maxPages)}
              required
            />
          </div>
          <div class="field">
            <label for="renderer">Renderer</label>
            <select id="renderer" name="renderer">
              {RENDERERS.map(([value, label]) => (
                <option key={value} value={value} selected={value === CRAWL_DEFAULTS.renderer}>
                  {label}
                </option>
              ))}
            </select>
          </div>
        </div>
        <div class="field">
          <label for="includePaths">Only paths matching (globs, one per line)</label>
          <textarea id="includePaths" name="includePaths" rows={2} placeholder="/docs/**" />
        </div>
        <div class="field">
          <label for="excludePaths">Skip paths matching (globs, one per line)</label>
          <textarea id="excludePaths" name="excludePaths" rows={2} placeholder="/blog/**" />
        </div>
        <label class="choice">
          <input type="checkbox" name="respectRobotsTxt" defaultChecked={CRAWL_DEFAULTS.respectRobotsTxt} /> Respect
          robots.txt
        </label>
        <label class="choice">
          <input type="checkbox" name="useSitemap" defaultChecked={CRAWL_DEFAULTS.useSitemap} /> Also read the site’s
          sitemap.xml
        </label>
        <label class="choice">
          <input type="checkbox" name="replace" /> Replace the library’s chunks (otherwise they are added)
        </label>
      </details>
      <ErrorMessage message={error} />
      <button type="submit" disabled={busy}>
        {busy ? 'Starting…' : 'Start crawl'}
      </button>
    </form>
  );
}

export function IngestUrlForm() {
  const { error, busy, submit } = useSubmit((form) =>
    api.ingestUrl({
      libraryId: text(form, 'libraryId'),
      name: text(form, 'name'),
      ...optional(form, 'description'),
      sourceUrl: text(form, 'sourceUrl'),
      sourceType: text(form, 'sourceType'),
    }),
  );
  return (
    <form class="card job-form" onSubmit={(event) => void submit(event)} aria-labelledby="url-heading">
      <h2 id="url-heading">Ingest one URL</h2>
      <LibraryFields />
      <div class="field">
        <label for="sourceUrl">URL</label>
        <input id="sourceUrl" name="sourceUrl" type="url" required placeholder="https://docs.acme.example/llms.txt" />
      </div>
      <div class="field">
        <label for="sourceType">Kind of document</label>
        <select id="sourceType" name="sourceType">
          <option value="llms_txt">llms.txt file</option>
          <option value="page">a web page</option>
        </select>
      </div>
      <p class="hint">The library’s chunks are replaced by what the URL holds.</p>
      <ErrorMessage message={error} />
      <button type="submit" disabled={busy}>
        {busy ? 'Starting…' : 'Start ingestion'}
      </button>
    </form>
  );
}

export function IngestGitForm() {
  const { error, busy, submit } = useSubmit((form) =>
    api.ingestGit({
      libraryId: text(form, 'libraryId'),
      name: text(form, 'name'),
      ...optional(form, 'description'),
      repoUrl: text(form, 'repoUrl'),
      ...optional(form, 'ref'),
      ...(lines(text(form, 'paths')).length > 0 ? { paths: lines(text(form, 'paths')) } : {}),
      ...optional(form, 'pageUrlTemplate'),
    }),
  );
  return (
    <form class="card job-form" onSubmit={(event) => void submit(event)} aria-labelledby="git-heading">
      <h2 id="git-heading">Read a git repository</h2>
      <LibraryFields />
      <div class="field">
        <label for="repoUrl">Repository URL</label>
        <input id="repoUrl" name="repoUrl" type="url" required placeholder="https://git.acme.example/widgets.git" />
      </div>
      <div class="field">
        <label for="ref">Branch, tag or commit (optional)</label>
        <input id="ref" name="ref" placeholder="main" aria-describedby="ref-hint" />
        <p id="ref-hint" class="hint">
          The repository’s default branch when empty.
        </p>
      </div>
      <div class="field">
        <label for="paths">Files to read (globs, one per line; optional)</label>
        <textarea id="paths" name="paths" rows={2} placeholder="docs/**" aria-describedby="paths-hint" />
        <p id="paths-hint" class="hint">
          Default: the <code>docs</code> folder and every README.
        </p>
      </div>
      <div class="field">
        <label for="pageUrlTemplate">Page URL template (optional)</label>
        <input
          id="pageUrlTemplate"
          name="pageUrlTemplate"
          placeholder="https://widgets.acme.example/{path}"
          aria-describedby="template-hint"
        />
        <p id="template-hint" class="hint">
          <code>{'{path}'}</code> is the file’s path without its extension; without a template, chunks link to the path.
        </p>
      </div>
      <p class="hint">The library’s chunks are replaced by the repository’s files.</p>
      <ErrorMessage message={error} />
      <button type="submit" disabled={busy}>
        {busy ? 'Starting…' : 'Start reading'}
      </button>
    </form>
  );
}

export function IngestArchiveForm() {
  // Only the fields POST /api/ingest-archive takes (it refuses any other), empty optional ones left out.
  const { error, busy, submit } = useSubmit((form) =>
    api.ingestArchive({
      libraryId: text(form, 'libraryId'),
      name: text(form, 'name'),
      ...optional(form, 'description'),
      ...optional(form, 'baseUrl'),
      // The input is required, so the browser sends no form without a file.
      file: form.get('file') as File,
    }),
  );
  return (
    <form class="card job-form" onSubmit={(event) => void submit(event)} aria-labelledby="archive-heading">
      <h2 id="archive-heading">Upload a built site or Markdown files</h2>
      <LibraryFields />
      <div class="field">
        <label for="file">Archive (.zip, .tar.gz or .tar)</label>
        <input
          id="file"
          name="file"
          type="file"
          required
          accept=".zip,.tar.gz,.tgz,.tar"
          aria-describedby="file-hint"
        />
        <p id="file-hint" class="hint">
          A built site (Sphinx’s <code>_build/html</code>, MkDocs’ <code>site/</code>) is read as a crawl of it would
          be, from its <code>index.html</code> along its links; Markdown, MDX and reStructuredText files are read by
          section.
        </p>
      </div>
      <div class="field">
        <label for="baseUrl">Published at (base URL, optional)</label>
        <input
          id="baseUrl"
          name="baseUrl"
          type="url"
          placeholder="https://docs.acme.example/"
          aria-describedby="baseUrl-hint"
        />
        <p id="baseUrl-hint" class="hint">
          Where the site is published: each chunk then links to its page there (this URL, then the page’s path from the
          folder of the site’s <code>index.html</code>). Without it, chunks link to paths in the archive.
        </p>
      </div>
      <p class="hint">The library’s chunks are replaced by the archive’s.</p>
      <ErrorMessage message={error} />
      <button type="submit" disabled={busy}>
        {busy ? 'Uploading…' : 'Upload and read'}
      </button>
    </form>
  );
}
