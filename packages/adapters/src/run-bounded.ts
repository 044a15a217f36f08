/** Runs `task` for every item with at most `limit` running at once; results keep the items' order. */
export async function mapWithConcurrency<T, R>(items: T[], limit: number, task: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failed = false;
  const runLane = async () => {
    // After a failure the other lanes finish their current item but start no new one.
    while (next < items.length && !failed) {
      const index = next++;
      try {
        results[index] = await task(items[index] as T, index);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, runLane));
  return results;
}
