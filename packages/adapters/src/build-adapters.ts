import path from 'node:path';
import type { Config } from '@docshelf/config';
import type { BackupStorage, Embedder, JobStore, RecordStore, VectorIndex } from '@docshelf/core';
import { FsBackupStorage } from './fs.backup-storage';
import { LocalEmbedder } from './local.embedder';
import { openSqliteDatabase, type Database } from './sqlite.database';
import { SqliteJobStore } from './sqlite.job-store';
import { SqliteRecordStore } from './sqlite.record-store';
import { SqliteVecVectorIndex } from './sqlite-vec.vector-index';

export interface Adapters {
  records: RecordStore;
  vectors: VectorIndex;
  backups: BackupStorage;
  embedder: Embedder;
  /** Job records, beside the library records (same engine as `records`). */
  jobStore: JobStore;
  close(): Promise<void>;
}

type AdapterConfig = Pick<Config, 'dataDir' | 'embedding' | 'adapters'>;

/** The one place that picks adapters from config: embedded engines by default, production ones where configured. */
export function buildAdapters(config: AdapterConfig): Adapters {
  const choice = config.adapters;
  // SQLite is opened only when some port still uses it.
  let db: Database | undefined;
  const sqlite = () => (db ??= openSqliteDatabase(path.join(config.dataDir, 'docshelf.sqlite')));

  const embedder = buildEmbedder(config);
  const records = choice.records.kind === 'mongo' ? new (loadMongo().MongoRecordStore)({ uri: choice.records.uri }) : new SqliteRecordStore(sqlite());
  const mongoJobs = choice.records.kind === 'mongo' ? new (loadMongoJobs().MongoJobStore)({ uri: choice.records.uri }) : undefined;
  const jobStore = mongoJobs ?? new SqliteJobStore(sqlite());
  const vectors =
    choice.vectors.kind === 'pinecone'
      ? new (loadPinecone().PineconeVectorIndex)({ ...choice.vectors, dimensions: embedder.dimensions })
      : new SqliteVecVectorIndex(sqlite(), embedder.dimensions);
  const backups =
    choice.backups.kind === 'gcs'
      ? new (loadGcs().GcsBackupStorage)(choice.backups)
      : new FsBackupStorage(path.join(config.dataDir, 'backups'));
  return {
    records,
    vectors,
    backups,
    embedder,
    jobStore,
    close: async () => {
      await vectors.close();
      await records.close();
      await mongoJobs?.close();
      db?.close();
    },
  };
}

function buildEmbedder(config: AdapterConfig): Embedder {
  const choice = config.adapters.embedder;
  if (choice.kind === 'openai') return new (loadOpenAi().OpenAiEmbedder)(choice);
  return new LocalEmbedder(config.embedding.dimensions);
}

// Production adapters load only when selected: their SDKs add about half a second to every process start.
const loadMongo = () => require('./mongo.record-store') as typeof import('./mongo.record-store');
const loadMongoJobs = () => require('./mongo.job-store') as typeof import('./mongo.job-store');
const loadPinecone = () => require('./pinecone.vector-index') as typeof import('./pinecone.vector-index');
const loadGcs = () => require('./gcs.backup-storage') as typeof import('./gcs.backup-storage');
const loadOpenAi = () => require('./openai.embedder') as typeof import('./openai.embedder');
