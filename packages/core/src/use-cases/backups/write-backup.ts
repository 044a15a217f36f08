import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import type { StoredChunk } from '../../domain/types';
import type { JobPayload, JobResult } from '../../jobs/registry';
import type { BackupStorage, LibraryStore } from '../../ports';
import { chunkPages } from '../libraries/chunk-pages';

/** Chunks read and serialized at a time: about the most of a library a backup holds in memory. */
export const BACKUP_PAGE_SIZE = 1_000;
export const BACKUP_FORMAT = 'docshelf-backup/v2';

/** What a backup object holds: the whole library, or what one ingestion changed in it. */
export type BackupKind = 'snapshot' | 'increment';

/** Object names: `<time>-<ingestion id>.json.gz` for a snapshot, `….increment.json.gz` for an increment. */
export const INCREMENT_SUFFIX = '.increment.json.gz';
export const isIncrementName = (name: string) => name.endsWith(INCREMENT_SUFFIX);

/**
 * Backs up what an ingestion changed. A replacement, or a library with no snapshot yet, gets a snapshot of every
 * chunk; any other ingestion an increment: the chunks it wrote and the ids it removed. The latest snapshot and the
 * increments after it restore the library (`readBackup`), and a write costs what the ingestion wrote, not what the
 * library holds. Objects are gzipped while storage reads them, one page of chunks at a time.
 */
export async function writeBackup(
  deps: { libraries: LibraryStore; backups: BackupStorage; now?: () => Date },
  job: JobPayload<'write-backup'>,
): Promise<JobResult<'write-backup'>> {
  const library = await deps.libraries.getLibrary(job.libraryId);
  if (!library) return { written: false, chunks: 0 };
  const createdAt = (deps.now ?? (() => new Date()))().toISOString();
  const names = await deps.backups.list(job.libraryId);
  // A retried job overwrites its own object instead of adding a second one (of the same kind: the snapshots before
  // it are the same as at its first attempt, since only a library's deletion removes one).
  const existing = names.find((n) => n.includes(`-${job.ingestionId}.`));
  const hasSnapshot = names.some((n) => n !== existing && !isIncrementName(n));
  const kind: BackupKind = job.replace || !hasSnapshot ? 'snapshot' : 'increment';
  const suffix = kind === 'snapshot' ? '.json.gz' : INCREMENT_SUFFIX;
  const name = existing ?? `${createdAt.replace(/[:.]/g, '-')}-${job.ingestionId}${suffix}`;

  const counted = { chunks: 0 };
  const head = {
    format: BACKUP_FORMAT,
    kind,
    createdAt,
    ingestionId: job.ingestionId,
    library,
    ...(kind === 'increment' ? { removedChunkIds: job.removedChunkIds ?? [] } : {}),
  };
  const pages = chunkPages(deps.libraries, job.libraryId, {
    pageSize: BACKUP_PAGE_SIZE,
    ...(kind === 'increment' ? { ingestionId: job.ingestionId } : {}),
  });
  const body = createGzip();
  const [produced, stored] = await Promise.allSettled([
    pipeline(backupJson(pages, head, counted), body),
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

/** The text of `JSON.stringify({ ...head, chunks })`, made one page of chunks at a time. */
async function* backupJson(
  pages: AsyncIterable<StoredChunk[]>,
  head: object,
  counted: { chunks: number },
): AsyncGenerator<string> {
  // Everything up to the chunks array's closing `]}`, as JSON.stringify writes it.
  yield JSON.stringify({ ...head, chunks: [] }).slice(0, -2);
  for await (const page of pages) {
    yield (counted.chunks > 0 ? ',' : '') + page.map(serializeChunk).join(',');
    counted.chunks += page.length;
  }
  yield ']}';
}

/** A chunk as a backup keeps it: as stored, with its place in the library, without the token bookkeeping. */
function serializeChunk({ bpeTokens: _bpeTokens, ...chunk }: StoredChunk): string {
  return JSON.stringify(chunk);
}
