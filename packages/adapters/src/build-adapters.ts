import path from 'node:path';
import type { Config } from '@docshelf/config';
import type { BackupStorage, Embedder, RecordStore, VectorIndex } from '@docshelf/core';
import { FsBackupStorage } from './fs.backup-storage';
import { LocalEmbedder } from './local.embedder';
import { openSqliteDatabase } from './sqlite.database';
import { SqliteRecordStore } from './sqlite.record-store';
import { SqliteVecVectorIndex } from './sqlite-vec.vector-index';

export interface Adapters {
  records: RecordStore;
  vectors: VectorIndex;
  backups: BackupStorage;
  embedder: Embedder;
  close(): Promise<void>;
}

/** The one place that picks adapters from config. */
export function buildAdapters(config: Pick<Config, 'dataDir' | 'embedding'>): Adapters {
  const db = openSqliteDatabase(path.join(config.dataDir, 'docshelf.sqlite'));
  const embedder = new LocalEmbedder(config.embedding.dimensions);
  const records = new SqliteRecordStore(db);
  const vectors = new SqliteVecVectorIndex(db, embedder.dimensions);
  const backups = new FsBackupStorage(path.join(config.dataDir, 'backups'));
  return {
    records,
    vectors,
    backups,
    embedder,
    close: async () => {
      await vectors.close();
      await records.close();
      db.close();
    },
  };
}
