import type { BackupStorage, CallbackSender, Embedder, JobStore, LibrarySwap, PageLoader, RecordStore, VectorIndex } from '@docshelf/core';

export interface WorkerDeps {
  records: RecordStore;
  vectors: VectorIndex;
  backups: BackupStorage;
  embedder: Embedder;
  jobStore: JobStore;
  /** Swaps a replacement built under a staging id into its library. */
  swap: LibrarySwap;
  /** Fetches and renders pages for crawls and URL ingestion, each within PAGE_TIMEOUT_MS. */
  pages: PageLoader;
  callbacks: CallbackSender;
  /** WEBHOOK_SECRET: signs callbacks; without it none is sent. */
  webhookSecret?: string;
}
