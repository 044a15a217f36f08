/**
 * The memory and CPU of a process tree (a process and its descendants, e.g. a worker and its Chromium), read from
 * /proc by the benchmarks: summed RSS, PSS, CPU clock ticks, and the peaks of a memory cgroup of its own (see
 * memory-cgroup.ts) where one can be made.
 */
import fs from 'node:fs';
import { openMemoryCgroup, type MemoryCgroup } from './memory-cgroup';

const PAGE_SIZE = 4096;

export function processTable(): Map<number, number[]> {
  const children = new Map<number, number[]>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      /* gone */
    }
  }
  return children;
}

export function treeOf(root: number, children = processTable()): number[] {
  const all = [root];
  for (let i = 0; i < all.length; i++) all.push(...(children.get(all[i]!) ?? []));
  return all;
}

/** Summed RSS (shared pages counted in every process) and PSS (shared pages split between their users), in MB. */
export function memoryMb(pids: number[]): { rss: number; pss: number } {
  let rssPages = 0;
  let pssKb = 0;
  for (const pid of pids) {
    try {
      rssPages += Number(fs.readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ')[1]);
      pssKb += Number(/^Pss:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? 0);
    } catch {
      /* gone */
    }
  }
  return { rss: (rssPages * PAGE_SIZE) / 2 ** 20, pss: pssKb / 1024 };
}

export interface Peaks {
  rss: number;
  pss: number;
  cgroup?: number;
  workingSet?: number;
  /** CPU seconds (user + system) the tree used while sampled (a process's last 250 ms before it exits are missed). */
  cpuS: number;
  /** With the breakdown option: the cgroup's memory.stat and the tree's memory by kind of process at the sampled peak. */
  atPeak?: { usageMb: number; stat: Record<string, number>; processes: Record<string, Kind> };
  /** With the breakdown option: CPU seconds by kind of process. */
  cpuByKind?: CpuByKind;
}

export interface Kind {
  count: number;
  rssMb: number;
  pssMb: number;
  anonMb: number;
}

/** Chromium's processes by their `--type`, Node's by the app or script they run, others by their program's name. */
export function kindOf(cmdline: string): string {
  const [program = '', ...args] = cmdline.split('\0');
  // Chromium starts some of its helpers through /proc/self/exe; they carry a --type all the same.
  if (program.includes('chromium') || (program === '/proc/self/exe' && cmdline.includes('--type='))) {
    const type = /--type=([\w-]+)/.exec(cmdline)?.[1];
    const subType = type === 'utility' ? ` ${/--utility-sub-type=([\w.]+)/.exec(cmdline)?.[1] ?? ''}` : '';
    return `chromium ${type ?? 'browser'}${subType}`;
  }
  const name = program.split('/').pop()!;
  if (name !== 'node') return name;
  const app = /apps\/(\w+)\//.exec(cmdline)?.[1];
  return app
    ? `node ${app}`
    : `node ${
        args
          .find((a) => !a.startsWith('-'))
          ?.split('/')
          .pop() ?? ''
      }`.trim();
}

/** The tree's memory by kind of process (Node, Chromium's browser, renderer, GPU, utility...), from /proc. */
export function breakdown(pids: number[]): Record<string, Kind> {
  const kinds: Record<string, Kind> = {};
  for (const pid of pids) {
    try {
      const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      const rollup = fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
      const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(rollup)?.[1] ?? 0) / 1024;
      const kind = kindOf(cmdline);
      const k = (kinds[kind] ??= { count: 0, rssMb: 0, pssMb: 0, anonMb: 0 });
      k.count += 1;
      k.rssMb += kb('Rss');
      k.pssMb += kb('Pss');
      k.anonMb += kb('Anonymous');
    } catch {
      /* gone */
    }
  }
  return kinds;
}

export function printBreakdown(label: string, atPeak: NonNullable<Peaks['atPeak']>): void {
  const mb = (name: string) => ((atPeak.stat[name] ?? 0) / 2 ** 20).toFixed(0);
  console.log(
    `${label} at the sampled peak ${atPeak.usageMb.toFixed(0)} MB: rss ${mb('total_rss')} cache ${mb('total_cache')} (shmem ${mb('total_shmem')}, mapped ${mb('total_mapped_file')}, active ${mb('total_active_file')}, inactive ${mb('total_inactive_file')})`,
  );
  for (const [kind, k] of Object.entries(atPeak.processes).sort((a, b) => b[1].pssMb - a[1].pssMb))
    console.log(
      `  ${kind.padEnd(40)} x${k.count}  PSS ${k.pssMb.toFixed(0).padStart(5)}  RSS ${k.rssMb.toFixed(0).padStart(5)}  anon ${k.anonMb.toFixed(0).padStart(5)}`,
    );
}

export const CLOCK_TICKS_PER_S = 100;

