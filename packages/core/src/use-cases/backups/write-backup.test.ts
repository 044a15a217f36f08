import { randomBytes } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { Library, StoredChunk } from '../../domain/types';
import type { JobPayload, JobResult } from '../../jobs/registry';
import type { BackupBody, BackupStorage, LibraryStore } from '../../ports';
import { readBackup } from './read-backup';
import { BACKUP_FORMAT, BACKUP_PAGE_SIZE, writeBackup } from './write-backup';

const NOW = new Date('2026-03-04T05:06:07.089Z');

/** A snapshot written in memory, as writeBackup wrote it before it streamed: the reference for the streamed text. */
async function writeSnapshotInMemory(
  deps: { libraries: LibraryStore; backups: BackupStorage; now?: () => Date },
  job: JobPayload<'write-backup'>,
): Promise<JobResult<'write-backup'>> {
  const library = await deps.libraries.getLibrary(job.libraryId);
  if (!library) return { written: false, chunks: 0 };
  const chunks = [];
  for (let offset = 0; ; offset += 1_000) {
    const page = await deps.libraries.listChunks(job.libraryId, { offset, limit: 1_000 });
    chunks.push(...page.map(({ bpeTokens: _bpeTokens, ...chunk }) => chunk));
    if (page.length < 1_000) break;
  }
  const createdAt = (deps.now ?? (() => new Date()))().toISOString();
  const head = { format: BACKUP_FORMAT, kind: 'snapshot', createdAt, ingestionId: job.ingestionId, library };
  const name = `${createdAt.replace(/[:.]/g, '-')}-${job.ingestionId}.json.gz`;
  await deps.backups.put(job.libraryId, name, gzipSync(JSON.stringify({ ...head, chunks })));
  return { written: true, name, chunks: chunks.length };
}

const library: Library = {
  id: 'acme/widgets',
  name: 'Widgets "the docs"',
  description: 'Ünïcode, quotes " and \\ backslashes',
  sourceType: 'crawl',
  sourceUrl: 'https://docs.example.com/',
  chunkCount: 0,
  ownerId: 'u1',
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-02-01T00:00:00.000Z',
  embeddingModel: 'local-lsi',
  embeddingDimensions: 256,
};

/** Chunks with and without their optional fields, and text JSON has to escape. */
function makeChunks(count: number, filler: () => string = () => 'x'.repeat(40)): StoredChunk[] {
  return Array.from({ length: count }, (_, i) => ({
    id: `c${i}`,
    ...(i % 3 === 0 ? {} : { title: `Title ${i} — “quoted”` }),
    content: `line ${i}\n\t"${filler()}" \u2028 🚀 ${i.toString(36)}`,
    ...(i % 4 === 0 ? {} : { url: `https://docs.example.com/p/${i}` }),
    tokenCount: i,
    position: i,
    ...(i % 2 === 0 ? { bpeTokens: i + 1 } : {}),
  }));
}

type Page = { offset?: number; afterPosition?: number; limit: number; ingestionId?: string };

/**
 * A LibraryStore that knows one library, and notes every page asked of it. `writtenBy` says which ingestion last wrote
 * each chunk (every chunk is the first ingestion's unless it says otherwise).
 */
function fakeLibraries(
  chunks: StoredChunk[],
  pages: Page[] = [],
  writtenBy: Record<string, string> = {},
): LibraryStore {
  const after = (list: StoredChunk[], page: Page) =>
    page.afterPosition === undefined
      ? list.slice(page.offset, page.offset! + page.limit)
      : list.filter((c) => c.position > page.afterPosition!).slice(0, page.limit);
  return {
    getLibrary: async (id: string) => (id === library.id ? { ...library, chunkCount: chunks.length } : null),
    listChunks: async (id: string, page: Page) => {
      pages.push(page);
      return id === library.id ? after(chunks, page) : [];
    },
    listChunksOfIngestion: async (id: string, ingestionId: string, page: Page) => {
      pages.push({ ...page, ingestionId });
      const written = chunks.filter((c) => (writtenBy[c.id] ?? 'ing-1') === ingestionId);
      return id === library.id ? after(written, page) : [];
    },
  } as unknown as LibraryStore;
}

/** BackupStorage in memory that keeps an object only once its body has ended, as the contract asks. */
class MemoryBackupStorage implements BackupStorage {
  readonly objects = new Map<string, Buffer>();
  onPiece: (piece: Uint8Array) => void = () => {};

  async put(libraryId: string, name: string, body: BackupBody): Promise<void> {
    const pieces: Uint8Array[] = [];
    if (Buffer.isBuffer(body)) pieces.push(body);
    else
      for await (const piece of body) {
        this.onPiece(piece);
        pieces.push(piece);
      }
    this.objects.set(`${libraryId}/${name}`, Buffer.concat(pieces));
  }

  async list(libraryId: string): Promise<string[]> {
    const prefix = `${libraryId}/`;
    return [...this.objects.keys()].filter((key) => key.startsWith(prefix)).map((key) => key.slice(prefix.length));
  }

