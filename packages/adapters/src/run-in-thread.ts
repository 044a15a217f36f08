import { Worker } from 'node:worker_threads';

/**
 * Starts `<base>.js` (or `<base>.ts` when this module runs from the TypeScript sources: tests, `npm run dev`, where the
 * thread compiles them as the main thread does) in a worker thread with `data`, and answers its one message.
 * `track` is given the thread, to end it early (a closing adapter ends its builds).
 */
export function runInThread<T>(
  base: string,
  data: unknown,
  what: string,
  track?: (thread: Worker) => void,
): Promise<T> {
  const sources = __filename.endsWith('.ts');
  const thread = new Worker(`${base}.${sources ? 'ts' : 'js'}`, {
    workerData: data,
    ...(sources ? { execArgv: ['--require', require.resolve('tsx/cjs'), '--conditions=@docshelf/source'] } : {}),
  });
  track?.(thread);
  return new Promise((resolve, reject) => {
    thread.once('message', resolve);
    thread.once('error', reject);
    thread.once('exit', (code) => reject(new Error(`the ${what} thread exited with code ${code} before answering`)));
  });
}