/** User + system clock ticks of a /proc stat file (a process's counts the threads that have ended). */
export function ticksOf(statFile: string): number {
  const stat = fs.readFileSync(statFile, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

/** CPU time so far of each process of a tree, in clock ticks. */
export function cpuTicks(pids: number[]): Map<number, number> {
  const ticks = new Map<number, number>();
  for (const pid of pids) {
    try {
      ticks.set(pid, ticksOf(`/proc/${pid}/stat`));
    } catch {
      /* gone */
    }
  }
  return ticks;
}

/** CPU seconds by kind of process; a Node process's main thread apart from its other threads (extraction, GC, I/O). */
export type CpuByKind = Record<string, number>;

export function printCpuByKind(label: string, cpu: CpuByKind, pages: number): void {
  const total = Object.entries(cpu).reduce((sum, [kind, s]) => (kind.includes('outside') ? sum : sum + s), 0);
  console.log(`${label}: CPU ms a page by process (${((1000 * total) / Math.max(pages, 1)).toFixed(0)} in the tree)`);
  for (const [kind, s] of Object.entries(cpu).sort((a, b) => b[1] - a[1]))
    if (s > 0) console.log(`  ${kind.padEnd(52)} ${((1000 * s) / Math.max(pages, 1)).toFixed(1).padStart(7)}`);
}

export interface PeakSampler {
  /** The peaks and CPU seconds so far, without stopping. */
  snapshot(): Peaks;
  /** Stops sampling and returns the peaks (with the cgroup's kernel peak, and the breakdown when asked for). */
  stop(): Peaks;
}

/**
 * Samples the memory of a process tree every 250 ms until stopped (and its cgroup's, when it has one). `breakdown`
 * also records what the tree held at its cgroup's highest sample and the CPU of each kind of process.
 */
export function samplePeakMemory(
  root: () => number | undefined,
  cgroup?: MemoryCgroup,
  { breakdown: withBreakdown = false }: { breakdown?: boolean } = {},
): PeakSampler {
  const peak: Peaks = { rss: 0, pss: 0, cpuS: 0, ...(cgroup ? { workingSet: 0 } : {}) };
  // Per process: CPU ticks when first seen (already used before the measurement when it is the root) and last seen.
  const first = new Map<number, number>();
  const last = new Map<number, number>();
  // With the breakdown: each process's kind, and for Node processes their main thread's ticks.
  const kinds = new Map<number, string>();
  const firstMain = new Map<number, number>();
  const lastMain = new Map<number, number>();
  let usagePeak = 0;
  const sample = () => {
    if (cgroup) peak.workingSet = Math.max(peak.workingSet!, cgroup.workingSetMb());
    const pid = root();
    if (!pid) return;
    const tree = treeOf(pid);
    if (cgroup && withBreakdown) {
      const usage = cgroup.usageMb();
      if (usage > usagePeak) {
        usagePeak = usage;
        peak.atPeak = { usageMb: usage, stat: cgroup.stat(), processes: breakdown(tree) };
      }
    }
    const now = memoryMb(tree);
    peak.rss = Math.max(peak.rss, now.rss);
    peak.pss = Math.max(peak.pss, now.pss);
    for (const [p, ticks] of cpuTicks(tree)) {
      const before = !first.has(p) && p === pid && first.size === 0;
      if (!first.has(p)) first.set(p, before ? ticks : 0);
      last.set(p, ticks);
      if (!withBreakdown) continue;
      try {
        // Chromium starts through a shell script that then runs the browser in its place: known once it has.
        if (!kinds.has(p) || kinds.get(p) === 'sh') kinds.set(p, kindOf(fs.readFileSync(`/proc/${p}/cmdline`, 'utf8')));
        if (!kinds.get(p)!.startsWith('node')) continue;
        const main = ticksOf(`/proc/${p}/task/${p}/stat`);
        if (!firstMain.has(p)) firstMain.set(p, before ? main : 0);
        lastMain.set(p, main);
      } catch {
        /* gone */
      }
    }
  };
  const cpuS = () => [...last].reduce((sum, [p, ticks]) => sum + ticks - (first.get(p) ?? 0), 0) / CLOCK_TICKS_PER_S;
  sample();
  const timer = setInterval(sample, 250);
  return {
    snapshot: () => ({ ...peak, cpuS: cpuS(), ...(cgroup ? { cgroup: cgroup.peakMb() } : {}) }),
    stop() {
      clearInterval(timer);
      sample();
      if (cgroup) peak.cgroup = cgroup.peakMb();
      peak.cpuS = cpuS();
      if (withBreakdown) {
        peak.cpuByKind = {};
        for (const [p, ticks] of last) {
          const kind = kinds.get(p) ?? 'gone before it was seen';
          const s = (ticks - (first.get(p) ?? 0)) / CLOCK_TICKS_PER_S;
          const main = lastMain.has(p) ? (lastMain.get(p)! - (firstMain.get(p) ?? 0)) / CLOCK_TICKS_PER_S : undefined;
          const add = (name: string, value: number) => (peak.cpuByKind![name] = (peak.cpuByKind![name] ?? 0) + value);
          if (main === undefined) add(kind, s);
          else {
            add(`${kind}, main thread`, main);
            add(`${kind}, other threads`, s - main);
          }
        }
      }
      return peak;
    },
  };
}

let cgroups = 0;
/** A memory cgroup of its own for one measured process tree, or undefined where none can be made (not root). */
export function cgroupFor(label: string): MemoryCgroup | undefined {
  return openMemoryCgroup(`docshelf-bench-${process.pid}-${++cgroups}-${label}`);
}

/** Sends `signal` to every process of a tree, the root first (Chromium's processes do not die with their parent). */
export function signalTree(root: number, signal: NodeJS.Signals): number[] {
  const pids = treeOf(root);
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      /* gone */
    }
  }
  return pids;
}
