/**
 * A crawled or git library's refresh on its page: its schedule, a refresh now, and a menu that sets the schedule.
 */
import { useState } from 'preact/hooks';
import { api, messageOf, type Library, type RefreshSchedule } from '../api';
import { everyText, REFRESH_CHOICES } from '../refresh-every';
import { navigate } from '../router';
import { ErrorMessage, formatDate } from '../ui';

/** The menu's value for no schedule. */
const OFF = 'off';

export function LibraryRefresh({ library }: { library: Library }) {
  const [schedule, setSchedule] = useState<RefreshSchedule | null>(library.refresh ?? null);
  const [every, setEvery] = useState(library.refresh?.every ?? OFF);
  const [busy, setBusy] = useState<'refresh' | 'schedule' | null>(null);
  const [error, setError] = useState<string | null>(null);
  const fromGit = library.sourceType === 'git';

  const refreshNow = async () => {
    setBusy('refresh');
    setError(null);
    try {
      const { jobId } = await api.refresh(library.id);
      navigate(`/jobs/${jobId}`);
    } catch (e) {
      setError(messageOf(e));
      setBusy(null);
    }
  };
  const saveSchedule = async (event: Event) => {
    event.preventDefault();
    setBusy('schedule');
    setError(null);
    try {
      const { refresh } = await api.setRefreshSchedule(library.id, every === OFF ? null : every);
      setSchedule(refresh);
      setEvery(refresh?.every ?? OFF);
    } catch (e) {
      setError(messageOf(e));
    } finally {
      setBusy(null);
    }
  };
  // A schedule set through the API may be one the menu does not offer ("3d"): it is offered too, as it is.
  const choices: string[] = [...REFRESH_CHOICES];
  if (schedule && !choices.includes(schedule.every)) choices.push(schedule.every);

  return (
    <section class="refresh card" aria-labelledby="refresh-heading">
      <h2 id="refresh-heading">Refresh</h2>
      <div aria-live="polite">
        {schedule ? (
          <dl class="schedule">
            <dt>{fromGit ? 'Read again' : 'Crawled again'}</dt>
            <dd>{everyText(schedule.every)}</dd>
            <dt>Last refreshed</dt>
            <dd>
              <DateTime iso={schedule.lastRefreshedAt} />
            </dd>
            <dt>Next refresh</dt>
            <dd>
              <DateTime iso={schedule.nextRefreshAt} absent="–" />
            </dd>
          </dl>
        ) : (
          <p>Not refreshed on a schedule.</p>
        )}
      </div>
      <p class="hint">
        {fromGit
          ? 'A refresh looks at the repository’s branch or tag again and reads a new commit in; while it has not moved, nothing is fetched.'
          : 'A refresh crawls the library again with the settings of its last crawl; unchanged pages keep their chunks and vectors.'}
      </p>
      <button type="button" onClick={() => void refreshNow()} disabled={busy !== null}>
        {busy === 'refresh' ? 'Starting…' : 'Refresh now'}
      </button>
      <form class="inline-form" onSubmit={(event) => void saveSchedule(event)}>
        <label for="refresh-every">Schedule</label>
        <div class="inline-row">
          <select id="refresh-every" value={every} onChange={(e) => setEvery(e.currentTarget.value)}>
            <option value={OFF}>off</option>
            {choices.map((choice) => (
              <option key={choice} value={choice}>
                {everyText(choice)}
              </option>
            ))}
          </select>
          <button type="submit" class="secondary" disabled={busy !== null}>
            {busy === 'schedule' ? 'Saving…' : 'Set schedule'}
          </button>
        </div>
      </form>
      <ErrorMessage message={error} />
    </section>
  );
}

/** A date in the page's style, its ISO value kept for machines. */
function DateTime({ iso, absent = 'never' }: { iso: string | null; absent?: string }) {
  return iso ? <time dateTime={iso}>{formatDate(iso)}</time> : <>{absent}</>;
}
