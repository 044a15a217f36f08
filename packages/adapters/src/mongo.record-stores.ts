import type { RecordStores } from '@docshelf/core';
import { MongoAccountStore } from './mongo.account-store';
import { MongoEmbedderStateStore } from './mongo.embedder-state-store';
import { MongoLibrarySourceStore } from './mongo.library-source-store';
import { MongoLibraryStore } from './mongo.library-store';
import { MongoRecordDatabase, type MongoRecordDatabaseOptions } from './mongo.record-database';
import { MongoStagingStore } from './mongo.staging-store';

/** The record stores on MongoDB via mongoose: one per port, over one connection, and the embedder states. */
export class MongoRecordStores implements RecordStores {
  readonly database: MongoRecordDatabase;
  readonly libraries: MongoLibraryStore;
  readonly accounts: MongoAccountStore;
  readonly staging: MongoStagingStore;
  readonly embedderStates: MongoEmbedderStateStore;
  readonly sources: MongoLibrarySourceStore;

  constructor(options: MongoRecordDatabaseOptions) {
    this.database = new MongoRecordDatabase(options);
    this.libraries = new MongoLibraryStore(this.database);
    this.accounts = new MongoAccountStore(this.database);
    this.staging = new MongoStagingStore(this.database);
    this.embedderStates = new MongoEmbedderStateStore(this.database);
    this.sources = new MongoLibrarySourceStore(this.database);
  }

  ping(): Promise<void> {
    return this.database.ping();
  }

  close(): Promise<void> {
    return this.database.close();
  }
}
