import path from 'node:path';
import type { Config } from '@docshelf/config';
import type {
  BackupStorage,
  UploadStore,
  LibrarySourceStore,
  Embedder,
  JobStore,
  KeywordIndex,
  LibraryStore,
  LibrarySwap,
  AccountStore,
  RecordDatabase,
  StagingStore,
  VectorIndex,
} from '@docshelf/core';
import { BackupStorageUploadStore } from './backup-storage.upload-store';
import { FsBackupStorage } from './fs.backup-storage';
import { loadGeneralModel } from './local-lsi/general-model';
import { LocalLsiEmbedder } from './local-lsi.embedder';
import { LocalEmbedder } from './local.embedder';
import type { MongoRecordStores } from './mongo.record-stores';
import { openSqliteDatabase, type Database } from './sqlite.database';
import { SqliteFtsKeywordIndex } from './sqlite-fts.keyword-index';
import { SqliteJobStore } from './sqlite.job-store';
import { SqliteLibrarySwap } from './sqlite.library-swap';
import { SqliteRecordStores } from './sqlite.record-stores';
import { SqliteVecVectorIndex } from './sqlite-vec.vector-index';
import { StepwiseLibrarySwap } from './stepwise.library-swap';

export interface Adapters {
  /** Libraries and their chunks. */
  libraries: LibraryStore;
  /** The dashboard's users, sessions and API keys. */
  accounts: AccountStore;
  /** What ingestions and crawls keep between their steps. */
  staging: StagingStore;
  /** The database the three stores above live in, checked and closed as one. */
  records: RecordDatabase;
  /** Keyword search over the library store's chunks, kept in step with its writes by the store's own engine. */
  keywords: KeywordIndex;
  vectors: VectorIndex;
  backups: BackupStorage;
  /** Uploaded archives waiting for their job, in the backup storage. */
  uploads: UploadStore;
  /** How each library was last crawled, for refreshes. */
  sources: LibrarySourceStore;
  /** The embedder new vectors are made with. */
  embedder: Embedder;
  /** Every embedder this service can run, the configured one first: questions to a library are embedded by its own. */
  embedders: Embedder[];
  /** Job records, beside the library records (same engine as `records`). */
  jobStore: JobStore;
  /** Swaps a replacement built under a staging id into its library (one transaction on the embedded engines). */
  swap: LibrarySwap;
  close(): Promise<void>;
}

type AdapterConfig = Pick<Config, 'dataDir' | 'embedding' | 'adapters'>;

/** The one place that picks adapters from config: embedded engines by default, production ones where configured. */
export function buildAdapters(config: AdapterConfig): Adapters {
  const choice = config.adapters;
  // SQLite is opened only when some port still uses it.
  let db: Database | undefined;
  const sqlite = () => (db ??= openSqliteDatabase(path.join(config.dataDir, 'docshelf.sqlite')));

  const mongo =
    choice.records.kind === 'mongo' ? new (loadMongo().MongoRecordStores)({ uri: choice.records.uri }) : undefined;
  const records = mongo ?? new SqliteRecordStores(sqlite());
  const embedders = buildEmbedders(config, records);
  const embedder = embedders[0]!;
  const mongoJobs =
    choice.records.kind === 'mongo' ? new (loadMongoJobs().MongoJobStore)({ uri: choice.records.uri }) : undefined;
  const jobStore = mongoJobs ?? new SqliteJobStore(sqlite());
  const keywords =
    mongo && choice.records.kind === 'mongo'
      ? new (loadMongoSearch().MongoKeywordIndex)(mongo.database, { atlasSearchIndex: choice.records.atlasSearchIndex })
      : new SqliteFtsKeywordIndex(sqlite());
  const vectors =
    choice.vectors.kind === 'pinecone'
      ? new (loadPinecone().PineconeVectorIndex)({ ...choice.vectors, dimensions: embedder.dimensions })
      : new SqliteVecVectorIndex(sqlite(), embedder.dimensions, {
          cacheBytes: config.embedding.vectorCacheBytes,
          graphMinVectors: config.embedding.graphMinVectors,
        });
  const backups =
    choice.backups.kind === 'gcs'
      ? new (loadGcs().GcsBackupStorage)(choice.backups)
      : new FsBackupStorage(path.join(config.dataDir, 'backups'));
  const uploads = new BackupStorageUploadStore(backups);
  const swap =
    records instanceof SqliteRecordStores && vectors instanceof SqliteVecVectorIndex
      ? new SqliteLibrarySwap(sqlite(), records.libraries, vectors)
      : new StepwiseLibrarySwap(records.libraries, vectors);
  return {
    libraries: records.libraries,
    accounts: records.accounts,
    staging: records.staging,
    sources: records.sources,
    records,
    keywords,
    swap,
    vectors,
    backups,
    uploads,
    embedder,
    embedders,
    jobStore,
    close: async () => {
      await vectors.close();
      await records.close();
      await mongoJobs?.close();
      db?.close();
    },
  };
}

/** The configured embedder first, then the local ones, which cost nothing to keep: libraries they embedded stay searchable. */
function buildEmbedders(config: AdapterConfig, records: SqliteRecordStores | MongoRecordStores): Embedder[] {
  const dimensions = config.embedding.dimensions;
  const lsiDeps = {
    states: records.embedderStates,
    libraries: records.libraries,
    cacheBytes: config.embedding.modelCacheBytes,
  };
  const lsi = new LocalLsiEmbedder(lsiDeps, dimensions);
  // Loads its model on first use, so keeping it costs nothing until a library it embedded is searched.
  const general = new LocalLsiEmbedder({ ...lsiDeps, general: loadGeneralModel }, dimensions);
  const hash = new LocalEmbedder(dimensions);
  const choice = config.adapters.embedder;
  if (choice.kind === 'openai') return [new (loadOpenAi().OpenAiEmbedder)(choice), lsi, general, hash];
  if (choice.kind === 'local-hash') return [hash, lsi, general];
  return choice.kind === 'local-general' ? [general, lsi, hash] : [lsi, general, hash];
}

// Production adapters load only when selected: their SDKs add about half a second to every process start. `require`,
// not `import()`: the choice is made while adapters are built, synchronously.
/* eslint-disable @typescript-eslint/no-require-imports */
const loadMongo = () => require('./mongo.record-stores') as typeof import('./mongo.record-stores');
const loadMongoSearch = () => require('./mongo.keyword-index') as typeof import('./mongo.keyword-index');
const loadMongoJobs = () => require('./mongo.job-store') as typeof import('./mongo.job-store');
const loadPinecone = () => require('./pinecone.vector-index') as typeof import('./pinecone.vector-index');
const loadGcs = () => require('./gcs.backup-storage') as typeof import('./gcs.backup-storage');
const loadOpenAi = () => require('./openai.embedder') as typeof import('./openai.embedder');
/* eslint-enable @typescript-eslint/no-require-imports */
