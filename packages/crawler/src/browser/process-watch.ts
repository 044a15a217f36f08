import fs from 'node:fs';

export interface ProcessWatchOptions {
  /** A renderer process past this RSS is stopped (SIGKILL): its page crashes and fails alone. */
  pageMaxMb: number;
  /** Above this summed RSS the browser's PSS (shared pages counted once) is worked out and reported. */
  reportAboveMb?: number;
  intervalMs?: number;
  onRendererStopped(marker: string, pid: number, rssMb: number): void;
  /** The summed PSS of one browser's processes, when their summed RSS passed `reportAboveMb`. */
  onBrowserSize(marker: string, pssMb: number): void;
}

const PAGE_SIZE = 4096;
const RECENT_MS = 10_000;
/** PSS means walking every mapping of every process in the kernel: worked out at most this often. */
const PSS_EVERY_MS = 5_000;

/**
 * `statm`, `cmdline` and `children` are a few bytes the kernel writes on demand: read synchronously, as a promise and a
 * file handle per read cost the worker far more than the read itself (about 20 ms of CPU per crawled page, measured).
 */
function readSmall(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/** Direct children of `pid`, from every thread's `children` list (Linux ≥ 3.5). */
function childrenOf(pid: number): number[] {
  let tasks: string[];
  try {
    tasks = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  return tasks.flatMap((tid) => readSmall(`/proc/${pid}/task/${tid}/children`).split(' ').filter(Boolean).map(Number));
}

function rssMb(pid: number): number {
  const statm = readSmall(`/proc/${pid}/statm`);
  return statm ? (Number(statm.split(' ')[1]) * PAGE_SIZE) / 2 ** 20 : 0;
}

/** Proportional set size: what the process adds to the machine's memory, shared pages split between their users. */
async function pssMb(pid: number): Promise<number> {
  const rollup = await fs.promises.readFile(`/proc/${pid}/smaps_rollup`, 'utf8').catch(() => '');
  const match = /^Pss:\s+(\d+) kB/m.exec(rollup);
  return match ? Number(match[1]) / 1024 : rssMb(pid);
}

/** The browser's process tree is walked again every this many looks; in between only the known processes are read. */
const REDISCOVER_EVERY = 4;

/**
 * Looks at the browsers' process trees in /proc (Linux; elsewhere it does nothing), a few bytes per process at a time:
 * stops a renderer that passes the page limit and reports a browser's total PSS once its RSS is large, so the pool
 * can recycle it. A browser is found among this process's children by a marker switch in its command line.
 */

export class ProcessWatch {
  private readonly markers = new Map<string, number | undefined>();
  /** Each browser's processes as last walked (every thread's children list of every process: hundreds of reads). */
  private readonly trees = new Map<string, number[]>();
  private looks = 0;
  /** When each browser's PSS was last worked out. */
  private readonly lastPss = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private looking = false;
  private lastStop = 0;
  private readonly enabled =
    process.platform === 'linux' && fs.existsSync(`/proc/${process.pid}/task/${process.pid}/children`);

  constructor(private readonly options: ProcessWatchOptions) {}

  track(marker: string): void {
    this.markers.set(marker, undefined);
    if (this.enabled && !this.timer) {
      this.timer = setInterval(() => void this.look(), this.options.intervalMs ?? 500);
      this.timer.unref();
    }
  }

  untrack(marker: string): void {
    this.markers.delete(marker);
    this.trees.delete(marker);
    this.lastPss.delete(marker);
    if (this.markers.size === 0) this.stop();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Whether a renderer was stopped for its memory within the last few seconds. */
  stoppedRecently(): boolean {
    return Date.now() - this.lastStop < RECENT_MS;
  }

  private async look(): Promise<void> {
    if (this.looking) return;
    this.looking = true;
    const rediscover = this.looks++ % REDISCOVER_EVERY === 0;
    try {
      for (const [marker, known] of this.markers) {
        const root = known ?? this.findRoot(marker);
        if (root === undefined) continue;
        this.markers.set(marker, root);
        let tree = rediscover ? undefined : this.trees.get(marker);
        if (!tree) {
          tree = [root];
          for (let i = 0; i < tree.length; i++) tree.push(...childrenOf(tree[i]!));
          this.trees.set(marker, tree);
        }
        const sizes = tree.map(rssMb);
        for (const [i, mb] of sizes.entries()) {
          if (mb <= this.options.pageMaxMb || !readSmall(`/proc/${tree[i]}/cmdline`).includes('--type=renderer'))
            continue;
          try {
            process.kill(tree[i]!, 'SIGKILL');
            this.lastStop = Date.now();
            this.options.onRendererStopped(marker, tree[i]!, mb);
          } catch {
            /* already gone */
          }
        }
        const rssTotal = sizes.reduce((a, b) => a + b, 0);
        if (
          rssTotal > (this.options.reportAboveMb ?? Infinity) &&
          Date.now() - (this.lastPss.get(marker) ?? 0) >= PSS_EVERY_MS
        ) {
          this.lastPss.set(marker, Date.now());
          const pss = await Promise.all(tree.map(pssMb));
          this.options.onBrowserSize(
            marker,
            pss.reduce((a, b) => a + b, 0),
          );
        }
      }
    } finally {
      this.looking = false;
    }
  }

  private findRoot(marker: string): number | undefined {
    return childrenOf(process.pid).find((pid) => readSmall(`/proc/${pid}/cmdline`).includes(marker));
  }
}
