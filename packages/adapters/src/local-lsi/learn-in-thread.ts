import path from 'node:path';
import { runInThread } from '../run-in-thread';
import type { FitLsiOptions } from './fit-lsi';

/**
 * `fitLsi(documents, options).serialize()` in a worker thread: learning a big library is tens of seconds of CPU,
 * which on the worker's event loop would stall its other jobs and let their locks lapse. The same documents give
 * the same model as inline (the fit is deterministic).
 */
export async function fitLsiInThread(documents: string[][], options: FitLsiOptions): Promise<Buffer> {
  const data = await runInThread<Uint8Array>(
    path.join(__dirname, 'fit-lsi.thread'),
    { documents, options },
    'learning',
  );
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
}
