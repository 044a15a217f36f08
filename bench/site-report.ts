/**
 * The whole-site benchmark's tables: for each run, its pages/s, the CPU and memory of each process tree and of
 * Redis, its phases and its checks (✓ / ✗); at the end, one markdown table of every run.
 */
import type { KeyGroup } from './redis-watch';
import { isPage, type CrawlRun, type TreeFigures } from './site-crawl';
import {
  compareChunks,
  crawlEndMs,
  crawlRate,
  inFlightAt,
  lastOverFirst,
  mostInWindow,
  pagesDone,
  ratesByStep,
  repeatedIds,
  samplesOfDoneTimes,
} from './site-figures';
import { KILL_ENV, type CancelRun, type KillRun, type MainRun, type PoliteRun, type TwoWorkersRun } from './site-runs';

/** Last-1,000 pages/s over first-1,000 a crawl should keep: it must not slow down as it grows. */
export const STEADY_RATIO = 0.8;

const n = (x: number) => x.toLocaleString('en-US');
const s = (ms: number | undefined) => (ms === undefined ? 'n/a' : (ms / 1000).toFixed(1));
const f = (x: number | undefined, digits = 0) => (x === undefined || Number.isNaN(x) ? 'n/a' : x.toFixed(digits));
const mark = (ok: boolean) => (ok ? '✓' : '✗');
const pad = (cells: string[], widths: number[]) =>
  cells.map((c, i) => (i === 0 ? c.padEnd(widths[0]!) : c.padStart(widths[i]!))).join(' ');

/** One row of the markdown summary. */
export interface SummaryRow {
  site: string;
  run: string;
  outcome: string;
  pages: string;
  pagesPerSecond: string;
  lastOverFirst: string;
  workerCpu: string;
  workerPeak: string;
  apiPeak: string;
  redis: string;
  notes: string;
}

/** The run's outcome line: the job's state, and why when it did not complete. */
function printOutcome(title: string, crawl: CrawlRun): void {
  const { crawled, failed } = pagesDone(crawl);
  const problem = crawl.problem ? ` (${crawl.problem})` : '';
  console.log(`\n${title}: ${crawl.outcome}${problem}; ${n(crawled)} pages crawled, ${n(failed)} failed`);
}

/** The largest kinds of keys: `pattern` MB (keys). */
const groupsLine = (groups: KeyGroup[]) =>
  groups
    .slice(0, 4)
    .map((g) => `${g.pattern} ${f(g.mb, 1)} MB (${n(g.keys)})`)
    .join(', ');

/** Worker trees first, then the API, then Redis: CPU ms a page and peak memory, in the crawl phase and the whole job. */
function printProcesses(crawl: CrawlRun): void {
  const pages = Math.max(pagesDone(crawl).done, 1);
  const widths = [36, 11, 9, 10, 9, 12, 11, 9];
  console.log(
    pad(
      [
        'process tree (with its Chromium)',
        'CPU ms/page',
        '(crawl)',
        'peak RSS',
        '(crawl)',
        'cgroup peak',
        '(crawl)',
        'peak PSS',
      ],
      widths,
    ),
  );
  const labels = Object.keys(crawl.trees).sort((a, b) => Number(a === 'API') - Number(b === 'API'));
  for (const label of labels) {
    const { whole, crawl: atCrawlEnd }: TreeFigures = crawl.trees[label]!;
    const cpu = (peaks = whole) => f((1000 * peaks.cpuS) / pages, 1);
    console.log(
      pad(
        [
          label,
          cpu(),
          cpu(atCrawlEnd),
          f(whole.rss),
          f(atCrawlEnd?.rss),
          f(whole.cgroup),
          f(atCrawlEnd?.cgroup),
          f(whole.pss),
        ],
        widths,
      ),
    );
  }
  const redis = crawl.redis;
  console.log(
    pad(
      [
        'redis-server',
        f((1000 * (redis?.cpuS ?? Number.NaN)) / pages, 1),
        f((1000 * (crawl.redisCrawlCpuS ?? Number.NaN)) / pages, 1),
      ],
      widths,
    ),
  );
  if (redis)
    console.log(
      `Redis used_memory: ${f(redis.beforeMb, 1)} MB before, peak +${f(redis.peakMb - redis.beforeMb, 1)} MB (${f(redis.peakAtS)} s after the request), +${f(redis.afterMb - redis.beforeMb, 1)} MB left when the job had ended (${n(redis.keysLeft)} keys under the run's prefix)`,
    );
  if (crawl.redisGroupsAtCrawlEnd)
    console.log(`  its keys at the end of crawling: ${groupsLine(crawl.redisGroupsAtCrawlEnd)}`);
  if (redis && redis.keysLeft > 0) console.log(`  its keys left: ${groupsLine(redis.groupsLeft)}`);
  if (Object.values(crawl.trees).some((t) => t.cgroupMovesCharges === false))
    console.log(
      `  cgroup peak: what each tree allocated after joining its cgroup at the crawl's start (this kernel does not move the memory a process already held), Chromium's all`,
    );
}

