import path from 'node:path';
import { Piscina } from 'piscina';
import extractTask, { type ExtractOutcome, type ExtractTask } from './extract.worker';

/** Where pages are extracted: on the caller's event loop, or in a pool of threads. */
export interface PageExtractor {
  extract(task: ExtractTask): Promise<ExtractOutcome>;
  close(): Promise<void>;
}

/** Extraction on the caller's own event loop. */
export const inlineExtractor: PageExtractor = {
  // Through a promise, so a failing extraction rejects as the threaded one does rather than throwing.
  extract: (task) => Promise.resolve(task).then(extractTask),
  close: () => Promise.resolve(),
};

/** Threads stay up this long after their last page, so a crawl's pages reuse them and an idle worker holds none. */
const IDLE_THREAD_MS = 30_000;

/**
 * A thread's heap limit. V8 lets a heap with the default limit (a quarter of the machine's memory, up to 4 GB) grow to
 * four times what it holds between collections, one with a limit under 2 GB by 1.3–2 times: over sphinx-doc's pages
 * each of two threads grew to 250–340 MB while holding under 60 MB, and to 100–150 MB with these limits (for about a
 * tenth more extraction CPU). The young generation's default is 48 MB.
 */
export const THREAD_HEAP_LIMITS = { maxOldGenerationSizeMb: 1_024, maxYoungGenerationSizeMb: 16 };

export interface ThreadedExtractorOptions {
  /** Told of a page that did not fit in a thread's heap (and was extracted on the event loop). */
  onOutOfMemory?: (url: string) => void;
  /** For tests: a smaller heap limit per thread. */
  heapLimits?: typeof THREAD_HEAP_LIMITS;
}

/** The error of a task whose thread ran out of heap (the thread is gone; piscina starts another). */
function isOutOfMemory(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === 'ERR_WORKER_OUT_OF_MEMORY';
}

/**
 * Extraction in worker threads: parsing and converting a large page (Node's fs.html is 500 KB) takes tens of
 * milliseconds of CPU, which on the worker's one event loop would serialise every page it loads and hold up its
 * jobs. `threads` pages are extracted at once, each in a thread of its own. A page too large for a thread's heap is
 * extracted on the event loop instead, as it would be without threads.
 */
export function createThreadedExtractor(threads: number, options: ThreadedExtractorOptions = {}): PageExtractor {
  const sources = __filename.endsWith('.ts');
  const pool = new Piscina<ExtractTask, ExtractOutcome>({
    filename: path.join(__dirname, `extract.worker.${sources ? 'ts' : 'js'}`),
    minThreads: 0,
    maxThreads: threads,
    idleTimeout: IDLE_THREAD_MS,
    resourceLimits: options.heapLimits ?? THREAD_HEAP_LIMITS,
    // Run from the TypeScript sources (tests, `npm run dev`), a thread compiles them as the main thread does.
    ...(sources ? { execArgv: ['--require', require.resolve('tsx/cjs'), '--conditions=@docshelf/source'] } : {}),
  });
  return {
    extract: (task) =>
      pool.run(task).catch((error: unknown) => {
        if (!isOutOfMemory(error)) throw error;
        options.onOutOfMemory?.(task.url);
        return inlineExtractor.extract(task);
      }),
    close: () => pool.destroy(),
  };
}

/** `threads` 0 extracts on the caller's event loop. */
export function createPageExtractor(threads: number, options: ThreadedExtractorOptions = {}): PageExtractor {
  return threads > 0 ? createThreadedExtractor(threads, options) : inlineExtractor;
}
