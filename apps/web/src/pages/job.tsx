import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, isFinal, libraryPath, messageOf, type ErrorBody, type Job, type JobProgress } from '../api';
import { ErrorMessage, formatDate, PageHeading } from '../ui';

const PHASES: Record<string, string> = {
  queued: 'Waiting for a worker',
  crawling: 'Crawling pages',
  fetching: 'Fetching the URL',
  committing: 'Writing chunks',
  indexing: 'Embedding and backing up',
  embedding: 'Embedding chunks',
  embed: 'Embedding chunks without vectors',
  done: 'Done',
};

/** What an archive's phases are about: its upload opened, then its pages or files read. */
const ARCHIVE_PHASES: Record<string, string> = {
  ...PHASES,
  fetching: 'Opening the archive',
  crawling: 'Reading pages and files',
};

/** One job, followed live over its event stream (GET /api/jobs/:id/events) until it ends. */
export function JobPage({ id }: { id: string }) {
  const [job, setJob] = useState<Job | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [missing, setMissing] = useState(false);
  const [cancelling, setCancelling] = useState(false);

  useEffect(() => {
    let source: EventSource | undefined;
    let stopped = false;
    api.job(id).then(
      (first) => {
        if (stopped) return;
        setJob(first);
        if (isFinal(first.state)) return;
        source = new EventSource(`/api/jobs/${encodeURIComponent(id)}/events`);
        const end = (change: (job: Job) => Job) => {
          source?.close();
          setJob((current) => (current ? change(current) : current));
        };
        source.addEventListener('progress', (event) => {
          const progress = JSON.parse((event as MessageEvent<string>).data) as JobProgress;
          setJob((current) => (current ? { ...current, state: 'running', progress } : current));
        });
        source.addEventListener('completed', (event) => {
          const result = JSON.parse((event as MessageEvent<string>).data) as Record<string, unknown>;
          end((job) => ({ ...job, state: 'completed', result, progress: { ...job.progress, phase: 'done' } }));
          // Page jobs on several workers report at once, so the last progress event may not hold the final counts.
          api.job(id).then(
            (latest) => {
              if (!stopped && isFinal(latest.state)) setJob(latest);
            },
            () => undefined,
          );
        });
        source.addEventListener('failed', (event) => {
          const failure = JSON.parse((event as MessageEvent<string>).data) as ErrorBody;
          end((job) => ({ ...job, state: 'failed', error: failure }));
        });
        source.addEventListener('cancelled', () => end((job) => ({ ...job, state: 'cancelled' })));
        // The stream ends after the final event; EventSource would reconnect, so read the record instead.
        source.onerror = () => {
          if (source?.readyState === EventSource.CLOSED) return;
          api.job(id).then(
            (latest) => {
              if (isFinal(latest.state)) {
                source?.close();
                setJob(latest);
              }
            },
            () => undefined,
          );
        };
      },
      (e: unknown) => (e instanceof ApiError && e.status === 404 ? setMissing(true) : setError(messageOf(e))),
    );
    return () => {
      stopped = true;
      source?.close();
    };
  }, [id]);

  const cancel = async () => {
    setCancelling(true);
    try {
      setJob(await api.cancelJob(id));
    } catch (e) {
      setError(messageOf(e));
    } finally {
      setCancelling(false);
    }
  };

  if (missing) {
    return (
      <section>
        <PageHeading>Job not found</PageHeading>
        <p>
          There is no job <code>{id}</code>; ended jobs are kept for a while only. <a href="/add">Back to Add docs</a>.
        </p>
      </section>
    );
  }
  return (
    <section>
      <p class="breadcrumb">
        <a href="/add">Add docs</a> / job
      </p>
      <PageHeading>{job ? `${titleOf(job)} ${job.libraryId}` : 'Job'}</PageHeading>
      <ErrorMessage message={error} />
      {job ? (
        <JobView job={job} onCancel={() => void cancel()} cancelling={cancelling} />
      ) : (
        <p class="loading">Loading…</p>
      )}
    </section>
  );
}

const titleOf = (job: Job) =>
  ({
    crawl: 'Crawl of',
    'ingest-url': 'URL ingestion into',
    'ingest-git': 'Git ingestion into',
    'ingest-archive': 'Archive ingestion into',
    ingest: 'Ingestion into',
    embed: 'Embedding of',
  })[job.type];