  async read(libraryId: string, name: string): Promise<Buffer> {
    const body = this.objects.get(`${libraryId}/${name}`);
    if (!body) throw new Error(`backup object '${name}' not found`);
    return body;
  }

  async deleteAll(): Promise<number> {
    throw new Error('not used here');
  }
}

/** 400 characters that gzip can hardly shrink. */
const randomText = () => randomBytes(300).toString('base64');

const job = { libraryId: library.id, ingestionId: 'ing-1' };

describe('writeBackup', () => {
  it.each([
    ['an empty library', 0],
    ['one chunk', 1],
    ['less than a page', BACKUP_PAGE_SIZE - 1],
    ['exactly one page', BACKUP_PAGE_SIZE],
    ['a page and one chunk', BACKUP_PAGE_SIZE + 1],
    ['a multiple of the page size', 3 * BACKUP_PAGE_SIZE],
    ['pages and a part', 2 * BACKUP_PAGE_SIZE + 345],
  ])('writes the same snapshot as the in-memory version for %s', async (_, count) => {
    const libraries = fakeLibraries(makeChunks(count));
    const streamed = new MemoryBackupStorage();
    const inMemory = new MemoryBackupStorage();
    const result = await writeBackup({ libraries, backups: streamed, now: () => NOW }, job);
    const expected = await writeSnapshotInMemory({ libraries, backups: inMemory, now: () => NOW }, job);

    expect(result).toEqual(expected);
    expect(result).toEqual({ written: true, name: '2026-03-04T05-06-07-089Z-ing-1.json.gz', chunks: count });
    const text = gunzipSync(await streamed.read(library.id, result.name!)).toString('utf8');
    expect(text).toBe(gunzipSync(await inMemory.read(library.id, expected.name!)).toString('utf8'));
    const snapshot = JSON.parse(text) as { chunks: unknown[] };
    expect(Object.keys(snapshot)).toEqual(['format', 'kind', 'createdAt', 'ingestionId', 'library', 'chunks']);
    expect(snapshot.chunks).toHaveLength(count);
  });

  it('overwrites its own snapshot when the job runs again', async () => {
    const backups = new MemoryBackupStorage();
    const first = await writeBackup({ libraries: fakeLibraries(makeChunks(2)), backups, now: () => NOW }, job);
    const later = () => new Date(NOW.getTime() + 60_000);
    const again = await writeBackup({ libraries: fakeLibraries(makeChunks(5)), backups, now: later }, job);

    expect(again.name).toBe(first.name);
    expect(await backups.list(library.id)).toEqual([first.name]);
    const snapshot = JSON.parse(gunzipSync(await backups.read(library.id, first.name!)).toString('utf8')) as {
      createdAt: string;
      chunks: unknown[];
    };
    expect(snapshot).toMatchObject({ createdAt: later().toISOString(), chunks: expect.any(Array) });
    expect(snapshot.chunks).toHaveLength(5);
  });

  it('writes nothing for a library that is gone', async () => {
    const backups = new MemoryBackupStorage();
    const result = await writeBackup({ libraries: fakeLibraries([]), backups }, { ...job, libraryId: 'gone/lib' });
    expect(result).toEqual({ written: false, chunks: 0 });
    expect(backups.objects.size).toBe(0);
  });

  it('reads the next page only as storage takes the gzipped text, never the whole library first', async () => {
    const pages: Page[] = [];
    // Random contents, so each page gzips to far more than the streams between it and storage buffer.
    const libraries = fakeLibraries(makeChunks(10 * BACKUP_PAGE_SIZE, randomText), pages);
    const backups = new MemoryBackupStorage();
    const pagesReadAtPiece: number[] = [];
    backups.onPiece = () => pagesReadAtPiece.push(pages.length);

    const result = await writeBackup({ libraries, backups, now: () => NOW }, job);

    expect(result.chunks).toBe(10 * BACKUP_PAGE_SIZE);
    expect(pages).toHaveLength(11);
    expect(Math.max(...pages.map((page) => page.limit))).toBe(BACKUP_PAGE_SIZE);
    // Storage had its first bytes while the first pages were still all that had been read...
    expect(pagesReadAtPiece[0]).toBeLessThanOrEqual(2);
    // ...and every page after them was read only once storage had taken bytes made from the one before.
    for (let page = 2; page <= 11; page++) {
      expect(pagesReadAtPiece.filter((read) => read === page - 1).length).toBeGreaterThan(0);
    }
  });

  it('fails, storing nothing, when reading the library fails halfway', async () => {
    const libraries = fakeLibraries(makeChunks(3 * BACKUP_PAGE_SIZE));
    const listChunks = libraries.listChunks.bind(libraries);
    libraries.listChunks = async (id, page) => {
      if ('afterPosition' in page && page.afterPosition >= 2 * BACKUP_PAGE_SIZE - 1) {
        throw new Error('record store went away');
      }
      return listChunks(id, page);
    };
    const backups = new MemoryBackupStorage();
    await expect(writeBackup({ libraries, backups, now: () => NOW }, job)).rejects.toThrow('record store went away');
    expect(backups.objects.size).toBe(0);
  });

  it('fails, and stops reading the library, when storage refuses the body before reading it', async () => {
    const pages: Page[] = [];
    const backups = new MemoryBackupStorage();
    backups.put = async () => {
      throw new Error('bucket not found');
    };
    const libraries = fakeLibraries(makeChunks(5 * BACKUP_PAGE_SIZE), pages);
    await expect(writeBackup({ libraries, backups, now: () => NOW }, job)).rejects.toThrow('bucket not found');
    expect(pages.length).toBeLessThanOrEqual(2);
  });

  it('writes an increment of what an ingestion wrote and removed once the library has a snapshot', async () => {
    const backups = new MemoryBackupStorage();
    const chunks = makeChunks(5);
    const writtenBy = { c3: 'ing-2', c4: 'ing-2' };
    const first = await writeBackup({ libraries: fakeLibraries(chunks, [], writtenBy), backups, now: () => NOW }, job);
    const pages: Page[] = [];
    const later = () => new Date(NOW.getTime() + 1_000);
    const second = await writeBackup(
      { libraries: fakeLibraries(chunks, pages, writtenBy), backups, now: later },
      { libraryId: library.id, ingestionId: 'ing-2', removedChunkIds: ['gone-1'] },
    );

    expect(first).toMatchObject({ name: '2026-03-04T05-06-07-089Z-ing-1.json.gz', chunks: 5 });
    expect(second).toEqual({ written: true, name: '2026-03-04T05-06-08-089Z-ing-2.increment.json.gz', chunks: 2 });
    // Only the ingestion's chunks were read, never the library.
    expect(pages.every((page) => page.ingestionId === 'ing-2')).toBe(true);
    const increment = JSON.parse(gunzipSync(await backups.read(library.id, second.name!)).toString('utf8'));
    expect(increment).toMatchObject({ kind: 'increment', ingestionId: 'ing-2', removedChunkIds: ['gone-1'] });
    expect(increment.chunks.map((c: StoredChunk) => [c.id, c.position])).toEqual([
      ['c3', 3],
      ['c4', 4],
    ]);
  });

  it('writes a snapshot for a replacement even when the library has one', async () => {
    const backups = new MemoryBackupStorage();
    await writeBackup({ libraries: fakeLibraries(makeChunks(3)), backups, now: () => NOW }, job);
    const replaced = await writeBackup(
      { libraries: fakeLibraries(makeChunks(4)), backups, now: () => new Date(NOW.getTime() + 1) },
      { libraryId: library.id, ingestionId: 'ing-2', replace: true },
    );
    expect(replaced).toMatchObject({ name: expect.stringMatching(/-ing-2\.json\.gz$/), chunks: 4 });
  });
});

