/**
 * The true memory peak of a process tree: a cgroup v1 memory controller child of this process's own memory cgroup,
 * into which a process is moved (with the memory it already holds); the processes it starts (Chromium) join it.
 * The kernel keeps the group's peak (memory.max_usage_in_bytes: anonymous memory and page cache, each page counted
 * once however many processes map it). Summed RSS counts Chromium's shared pages once per process; PSS splits them.
 * Needs root (or a delegated cgroup); where it cannot be had, `openMemoryCgroup` returns undefined and the benchmark
 * reports PSS and summed RSS only.
 */
import fs from 'node:fs';
import path from 'node:path';

const ROOT = '/sys/fs/cgroup/memory';
const MB = 2 ** 20;

export interface MemoryCgroup {
  /**
   * Whether a joining process brings the charges of the memory it already holds (memory.move_charge_at_immigrate;
   * kernels without it count only what a process allocates after joining, and all of the children born in it).
   */
  movesCharges: boolean;
  /** Moves a process (and the charges of its memory, where movesCharges) into the group; its later children are born in it. */
  add(pid: number): void;
  /** Starts the peak afresh (after the setup that is not to be measured). */
  resetPeak(): void;
  /** The kernel's peak of the group since the last reset, in MB: anonymous memory plus page cache. */
  peakMb(): number;
  /** Usage less the inactive file cache now, in MB (the working set, as `docker stats` reports it). */
  workingSetMb(): number;
  /** Usage now, in MB. */
  usageMb(): number;
  /** The group's memory.stat now (bytes and counts by name). */
  stat(): Record<string, number>;
  /** Moves whatever is left back to the parent group and removes the group. */
  remove(): void;
}

function ownMemoryCgroup(): string | undefined {
  const line = fs
    .readFileSync('/proc/self/cgroup', 'utf8')
    .split('\n')
    .find((l) => l.split(':')[1]?.split(',').includes('memory'));
  return line?.split(':')[2];
}

export function openMemoryCgroup(name: string): MemoryCgroup | undefined {
  try {
    const own = ownMemoryCgroup();
    if (own === undefined || !fs.existsSync(path.join(ROOT, 'memory.max_usage_in_bytes'))) return undefined;
    const parent = path.join(ROOT, own);
    const dir = path.join(parent, name);
    fs.mkdirSync(dir);
    const write = (file: string, value: string) => fs.writeFileSync(path.join(dir, file), value);
    const read = (file: string) => fs.readFileSync(path.join(dir, file), 'utf8');
    // Move a joining process's anonymous and file pages' charges with it (cgroup v1; ignored where unsupported).
    let movesCharges = true;
    try {
      write('memory.move_charge_at_immigrate', '3');
    } catch {
      // Charges stay with the parent: the peak then counts only what is allocated after joining.
      movesCharges = false;
    }
    return {
      movesCharges,
      add: (pid) => write('cgroup.procs', String(pid)),
      resetPeak: () => write('memory.max_usage_in_bytes', '0'),
      peakMb: () => Number(read('memory.max_usage_in_bytes')) / MB,
      usageMb: () => Number(read('memory.usage_in_bytes')) / MB,
      stat: () =>
        Object.fromEntries(
          read('memory.stat')
            .split('\n')
            .filter(Boolean)
            .map((line) => [line.split(' ')[0]!, Number(line.split(' ')[1])]),
        ),
      workingSetMb: () => {
        const usage = Number(read('memory.usage_in_bytes'));
        const inactive = Number(/^total_inactive_file (\d+)/m.exec(read('memory.stat'))?.[1] ?? 0);
        return Math.max(0, usage - inactive) / MB;
      },
      remove: () => {
        for (const pid of read('cgroup.procs').split('\n').filter(Boolean)) {
          try {
            fs.writeFileSync(path.join(parent, 'cgroup.procs'), pid);
          } catch {
            /* gone */
          }
        }
        try {
          fs.rmdirSync(dir);
        } catch {
          /* a process is still exiting: the kernel removes nothing until it is gone; leave it */
        }
      },
    };
  } catch {
    return undefined;
  }
}
