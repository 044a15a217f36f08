import BetterSqlite3 from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import { parentPort, workerData } from 'node:worker_threads';
import { buildVectorGraph } from './vector-graph';

/** What the thread is asked: the library's vectors in the SQLite file, built into a graph saved at `out`. */
export interface GraphBuildRequest {
  file: string;
  libraryId: string;
  dimensions: number;
  threads: number;
  out: string;
}

/** The graph's version (the library's vector version it was read at) and its nodes' chunk ids, in node order. */
export interface GraphBuilt {
  version: number;
  chunkIds: string[];
}

/** One library's graph, built in a thread of its own on its own read-only connection (see sqlite-vec.vector-index.ts). */
const { file, libraryId, dimensions, threads, out } = workerData as GraphBuildRequest;
const db = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
sqliteVec.load(db);
db.pragma('busy_timeout = 5000');
const read = db.transaction(() => {
  const version =
    (db.prepare('SELECT version FROM vector_versions WHERE library_id = ?').pluck().get(libraryId) as number) ?? 0;
  const count = db.prepare('SELECT COUNT(*) FROM vector_keys WHERE library_id = ?').pluck().get(libraryId) as number;
  const vectors = new Float32Array(count * dimensions);
  const chunkIds: string[] = [];
  const rows = db
    .prepare(
      `SELECT vector_keys.chunk_id, vec_chunks.embedding
       FROM vector_keys JOIN vec_chunks ON vec_chunks.rowid = vector_keys.rowid WHERE vector_keys.library_id = ?`,
    )
    .raw()
    .iterate(libraryId) as IterableIterator<[string, Buffer]>;
  for (const [chunkId, embedding] of rows) {
    vectors.set(new Float32Array(new Uint8Array(embedding).buffer), chunkIds.length * dimensions);
    chunkIds.push(chunkId);
  }
  return { version, chunkIds, vectors };
});
const { version, chunkIds, vectors } = read();
db.close();
buildVectorGraph(vectors, chunkIds.length, dimensions, threads, out);
parentPort!.postMessage({ version, chunkIds } satisfies GraphBuilt);
