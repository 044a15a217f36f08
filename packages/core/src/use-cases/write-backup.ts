import { gzipSync } from 'node:zlib';
import type { JobPayload, JobResult } from '../jobs/registry';
import type { BackupStorage, RecordStore } from '../ports';

const PAGE_SIZE = 1_000;
export const BACKUP_FORMAT = 'docshelf-backup/v1';

/** A snapshot holds everything needed to restore the library without fetching anything again. */
export async function writeBackup(
  deps: { records: RecordStore; backups: BackupStorage; now?: () => Date },
  job: JobPayload<'write-backup'>,
): Promise<JobResult<'write-backup'>> {
  const library = await deps.records.getLibrary(job.libraryId);
  if (!library) return { written: false, chunks: 0 };
  const chunks = [];
  for (let offset = 0; ; offset += PAGE_SIZE) {
    const page = await deps.records.listChunks(job.libraryId, { offset, limit: PAGE_SIZE });
    chunks.push(...page.map(({ position: _position, bpeTokens: _bpeTokens, ...chunk }) => chunk));
    if (page.length < PAGE_SIZE) break;
  }
  const createdAt = (deps.now ?? (() => new Date()))().toISOString();
  const snapshot = { format: BACKUP_FORMAT, createdAt, ingestionId: job.ingestionId, library, chunks };
  // A retried job overwrites its own snapshot instead of adding a second one.
  const existing = (await deps.backups.list(job.libraryId)).find((n) => n.endsWith(`-${job.ingestionId}.json.gz`));
  const name = existing ?? `${createdAt.replace(/[:.]/g, '-')}-${job.ingestionId}.json.gz`;
  await deps.backups.put(job.libraryId, name, gzipSync(JSON.stringify(snapshot)));
  return { written: true, name, chunks: chunks.length };
}
