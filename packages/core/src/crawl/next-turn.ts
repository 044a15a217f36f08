/**
 * Resolves on the event loop's next turn, after pending I/O: long work over untrusted input (a sitemap of 100,000
 * URLs) is done in slices with a turn between them, so a worker's other jobs and lock renewals are not held up.
 */
export const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Maps `items` in slices of `slice`, with a turn of the event loop between slices. */
export async function mapInTurns<T, U>(items: T[], map: (item: T) => U[], slice = 2_000): Promise<U[]> {
  const out: U[] = [];
  for (let at = 0; at < items.length; at += slice) {
    if (at > 0) await nextTurn();
    for (const item of items.slice(at, at + slice)) for (const mapped of map(item)) out.push(mapped);
  }
  return out;
}

/**
 * Work written as a generator that yields now and then (every few thousand lines or blocks) and returns its result:
 * run at once, or in turns of the event loop.
 */
export type Steps<T> = Generator<void, T, void>;

/** Runs `steps` to its result without a break. */
export function runAtOnce<T>(steps: Steps<T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** Runs `steps` to its result, giving the event loop a turn whenever a slice has run `sliceMs` or more. */
export async function runInTurns<T>(steps: Steps<T>, sliceMs = 20): Promise<T> {
  let sliceStart = performance.now();
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    if (performance.now() - sliceStart < sliceMs) continue;
    await nextTurn();
    sliceStart = performance.now();
  }
}
