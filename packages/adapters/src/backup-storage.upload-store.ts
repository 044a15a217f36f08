import type { BackupStorage, UploadStore } from '@docshelf/core';

/** Uploads are grouped apart from every library's backups: library ids cannot start with `~`. */
const UPLOADS_GROUP = '~upload/';
const OBJECT = 'archive';
const UPLOAD_ID = /^[0-9a-f-]{36}$/;

/**
 * UploadStore in the backup storage (the data folder's `backups`, or the GCS bucket), the one store the API and every
 * worker share wherever they run: each upload an object of a group of its own, so removing it is removing the group.
 */
export class BackupStorageUploadStore implements UploadStore {
  constructor(private readonly storage: BackupStorage) {}

  put(uploadId: string, body: AsyncIterable<Uint8Array>): Promise<void> {
    return this.storage.put(groupOf(uploadId), OBJECT, body);
  }

  async read(uploadId: string): Promise<Buffer | null> {
    const group = groupOf(uploadId);
    if (!(await this.storage.list(group)).includes(OBJECT)) return null;
    return this.storage.read(group, OBJECT);
  }

  async remove(uploadId: string): Promise<void> {
    await this.storage.deleteAll(groupOf(uploadId));
  }
}

function groupOf(uploadId: string): string {
  if (!UPLOAD_ID.test(uploadId)) throw new Error(`invalid upload id: '${uploadId}'`);
  return UPLOADS_GROUP + uploadId;
}