function printPhases(crawl: CrawlRun): void {
  const { committing, indexing, end } = crawl.phaseAt;
  const r = crawl.result;
  console.log(
    `phases: crawling ${s(crawlEndMs(crawl))} s, commit ${s(committing === undefined ? undefined : (indexing ?? end ?? 0) - committing)} s, indexing and backup ${s(indexing === undefined || end === undefined ? undefined : end - indexing)} s; pages discovered ${n(r?.pagesDiscovered ?? crawl.lastProgress?.pagesDiscovered ?? 0)}, rendered ${n(r?.pagesRendered ?? crawl.lastProgress?.pagesRendered ?? 0)}; chunks written ${n(r?.chunksIngested ?? 0)}; errors ${n(r?.errors.length ?? 0)}`,
  );
  for (const error of r?.errors.slice(0, 3) ?? []) console.log(`  ${error.slice(0, 160)}`);
}

/** Up to 5 of the pages fetched twice, each with when it was fetched (s from the crawl request, or from `around`). */
function printTwice(crawl: CrawlRun, twice: string[], around?: number): void {
  const zero = around ?? crawl.postedAt;
  for (const target of twice.slice(0, 5)) {
    const times = crawl.requests.filter((r) => r.client === 'http' && r.target === target).map((r) => s(r.at - zero));
    console.log(`  ${target} at ${times.join(', ')} s${around === undefined ? '' : ' from the kill'}`);
  }
}

function summaryOf(site: string, run: string, crawl: CrawlRun, step: number, notes: string): SummaryRow {
  const worker = Object.entries(crawl.trees).filter(([label]) => label !== 'API');
  const cpuS = worker.reduce((sum, [, t]) => sum + t.whole.cpuS, 0);
  const peak = Math.max(...worker.map(([, t]) => t.whole.cgroup ?? t.whole.rss));
  const redis = crawl.redis;
  return {
    site,
    run,
    outcome: crawl.outcome,
    pages: n(pagesDone(crawl).done),
    pagesPerSecond: f(crawlRate(crawl), 1),
    lastOverFirst: f(lastOverFirst(crawl.timeline, step), 2),
    workerCpu: f((1000 * cpuS) / Math.max(pagesDone(crawl).done, 1), 1),
    workerPeak: f(peak),
    apiPeak: f(crawl.trees.API?.whole.rss),
    redis: redis ? `+${f(redis.peakMb - redis.beforeMb)} / +${f(redis.afterMb - redis.beforeMb)}` : 'n/a',
    notes,
  };
}

