import BetterSqlite3 from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import { parentPort, workerData } from 'node:worker_threads';
import { VectorGraphFiles } from './vector-graph';

/** What the thread is asked: the library's vectors in the SQLite file, built into a graph kept in `dir`. */
export interface GraphBuildRequest {
  file: string;
  libraryId: string;
  dimensions: number;
  threads: number;
  dir: string;
  prefix: string;
}

/** The graph's version: the library's vector version it was read at. */
export interface GraphBuilt {
  version: number;
}

/** One library's graph, built in a thread of its own on its own read-only connection (see sqlite-vec.vector-index.ts). */
const { file, libraryId, dimensions, threads, dir, prefix } = workerData as GraphBuildRequest;
const db = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
sqliteVec.load(db);
db.pragma('busy_timeout = 5000');
const readLibrary = db.transaction(() => {
  const version =
    (db.prepare('SELECT version FROM vector_versions WHERE library_id = ?').pluck().get(libraryId) as number) ?? 0;
  const count = db.prepare('SELECT COUNT(*) FROM vector_keys WHERE library_id = ?').pluck().get(libraryId) as number;
  const vectors = new Float32Array(count * dimensions);
  const keys = new BigUint64Array(count);
  const rows = db
    .prepare(
      `SELECT vector_keys.rowid, vec_chunks.embedding
       FROM vector_keys JOIN vec_chunks ON vec_chunks.rowid = vector_keys.rowid WHERE vector_keys.library_id = ?`,
    )
    .raw()
    .iterate(libraryId) as IterableIterator<[number, Buffer]>;
  let read = 0;
  for (const [rowid, embedding] of rows) {
    vectors.set(new Float32Array(new Uint8Array(embedding).buffer), read * dimensions);
    keys[read++] = BigInt(rowid);
  }
  return { version, keys, vectors };
});
const { version, keys, vectors } = readLibrary();
db.close();
new VectorGraphFiles(dir, prefix).write(libraryId, version, keys, vectors, dimensions, threads);
parentPort!.postMessage({ version } satisfies GraphBuilt);