function JobView({ job, onCancel, cancelling }: { job: Job; onCancel: () => void; cancelling: boolean }) {
  const p = job.progress;
  const active = !isFinal(job.state);
  const embedded = embeddedText(job);
  const phases = job.type === 'ingest-archive' ? ARCHIVE_PHASES : PHASES;
  return (
    <>
      <div class="job-status card" aria-live="polite">
        <p class="job-state">
          <span class={`state state-${job.state}`}>{job.state}</span> <span>{phases[p.phase] ?? p.phase}</span>
        </p>
        <label for="job-progress">Progress of this phase</label>
        <progress
          id="job-progress"
          max={Math.max(p.total, 1)}
          value={job.state === 'completed' ? Math.max(p.total, 1) : p.done}
        />
        <dl class="counters">
          {job.type === 'crawl' ? (
            <>
              <div>
                <dt>Pages discovered</dt>
                <dd>{p.pagesDiscovered ?? 0}</dd>
              </div>
              <div>
                <dt>Pages crawled</dt>
                <dd>{p.pagesCrawled ?? 0}</dd>
              </div>
              <div>
                <dt>Pages failed</dt>
                <dd>{p.pagesFailed ?? 0}</dd>
              </div>
              {p.pagesRendered ? (
                <div>
                  <dt>Rendered in Chromium</dt>
                  <dd>{p.pagesRendered}</dd>
                </div>
              ) : null}
              {p.pagesUnchanged ? (
                <div>
                  <dt>Pages unchanged</dt>
                  <dd>{p.pagesUnchanged}</dd>
                </div>
              ) : null}
            </>
          ) : null}
          {job.type === 'ingest-git' || job.type === 'ingest-archive' ? (
            <div>
              <dt>{job.type === 'ingest-git' ? 'Files read' : 'Pages and files read'}</dt>
              <dd>{resultNumber(job, 'filesIngested') ?? 0}</dd>
            </div>
          ) : null}
          <div>
            <dt>Chunks written</dt>
            <dd>{p.chunksIngested ?? resultNumber(job, 'chunksIngested') ?? 0}</dd>
          </div>
          <div>
            <dt>Chunks embedded</dt>
            <dd>{embedded}</dd>
          </div>
        </dl>
        <p class="hint">
          Started {formatDate(job.startedAt ?? job.createdAt)}
          {job.finishedAt ? `, ended ${formatDate(job.finishedAt)}` : ''}
        </p>
      </div>
      {active ? (
        <button type="button" class="danger" onClick={onCancel} disabled={cancelling}>
          {cancelling ? 'Cancelling…' : 'Cancel job'}
        </button>
      ) : null}
      <Outcome job={job} />
      <PageErrors
        heading={job.type === 'ingest-git' || job.type === 'ingest-archive' ? 'Files not read' : 'Page errors'}
        errors={job.state === 'completed' ? (job.result?.errors ?? p.errors) : p.errors}
        failed={p.pagesFailed}
      />
    </>
  );
}

function Outcome({ job }: { job: Job }) {
  if (job.state === 'completed') {
    const vectorized = job.result?.vectorized;
    return (
      <div class="message notice" role="status">
        <p>
          Done: {String(resultNumber(job, 'chunksIngested') ?? 0)} chunks in <code>{job.libraryId}</code>
          {vectorized === false ? ', not embedded yet (open the library to embed them)' : ''}.
        </p>
        <p>
          <a href={`/libraries/${libraryPath(job.libraryId)}`}>Open library {job.libraryId}</a>
        </p>
      </div>
    );
  }
  if (job.state === 'failed') {
    return (
      <p class="message error" role="alert">
        The job failed: {job.error?.error ?? 'unknown error'} ({job.error?.code})
      </p>
    );
  }
  if (job.state === 'cancelled') {
    return (
      <p class="message notice" role="status">
        The job was cancelled; nothing was written to the library.
      </p>
    );
  }
  return null;
}

function PageErrors(props: { heading: string; errors: string[] | undefined; failed: number | undefined }) {
  const { heading, errors, failed } = props;
  const shown = errors ?? [];
  return (
    <section aria-labelledby="page-errors-heading" class="page-errors">
      <h2 id="page-errors-heading">{heading}</h2>
      {shown.length === 0 ? (
        <p>None so far.</p>
      ) : (
        <>
          {failed && failed > shown.length ? (
            <p class="hint">
              The latest {shown.length} of {failed}:
            </p>
          ) : null}
          <ul aria-live="polite">
            {shown.map((line, i) => (
              <li key={`${i}:${line}`}>
                <code>{line}</code>
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

/** Chunks embedded so far: `done` of `total` while indexing or embedding; at the end, what the result says. */
function embeddedText(job: Job): string {
  const p = job.progress;
  if (job.state === 'completed') {
    if (job.type === 'embed') return String(resultNumber(job, 'processed') ?? 0);
    return job.result?.vectorized === true ? String(resultNumber(job, 'chunksIngested') ?? 0) : '0';
  }
  if (p.phase === 'indexing' || p.phase === 'embedding' || p.phase === 'embed') return `${p.done} of ${p.total}`;
  return '0';
}

function resultNumber(job: Job, key: 'chunksIngested' | 'filesIngested' | 'processed'): number | undefined {
  const value = job.result?.[key];
  return typeof value === 'number' ? value : undefined;
}
