import type { RecordStores } from '@docshelf/core';
import type { Database } from './sqlite.database';
import { SqliteAccountStore } from './sqlite.account-store';
import { SqliteLibrarySourceStore } from './sqlite.library-source-store';
import { SqliteEmbedderStateStore } from './sqlite.embedder-state-store';
import { SqliteLibraryStore } from './sqlite.library-store';
import { SqliteStagingStore } from './sqlite.staging-store';

export interface SqliteRecordStoresOptions {
  /** When true close() closes the Database; leave false when the vector index shares it. */
  ownsDatabase?: boolean;
}

/**
 * The record stores on the embedded SQLite file opened by openSqliteDatabase: one per port, over one connection, and
 * the embedder states kept with the libraries.
 */
export class SqliteRecordStores implements RecordStores {
  readonly libraries: SqliteLibraryStore;
  readonly accounts: SqliteAccountStore;
  readonly staging: SqliteStagingStore;
  readonly embedderStates: SqliteEmbedderStateStore;
  readonly sources: SqliteLibrarySourceStore;
  private readonly ownsDatabase: boolean;

  constructor(
    private readonly db: Database,
    options: SqliteRecordStoresOptions = {},
  ) {
    this.libraries = new SqliteLibraryStore(db);
    this.accounts = new SqliteAccountStore(db);
    this.staging = new SqliteStagingStore(db);
    this.embedderStates = new SqliteEmbedderStateStore(db);
    this.sources = new SqliteLibrarySourceStore(db);
    this.ownsDatabase = options.ownsDatabase ?? false;
  }

  async ping(): Promise<void> {
    this.db.prepare('SELECT 1').get();
  }

  async close(): Promise<void> {
    if (this.ownsDatabase && this.db.open) this.db.close();
  }
}
