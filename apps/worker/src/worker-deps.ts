import type { BackupStorage, CallbackSender, Embedder, JobStore, PageLoader, RecordStore, VectorIndex } from '@docshelf/core';

export interface WorkerDeps {
  records: RecordStore;
  vectors: VectorIndex;
  backups: BackupStorage;
  embedder: Embedder;
  jobStore: JobStore;
  /** Fetches and renders pages for crawls and URL ingestion, each within PAGE_TIMEOUT_MS. */
  pages: PageLoader;
  callbacks: CallbackSender;
  /** WEBHOOK_SECRET: signs callbacks; without it none is sent. */
  webhookSecret?: string;
}
