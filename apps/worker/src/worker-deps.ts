import type { BackupStorage, Embedder, JobRunner, RecordStore, VectorIndex } from '@docshelf/core';
import type { AddressPolicy, BrowserPool } from '@docshelf/crawler';

export interface WorkerDeps {
  records: RecordStore;
  vectors: VectorIndex;
  backups: BackupStorage;
  embedder: Embedder;
  /** Lets the crawl coordinator fan pages out to the crawl queue. */
  jobs: JobRunner;
  policy: AddressPolicy;
  browser: () => BrowserPool;
  pageTimeoutMs: number;
  crawlWaitMs: number;
}