export function printMain(site: string, main: MainRun, step: number): SummaryRow {
  const { crawl, baseline } = main;
  printOutcome(`${site}, main run (npm start, renderer auto, concurrency 4)`, crawl);
  const bareSamples = baseline?.doneAt ? samplesOfDoneTimes(baseline.doneAt) : [];
  const ours = ratesByStep(crawl.timeline, step);
  const bare = ratesByStep(bareSamples, step);
  console.log(
    `pages/s by ${n(step)} pages (Docshelf: its job's pagesCrawled + pagesFailed from the event stream; bare loop: Node fetch + cheerio.load of the ${n((baseline?.pages ?? 0) + (baseline?.failed ?? 0))} URLs Docshelf's HTTP client fetched, redirect stubs' targets included, concurrency 4, each page's end)`,
  );
  const widths = [16, 9, 10, 8];
  console.log(pad(['pages', 'Docshelf', 'bare loop', 'x bare'], widths));
  // The bare loop's list may be a few URLs longer (the targets of redirect stubs): its rows follow Docshelf's.
  for (let i = 0; i < (ours.length > 0 ? ours : bare).length; i++) {
    const [a, b] = [ours[i], bare[i]];
    const range = `${n((a ?? b)!.from + 1)}-${n((a ?? b)!.to)}`;
    console.log(
      pad(
        [range, f(a?.pagesPerSecond, 1), f(b?.pagesPerSecond, 1), f(a && b && a.pagesPerSecond / b.pagesPerSecond, 2)],
        widths,
      ),
    );
  }
  const bareRate = baseline ? (baseline.pages + baseline.failed) / (baseline.ms / 1000) : Number.NaN;
  console.log(
    pad(['all (crawling)', f(crawlRate(crawl), 1), f(bareRate, 1), f(crawlRate(crawl) / bareRate, 2)], widths),
  );
  const ratio = lastOverFirst(crawl.timeline, step);
  const bareRatio = lastOverFirst(bareSamples, step);
  const steady = ratio / bareRatio;
  console.log(
    `last ${n(step)} / first ${n(step)}: Docshelf ${f(ratio, 2)} ${mark(ratio >= STEADY_RATIO)} (target ≥ ${STEADY_RATIO}), bare loop ${f(bareRatio, 2)}; Docshelf's over the bare loop's ${f(steady, 2)}`,
  );
  console.log(
    `  (the bare loop takes the pages in the order Docshelf asked for them, so its ratio is that of the pages themselves: rust-doc's redirect stubs of a few hundred bytes crowd some steps)`,
  );
  // What Docshelf spends a page beyond the bare loop's fetch and parse: the part that would grow with the crawl.
  const extraMs = (i: number) =>
    ours[i] && bare[i] ? 1000 / ours[i].pagesPerSecond - 1000 / bare[i].pagesPerSecond : Number.NaN;
  const [firstExtra, lastExtra] = [extraMs(0), extraMs(Math.min(ours.length, bare.length) - 1)];
  console.log(
    `time a page beyond the bare loop's (4 at once): first ${n(step)} ${f(firstExtra, 1)} ms, last ${n(step)} ${f(lastExtra, 1)} ms ${mark(lastExtra * STEADY_RATIO <= firstExtra)} (target: the last at most the first / ${STEADY_RATIO})`,
  );
  const { stubTargets, others } = main.twice;
  console.log(
    `pages fetched twice: ${n(stubTargets.length + others.length)} (${n(stubTargets.length)} of them where a redirect stub crawled too leads: Docshelf follows the stub's meta refresh over HTTP)`,
  );
  printTwice(crawl, others);
  printProcesses(crawl);
  if (baseline)
    console.log(
      `bare loop (one process): CPU ${f((1000 * baseline.cpuS) / Math.max(baseline.pages + baseline.failed, 1), 1)} ms/page, peak RSS ${f(baseline.peakRssMb)} MB, cgroup peak ${f(baseline.cgroupPeakMb)} MB; ${n(baseline.failed)} of its pages failed`,
    );
  else console.log(`bare loop failed: ${main.baselineProblem}`);
  printPhases(crawl);
  return summaryOf(
    site,
    'main',
    crawl,
    step,
    `x bare ${f(crawlRate(crawl) / bareRate, 2)}; last/first over the bare loop's ${f(steady, 2)}`,
  );
}

