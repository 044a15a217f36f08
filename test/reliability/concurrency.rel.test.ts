import path from 'node:path';
import Database from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import request from 'supertest';
import { startHarness, type Harness } from '@docshelf/testing/e2e/harness';
import { recordFigure } from '@docshelf/testing/reliability/figures';

const SENDERS = 50;
const CHUNKS_EACH = 5;

const batch = (sender: number) =>
  Array.from({ length: CHUNKS_EACH }, (_, i) => ({
    id: `s${sender}-c${i}`,
    title: `Sender ${sender} › part ${i}`,
    content: `Sender ${sender} wrote part ${i} about concurrency, locking and ordering of writes.`,
  }));

/** Rows that appear more than once where each should appear once, read straight from the SQLite file. */
function duplicateRows(h: Harness): number {
  const db = new Database(path.join(h.config.dataDir, 'docshelf.sqlite'), { readonly: true });
  sqliteVec.load(db);
  try {
    const count = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
    return (
      count('SELECT COUNT(*) - COUNT(DISTINCT library_id || char(0) || id) AS n FROM chunks') +
      count('SELECT COUNT(*) - COUNT(DISTINCT library_id || char(0) || chunk_id) AS n FROM vector_keys') +
      // A vector without its key (or a key without its vector) is a write done twice or half.
      Math.abs(count('SELECT (SELECT COUNT(*) FROM vec_chunks) - (SELECT COUNT(*) FROM vector_keys) AS n'))
    );
  } finally {
    db.close();
  }
}

describe('50 ingests at once (API + worker + Redis + SQLite)', () => {
  let h: Harness;
  let auth: { Authorization: string };

  beforeAll(async () => {
    h = await startHarness({ JOB_WAIT_TIMEOUT_MS: '170000' });
    auth = { Authorization: `Bearer ${await h.createKey('admin')}` };
  });
  afterAll(async () => h.close());

  const ingest = (libraryId: string, sender: number) =>
    request(h.app)
      .post('/api/ingest')
      .set(auth)
      .send({ libraryId, name: `Written by ${sender}`, description: `sender ${sender}`, chunks: batch(sender) });

  it('into one library: every chunk and vector exactly once, and the library counts them all', async () => {
    const answers = await Promise.all(Array.from({ length: SENDERS }, (_, sender) => ingest('busy/one', sender)));
    const statuses = answers.map((a) => a.status);
    const library = (await request(h.app).get('/api/libraries/busy/one').expect(200)).body;
    const expected = SENDERS * CHUNKS_EACH;
    const chunks = await h.adapters.libraries.countChunks('busy/one');
    const vectors = await h.adapters.vectors.count('busy/one');
    recordFigure({
      scenario: 'concurrency: 50 ingests into one library',
      requests: SENDERS,
      faults: 0,
      serverErrors: statuses.filter((s) => s >= 500).length,
      rowsLost: expected - chunks + (expected - vectors),
      duplicates: duplicateRows(h),
      note: `answers ${[...new Set(statuses)].join('/')}; chunkCount ${library.library.chunkCount}, chunks ${chunks}, vectors ${vectors}`,
    });
    expect(statuses).toEqual(Array(SENDERS).fill(200));
    expect(chunks).toBe(expected);
    expect(library.library.chunkCount).toBe(expected);
    expect(library.chunks).toHaveLength(expected);
    expect(vectors).toBe(expected);
    // The fields are those of one whole request, never a mix of two.
    expect(library.library.description).toBe(`sender ${library.library.name.replace('Written by ', '')}`);
    expect(duplicateRows(h)).toBe(0);
  }, 180_000);

  it('into 50 libraries: each complete, none touching another', async () => {
    const answers = await Promise.all(
      Array.from({ length: SENDERS }, (_, sender) => ingest(`busy/lib-${sender}`, sender)),
    );
    const counts = await Promise.all(
      Array.from({ length: SENDERS }, (_, sender) => h.adapters.libraries.countChunks(`busy/lib-${sender}`)),
    );
    const vectors = await Promise.all(
      Array.from({ length: SENDERS }, (_, sender) => h.adapters.vectors.count(`busy/lib-${sender}`)),
    );
    const backups = await Promise.all(
      Array.from({ length: SENDERS }, (_, sender) => h.adapters.backups.list(`busy/lib-${sender}`)),
    );
    recordFigure({
      scenario: 'concurrency: 50 ingests into 50 libraries',
      requests: SENDERS,
      faults: 0,
      serverErrors: answers.filter((a) => a.status >= 500).length,
      rowsLost:
        counts.reduce((lost, n) => lost + CHUNKS_EACH - n, 0) + vectors.reduce((lost, n) => lost + CHUNKS_EACH - n, 0),
      duplicates: duplicateRows(h) + backups.reduce((extra, list) => extra + Math.max(0, list.length - 1), 0),
    });
    expect(answers.map((a) => a.status)).toEqual(Array(SENDERS).fill(200));
    expect(counts).toEqual(Array(SENDERS).fill(CHUNKS_EACH));
    expect(vectors).toEqual(Array(SENDERS).fill(CHUNKS_EACH));
    expect(backups.map((list) => list.length)).toEqual(Array(SENDERS).fill(1));
    for (let sender = 0; sender < SENDERS; sender++) {
      const chunks = await h.adapters.libraries.listChunks(`busy/lib-${sender}`, { offset: 0, limit: 10 });
      expect(chunks.map((c) => c.id)).toEqual(batch(sender).map((c) => c.id));
    }
  }, 180_000);
});
