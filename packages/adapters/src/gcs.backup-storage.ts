import { Storage, type Bucket } from '@google-cloud/storage';
import pLimit from 'p-limit';
import type { BackupBody, BackupStorage } from '@docshelf/core';
import { libraryPrefixOf, validateBackupObjectName } from './backup-object-names';

export interface GcsBackupStorageOptions {
  bucket: string;
  projectId?: string;
  /** A GCS-API emulator (fake-gcs-server, firebase's storage emulator); Google's endpoint when absent. */
  apiEndpoint?: string;
}

/** BackupStorage on a Google Cloud Storage bucket: objects `<encodeURIComponent(libraryId)>/<name>`. */
export class GcsBackupStorage implements BackupStorage {
  private readonly bucket: Bucket;

  constructor(options: GcsBackupStorageOptions) {
    // Credentials come from Application Default Credentials (GOOGLE_APPLICATION_CREDENTIALS, workload identity);
    // the SDK sends none to a custom endpoint, which is what emulators expect.
    const storage = new Storage({
      ...(options.projectId ? { projectId: options.projectId } : {}),
      ...(options.apiEndpoint ? { apiEndpoint: options.apiEndpoint } : {}),
    });
    this.bucket = storage.bucket(options.bucket);
  }

  async put(libraryId: string, name: string, body: BackupBody): Promise<void> {
    const file = this.bucket.file(this.objectPath(libraryId, name));
    // A buffer goes up in one request; a stream in a resumable upload, whose object exists only once it is finalized
    // at the stream's end, so a stream that fails leaves nothing behind.
    await file.save(body, {
      resumable: !Buffer.isBuffer(body),
      contentType: 'application/gzip',
      validation: 'crc32c',
    });
  }

  async list(libraryId: string): Promise<string[]> {
    const prefix = libraryPrefixOf(libraryId);
    const names: string[] = [];
    let pageToken: string | undefined;
    do {
      const [files, next] = await this.bucket.getFiles({ prefix, autoPaginate: false, maxResults: 1_000, pageToken });
      // Only direct children: a `/` after the prefix would be a deeper path nothing of ours writes.
      for (const file of files) {
        const name = file.name.slice(prefix.length);
        if (!name.includes('/')) names.push(name);
      }
      pageToken = (next as { pageToken?: string } | null)?.pageToken;
    } while (pageToken);
    return names.sort(compareCodeUnits);
  }

  async read(libraryId: string, name: string): Promise<Buffer> {
    try {
      const [body] = await this.bucket.file(this.objectPath(libraryId, name)).download();
      return body;
    } catch (error) {
      if ((error as { code?: number }).code === 404)
        throw new Error(`backup object '${name}' of library '${libraryId}' not found`, { cause: error });
      throw error;
    }
  }

  async deleteAll(libraryId: string): Promise<number> {
    const names = await this.list(libraryId);
    // A concurrent delete may have removed one already; it is gone either way.
    await pLimit(8).map(names, (name) =>
      this.bucket.file(this.objectPath(libraryId, name)).delete({ ignoreNotFound: true }),
    );
    return names.length;
  }

  private objectPath(libraryId: string, name: string): string {
    return `${libraryPrefixOf(libraryId)}${validateBackupObjectName(name)}`;
  }
}

function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
