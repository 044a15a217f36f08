import path from 'node:path';
import { describeJobStoreContract } from '@docshelf/testing/contracts/job-store.contract';
import { openSqliteDatabase } from './sqlite.database';
import { SqliteJobStore } from './sqlite.job-store';
import { announceContractTarget } from '@docshelf/testing/targets/announce-target';
import { createTempDir } from '@docshelf/testing/targets/temp-dir';

announceContractTarget('JobStore', 'sqlite', 'real SQLite file (better-sqlite3) in a temp dir');
describeJobStoreContract('SqliteJobStore', async () => {
  const { dir, removeDir } = createTempDir();
  const db = openSqliteDatabase(path.join(dir, 'docshelf.db'));
  return {
    store: new SqliteJobStore(db),
    cleanup: async () => {
      db.close();
      removeDir();
    },
  };
});
