import { useEffect, useState } from 'preact/hooks';
import { api, messageOf, type Job } from '../api';
import { ErrorMessage, formatDate, PageHeading } from '../ui';
import { CrawlForm, IngestArchiveForm, IngestGitForm, IngestUrlForm } from './source-forms';

export function AddDocsPage() {
  const [mode, setMode] = useState<'crawl' | 'url' | 'git' | 'archive'>('crawl');
  return (
    <section>
      <PageHeading>Add docs</PageHeading>
      <p>Start a job that builds a library; its progress shows live on the next page.</p>
      <fieldset class="mode">
        <legend>What to add</legend>
        <label class="choice">
          <input type="radio" name="mode" value="crawl" checked={mode === 'crawl'} onChange={() => setMode('crawl')} />{' '}
          Crawl a site
        </label>
        <label class="choice">
          <input type="radio" name="mode" value="url" checked={mode === 'url'} onChange={() => setMode('url')} /> Ingest
          one URL (llms.txt or a page)
        </label>
        <label class="choice">
          <input type="radio" name="mode" value="git" checked={mode === 'git'} onChange={() => setMode('git')} /> Read a
          git repository (Markdown, MDX, reStructuredText)
        </label>
        <label class="choice">
          <input
            type="radio"
            name="mode"
            value="archive"
            checked={mode === 'archive'}
            onChange={() => setMode('archive')}
          />{' '}
          Upload a built site or Markdown files (.zip, .tar.gz)
        </label>
      </fieldset>
      {mode === 'crawl' ? <CrawlForm /> : null}
      {mode === 'url' ? <IngestUrlForm /> : null}
      {mode === 'git' ? <IngestGitForm /> : null}
      {mode === 'archive' ? <IngestArchiveForm /> : null}
      <RecentJobs />
    </section>
  );
}

function RecentJobs() {
  const [jobs, setJobs] = useState<Job[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    api.jobs().then(
      ({ jobs }) => setJobs(jobs),
      (e: unknown) => setError(messageOf(e)),
    );
  }, []);
  return (
    <section aria-labelledby="jobs-heading" class="recent-jobs">
      <h2 id="jobs-heading">Recent jobs</h2>
      <ErrorMessage message={error} />
      {jobs && jobs.length === 0 ? <p>No jobs yet.</p> : null}
      {jobs && jobs.length > 0 ? (
        <div class="table-scroll" tabIndex={0} role="region" aria-label="Recent jobs table">
          <table>
            <thead>
              <tr>
                <th scope="col">Job</th>
                <th scope="col">Library</th>
                <th scope="col">State</th>
                <th scope="col">Started</th>
              </tr>
            </thead>
            <tbody>
              {jobs.map((job) => (
                <tr key={job.id}>
                  <td>
                    <a href={`/jobs/${job.id}`}>
                      {job.type} <span class="visually-hidden">job {job.id.slice(0, 8)}</span>
                    </a>
                  </td>
                  <td>
                    <code>{job.libraryId}</code>
                  </td>
                  <td>
                    <span class={`state state-${job.state}`}>{job.state}</span>
                  </td>
                  <td>{formatDate(job.createdAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  );
}
