// Kept out of the package index because these declare jest suites.
export { describeRecordStoresContract, type RecordStoresHarness } from './record-stores.contract';
export { describeLibraryStoreContract } from './library-store.contract';
export { describeAccountStoreContract } from './account-store.contract';
export { describeStagingStoreContract } from './staging-store.contract';
export { describeVectorIndexContract, type VectorIndexHarness } from './vector-index.contract';
export { describeBackupStorageContract, type BackupStorageHarness } from './backup-storage.contract';
export { describeEmbedderContract, type EmbedderHarness } from './embedder.contract';
export { describeEmbedderStateStoreContract, type EmbedderStateStoreHarness } from './embedder-state-store.contract';
export { describeKeywordIndexContract, type KeywordIndexHarness } from './keyword-index.contract';
export { describeJobStoreContract, type JobStoreHarness } from './job-store.contract';
