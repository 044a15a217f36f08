export { openSqliteDatabase, migrateSchema, type Database } from './sqlite.database';
export { SqliteRecordStores, type SqliteRecordStoresOptions } from './sqlite.record-stores';
export { SqliteJobStore } from './sqlite.job-store';
export { SqliteVecVectorIndex, type SqliteVecVectorIndexOptions } from './sqlite-vec.vector-index';
export { FsBackupStorage } from './fs.backup-storage';
export { LocalEmbedder } from './local.embedder';
export { buildAdapters, type Adapters } from './build-adapters';
export { SqliteFtsKeywordIndex, type SqliteFtsKeywordIndexOptions } from './sqlite-fts.keyword-index';
export type { PrunedPlan } from './sqlite-fts.pruned-search';