describe('readBackup', () => {
  const put = (backups: MemoryBackupStorage, name: string, object: object) =>
    backups.put(library.id, name, gzipSync(JSON.stringify(object)));
  const head = { createdAt: NOW.toISOString(), library };
  const chunk = (id: string, position?: number) => ({
    id,
    content: `text of ${id}`,
    tokenCount: 3,
    ...(position === undefined ? {} : { position }),
  });

  it('applies the increments after the latest snapshot in order: resent chunks keep their place, removed ids go', async () => {
    const backups = new MemoryBackupStorage();
    // An older snapshot of the first format (no kind, no positions), then the chain that counts.
    await put(backups, '1-a.json.gz', {
      format: 'docshelf-backup/v1',
      ingestionId: 'a',
      ...head,
      chunks: [chunk('old')],
    });
    await put(backups, '2-b.json.gz', {
      format: BACKUP_FORMAT,
      kind: 'snapshot',
      ingestionId: 'b',
      ...head,
      chunks: [chunk('x', 0), chunk('y', 1), chunk('z', 2)],
    });
    await put(backups, '3-c.increment.json.gz', {
      format: BACKUP_FORMAT,
      kind: 'increment',
      ingestionId: 'c',
      ...head,
      removedChunkIds: ['y'],
      chunks: [{ ...chunk('z', 2), content: 'z again' }, chunk('w', 3)],
    });

    const restored = await readBackup(backups, library.id);
    expect(restored?.objects).toEqual(['2-b.json.gz', '3-c.increment.json.gz']);
    expect(restored?.chunks).toEqual([chunk('x'), { ...chunk('z'), content: 'z again' }, chunk('w')]);
  });

  it('answers null without a snapshot, and refuses an object that is not a backup', async () => {
    const backups = new MemoryBackupStorage();
    expect(await readBackup(backups, library.id)).toBeNull();
    await put(backups, '1-a.json.gz', { format: BACKUP_FORMAT, ...head, chunks: [{ id: 1, content: null }] });
    await expect(readBackup(backups, library.id)).rejects.toThrow();
  });
});