export function printKill(site: string, kill: KillRun, main: MainRun | undefined, step: number): SummaryRow {
  const { crawl } = kill;
  const listed = kill.pagesListed === undefined ? '' : `, the ${n(kill.pagesListed)} pages the main run stored, listed`;
  printOutcome(
    `${site}, worker kill (API and worker as separate processes, lock ${s(Number(KILL_ENV.WORKER_LOCK_DURATION_MS))} s, stall check ${s(Number(KILL_ENV.WORKER_STALLED_INTERVAL_MS))} s${listed})`,
    crawl,
  );
  const at = (t: number | undefined) => (t === undefined ? undefined : t - crawl.postedAt);
  const killedT = at(kill.killedAt);
  if (killedT === undefined)
    console.log(`the worker was never killed (the crawl did not reach ${n(kill.killAt)} pages)`);
  else {
    const doneAtKill = crawl.timeline.filter((p) => p.t <= killedT).at(-1)?.done ?? 0;
    const resumed = crawl.timeline.find((p) => p.t > killedT && p.done > doneAtKill)?.t;
    console.log(
      `SIGKILL to the worker's tree (${kill.killedProcesses === 1 ? 'the worker alone' : `${kill.killedProcesses} processes`}) at ${n(doneAtKill)} pages (${s(killedT)} s); a new worker ready ${s(at(kill.replacedAt)! - killedT)} s later; pages counted again ${s(resumed === undefined ? undefined : resumed - killedT)} s after the kill`,
    );
  }
  const { crawled, failed } = pagesDone(crawl);
  const handedOut = crawl.crawlProgress?.total ?? 0;
  const live = crawl.lastProgress?.pagesCrawled ?? 0;
  console.log(
    `pages handed out ${n(handedOut)}; pagesCrawled ${n(crawled)} + pagesFailed ${n(failed)} = ${n(crawled + failed)} ${mark(crawled + failed === handedOut)}; the live pagesCrawled counter ${n(live)} ${mark(live === crawled)}`,
  );
  const { stubTargets, others } = kill.twice;
  // The dead worker's requests may be logged a little after the kill (one event loop serves the site and the
  // stream); none can come from the replacement before it is ready.
  const boundary = kill.replacedAt ?? kill.killedAt;
  const inFlight = boundary === undefined ? [] : inFlightAt(crawl.requests, others, boundary);
  console.log(
    `pages the fixture served twice: ${n(stubTargets.length + others.length)}: ${n(stubTargets.length)} where a redirect stub crawled too leads (as in any run), ${n(others.length)} others, ${n(inFlight.length)} of them fetched by the killed worker and again by its replacement`,
  );
  printTwice(crawl, others, kill.killedAt);
  let notes = `twice ${others.length} + ${stubTargets.length} stub targets`;
  if (kill.chunks) {
    const repeated = repeatedIds(kill.chunks);
    console.log(`chunk ids: ${n(kill.chunks.length)}, ${n(repeated)} appear more than once ${mark(repeated === 0)}`);
    notes += `, repeated ids ${repeated}`;
    if (main?.chunks) {
      const c = compareChunks(main.chunks, kill.chunks);
      console.log(
        `chunk texts against the main run (${n(main.chunks.length)} chunks): ${n(c.onlyA + c.onlyB)} differ ${mark(c.onlyA + c.onlyB === 0)} (${n(c.onlyA)} only in the main run, ${n(c.onlyB)} only here), ${n(c.differOnSharedPages)} of them on pages both runs crawled`,
      );
      if (c.pagesOnlyA + c.pagesOnlyB > 0)
        console.log(
          `  the two runs crawled different pages (${n(c.pagesOnlyA)} only in the main run, ${n(c.pagesOnlyB)} only here): the page budget goes to links first come, first served, so which pages make it depends on the order pages finish in; the lines dropped as repeated chrome depend on the pages crawled`,
        );
      notes += `, chunks differing ${c.onlyA + c.onlyB}`;
    } else console.log('chunk texts: no completed main run on this site to compare with');
  }
  printProcesses(crawl);
  printPhases(crawl);
  return summaryOf(site, 'worker kill', crawl, step, notes);
}

export function printCancel(site: string, cancel: CancelRun, step: number): SummaryRow {
  const { crawl } = cancel;
  printOutcome(`${site}, cancel at ${n(cancel.cancelAt)} pages crawled`, crawl);
  if (cancel.sentAt === undefined) console.log('no cancel was sent: the crawl ended first');
  else {
    const endedAfter =
      crawl.phaseAt.end === undefined ? undefined : crawl.phaseAt.end - (cancel.sentAt - crawl.postedAt);
    console.log(
      `DELETE /api/jobs/:id answered ${cancel.status} (${cancel.answeredState}) in ${f(cancel.answeredAt! - cancel.sentAt)} ms; the job's final event ${s(endedAfter)} s after the request; state ${crawl.outcome} ${mark(crawl.outcome === 'cancelled')}; library ${cancel.libraryStatus === 404 ? 'absent' : `answered ${cancel.libraryStatus}`} ${mark(cancel.libraryStatus === 404)}`,
    );
    const last = cancel.pagesAfter.at(-1);
    console.log(
      `pages requested after the cancel was answered: ${n(cancel.pagesAfter.length)} ${mark(cancel.pagesAfter.length === 0)}${last ? ` (the last ${f(last.at - cancel.answeredAt!)} ms after)` : ''}`,
    );
  }
  printProcesses(crawl);
  const cancelMs = cancel.sentAt === undefined ? 'n/a' : `${f(cancel.answeredAt! - cancel.sentAt)} ms`;
  return summaryOf(site, 'cancel', crawl, step, `cancel ${cancelMs}, pages after ${cancel.pagesAfter.length}`);
}

