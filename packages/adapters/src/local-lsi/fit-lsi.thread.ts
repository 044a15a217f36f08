import { parentPort, workerData } from 'node:worker_threads';
import { fitLsi, type FitLsiOptions } from './fit-lsi';

/** One library's learning, in a thread of its own (see learn-in-thread.ts): answers the serialized model. */
const { documents, options } = workerData as { documents: string[][]; options: FitLsiOptions };
parentPort!.postMessage(fitLsi(documents, options).serialize());
