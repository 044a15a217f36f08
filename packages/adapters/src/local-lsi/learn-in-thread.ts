import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { FitLsiOptions } from './fit-lsi';

/**
 * `fitLsi(documents, options).serialize()` in a worker thread: learning a big library is tens of seconds of CPU,
 * which on the worker's event loop would stall its other jobs and let their locks lapse. The same documents give
 * the same model as inline (the fit is deterministic).
 */
export function fitLsiInThread(documents: string[][], options: FitLsiOptions): Promise<Buffer> {
  const sources = __filename.endsWith('.ts');
  const thread = new Worker(path.join(__dirname, `fit-lsi.thread.${sources ? 'ts' : 'js'}`), {
    workerData: { documents, options },
    // Run from the TypeScript sources (tests, `npm run dev`), the thread compiles them as the main thread does.
    ...(sources ? { execArgv: ['--require', require.resolve('tsx/cjs'), '--conditions=@docshelf/source'] } : {}),
  });
  return new Promise((resolve, reject) => {
    thread.once('message', (data: Uint8Array) => resolve(Buffer.from(data.buffer, data.byteOffset, data.byteLength)));
    thread.once('error', reject);
    thread.once('exit', (code) => reject(new Error(`the learning thread exited with code ${code} before answering`)));
  });
}