export function printTwoWorkers(site: string, two: TwoWorkersRun, main: MainRun | undefined, step: number): SummaryRow {
  const { crawl } = two;
  printOutcome(`${site}, two crawl worker processes (WORKER_QUEUES=crawl, concurrency 4 each)`, crawl);
  const total = Object.values(two.shares).reduce((sum, w) => sum + w.fetched + w.failed, 0);
  const shares = Object.entries(two.shares).map(
    ([label, w]) => `${label} ${n(w.fetched + w.failed)} (${f((100 * (w.fetched + w.failed)) / Math.max(total, 1))}%)`,
  );
  const { stubTargets, others } = two.twice;
  console.log(
    `${f(crawlRate(crawl), 1)} pages/s (main run ${main ? f(crawlRate(main.crawl), 1) : 'n/a'}); share of pages (/metrics): ${shares.join(', ')}`,
  );
  console.log(
    `pages fetched twice: ${n(others.length)} ${mark(others.length === 0)} (besides ${n(stubTargets.length)} where a redirect stub crawled too leads, as in a single worker's crawl)`,
  );
  printTwice(crawl, others);
  printProcesses(crawl);
  return summaryOf(site, 'two workers', crawl, step, `shares ${shares.join(', ')}; twice ${others.length}`);
}

export function printPolite(site: string, polite: PoliteRun, step: number): SummaryRow {
  const { crawl, hops } = polite;
  printOutcome(`${site}, two crawl workers with CRAWL_HOST_PAGES_PER_SECOND=${polite.pagesPerSecond}`, crawl);
  const pages = crawl.requests.filter((r) => r.client !== 'other' && isPage(r));
  const most = mostInWindow(
    pages.map((r) => r.at),
    1000,
  );
  const mostWithoutHops = mostInWindow(
    pages.filter((r) => !hops.has(r)).map((r) => r.at),
    1000,
  );
  const all = mostInWindow(
    crawl.requests.map((r) => r.at),
    1000,
  );
  console.log(
    `most page requests in any 1 s: ${most} ${mark(most <= polite.pagesPerSecond)} (limit ${polite.pagesPerSecond}); all requests (robots.txt and Chromium's subresources too): ${all}; ${f(crawlRate(crawl), 1)} pages/s`,
  );
  console.log(
    `  of the ${n(pages.length)} page requests, ${n(hops.size)} followed a redirect stub's meta refresh in the same page job (a stub's target within 1 s of it); without them, the most in any 1 s: ${mostWithoutHops} ${mark(mostWithoutHops <= polite.pagesPerSecond)}`,
  );
  // Turns are spaced at the throttle; requests reach the server a little later, each by its own delay.
  const longer = [5, 10].map(
    (seconds) =>
      `${seconds} s: ${mostInWindow(
        pages.map((r) => r.at),
        seconds * 1000,
      )}`,
  );
  console.log(`  the most page requests in longer windows (limit x seconds): ${longer.join(', ')}`);
  return summaryOf(
    site,
    `polite ${polite.pagesPerSecond}/s`,
    crawl,
    step,
    `most in 1 s ${most} (${mostWithoutHops} without refresh hops)`,
  );
}

export function printSummary(rows: SummaryRow[]): void {
  console.log(
    '\n| site | run | outcome | pages | pages/s (crawling) | last/first | worker CPU ms/page | worker peak MB | API peak RSS MB | Redis peak / left MB | notes |',
  );
  console.log('|---|---|---|--:|--:|--:|--:|--:|--:|--:|---|');
  for (const r of rows)
    console.log(
      `| ${r.site} | ${r.run} | ${r.outcome} | ${r.pages} | ${r.pagesPerSecond} | ${r.lastOverFirst} | ${r.workerCpu} | ${r.workerPeak} | ${r.apiPeak} | ${r.redis} | ${r.notes} |`,
    );
  console.log(
    'worker peak: the cgroup peak where a cgroup could be made (else peak summed RSS), of the largest worker tree',
  );
}
