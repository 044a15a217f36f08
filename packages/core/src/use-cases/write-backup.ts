import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import type { StoredChunk } from '../domain/types';
import type { JobPayload, JobResult } from '../jobs/registry';
import type { BackupStorage, RecordStore } from '../ports';

/** Chunks read and serialized at a time: about the most of a library a backup holds in memory. */
export const BACKUP_PAGE_SIZE = 1_000;
export const BACKUP_FORMAT = 'docshelf-backup/v1';

/**
 * A snapshot holds everything needed to restore the library without fetching anything again. It is gzipped while
 * storage reads it, one page of chunks at a time, so a library of any size fits in memory.
 */
export async function writeBackup(
  deps: { records: RecordStore; backups: BackupStorage; now?: () => Date },
  job: JobPayload<'write-backup'>,
): Promise<JobResult<'write-backup'>> {
  const library = await deps.records.getLibrary(job.libraryId);
  if (!library) return { written: false, chunks: 0 };
  const createdAt = (deps.now ?? (() => new Date()))().toISOString();
  // A retried job overwrites its own snapshot instead of adding a second one.
  const existing = (await deps.backups.list(job.libraryId)).find((n) => n.endsWith(`-${job.ingestionId}.json.gz`));
  const name = existing ?? `${createdAt.replace(/[:.]/g, '-')}-${job.ingestionId}.json.gz`;

  const counted = { chunks: 0 };
  const head = { format: BACKUP_FORMAT, createdAt, ingestionId: job.ingestionId, library };
  const body = createGzip();
  const [produced, stored] = await Promise.allSettled([
    pipeline(snapshotJson(deps.records, job.libraryId, head, counted), body),
    // A storage that fails before reading the body to its end would leave the producer waiting on it for ever.
    deps.backups.put(job.libraryId, name, body).catch((error: unknown) => {
      body.destroy();
      throw error;
    }),
  ]);
  if (stored.status === 'rejected') throw stored.reason;
  if (produced.status === 'rejected') throw produced.reason;
  return { written: true, name, chunks: counted.chunks };
}

/** The text of `JSON.stringify({ ...head, chunks })`, made one page of the library's chunks at a time. */
async function* snapshotJson(
  records: RecordStore,
  libraryId: string,
  head: object,
  counted: { chunks: number },
): AsyncGenerator<string> {
  // Everything up to the chunks array's closing `]}`, as JSON.stringify writes it.
  yield JSON.stringify({ ...head, chunks: [] }).slice(0, -2);
  for (let offset = 0; ; offset += BACKUP_PAGE_SIZE) {
    const page = await records.listChunks(libraryId, { offset, limit: BACKUP_PAGE_SIZE });
    if (page.length > 0) yield (offset > 0 ? ',' : '') + page.map(serializeChunk).join(',');
    counted.chunks += page.length;
    if (page.length < BACKUP_PAGE_SIZE) break;
  }
  yield ']}';
}

/** A chunk as a backup keeps it: as stored, without the store's own ordering and token bookkeeping. */
function serializeChunk({ position: _position, bpeTokens: _bpeTokens, ...chunk }: StoredChunk): string {
  return JSON.stringify(chunk);
}
