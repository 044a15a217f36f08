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
  /** A page whose extraction takes longer fails (its thread is stopped); the default is EXTRACT_TIMEOUT_MS. */
  timeoutMs?: number;
}

/** How long one page's extraction in a thread may take before the page fails. */
export const EXTRACT_TIMEOUT_MS = 30_000;
/**
 * Pages up to this size are extracted on the event loop when no threads are configured: extraction is linear in the
 * page, so such a page holds the loop a few hundred milliseconds at worst. A larger page, a real one (Node's fs.html is
 * 500 KB) or one built to stall a worker, goes to a thread with a time limit.
 */
export const INLINE_MAX_CHARS = 256 * 1024;

/** The error of a page whose extraction ran out of its time. */
export class ExtractionTimeoutError extends Error {
  constructor(url: string, timeoutMs: number) {
    super(`extracting ${url} took longer than ${timeoutMs} ms`);
    this.name = 'ExtractionTimeoutError';
  }
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
  const timeoutMs = options.timeoutMs ?? EXTRACT_TIMEOUT_MS;
  return {
    extract: (task) => {
      // Aborting a task stops its thread (piscina starts another): a page that runs too long fails alone.
      const signal = AbortSignal.timeout(timeoutMs);
      return pool.run(task, { signal }).catch((error: unknown) => {
        if (signal.aborted) throw new ExtractionTimeoutError(task.url, timeoutMs);
        if (!isOutOfMemory(error)) throw error;
        options.onOutOfMemory?.(task.url);
        return inlineExtractor.extract(task);
      });
    },
    close: () => pool.destroy(),
  };
}

/**
 * `threads` pages extracted at once in threads of their own; with `threads` 0 pages up to INLINE_MAX_CHARS are
 * extracted on the caller's event loop and larger ones in one thread, each with its time limit.
 */
export function createPageExtractor(threads: number, options: ThreadedExtractorOptions = {}): PageExtractor {
  if (threads > 0) return createThreadedExtractor(threads, options);
  const large = createThreadedExtractor(1, options);
  return {
    extract: (task) => (task.html.length <= INLINE_MAX_CHARS ? inlineExtractor.extract(task) : large.extract(task)),
    close: () => large.close(),
  };
}
