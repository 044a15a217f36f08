import type { BackupStorage, Embedder, RecordStore, VectorIndex } from '@docshelf/core';

export interface WorkerDeps {
  records: RecordStore;
  vectors: VectorIndex;
  backups: BackupStorage;
  embedder: Embedder;
}
