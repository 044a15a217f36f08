import { spawn } from 'node:child_process';
import path from 'node:path';
import { openSqliteDatabase } from './sqlite.database';
import { createTempDir } from '@docshelf/testing/targets/temp-dir';

/** Opens the file from a separate Node process, as the API and the worker do at start-up. */
function openInChildProcess(file: string): Promise<void> {
  const script = `
    const { openSqliteDatabase } = require(${JSON.stringify(path.join(__dirname, 'sqlite.database.ts'))});
    const { SqliteVecVectorIndex } = require(${JSON.stringify(path.join(__dirname, 'sqlite-vec.vector-index.ts'))});
    const db = openSqliteDatabase(process.argv[1]);
    new SqliteVecVectorIndex(db, 16);
    db.close();
  `;
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--conditions=@docshelf/source', '--require', 'tsx/cjs', '-e', script, file],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (data: Buffer) => (stderr += data.toString()));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`child exited with ${code}: ${stderr}`))));
  });
}

describe('openSqliteDatabase', () => {
  let dir: string;
  let removeDir: () => void;

  beforeEach(() => {
    ({ dir, removeDir } = createTempDir());
  });

  afterEach(() => {
    removeDir();
  });

  it('creates the parent directory and configures the connection', () => {
    const db = openSqliteDatabase(path.join(dir, 'a', 'b', 'docshelf.db'));
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(db.pragma('busy_timeout', { simple: true })).toBe(5000);
    expect(db.pragma('synchronous', { simple: true })).toBe(1);
    expect(db.prepare('SELECT vec_version() AS v').get()).toEqual({ v: expect.stringMatching(/^v\d/) });
    db.close();
  });

  it('migrates idempotently when opened again', () => {
    const file = path.join(dir, 'docshelf.db');
    const first = openSqliteDatabase(file);
    const version = first.pragma('user_version', { simple: true });
    first.close();
    const second = openSqliteDatabase(file);
    expect(second.pragma('user_version', { simple: true })).toBe(version);
    const tables = (
      second.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]
    ).map((t) => t.name);
    expect(tables).toEqual(
      expect.arrayContaining(['libraries', 'chunks', 'users', 'sessions', 'api_keys', 'vector_keys', 'meta']),
    );
    second.close();
  });

  it('survives several processes migrating the same new file at once', async () => {
    const file = path.join(dir, 'docshelf.db');
    await Promise.all(Array.from({ length: 6 }, () => openInChildProcess(file)));
    const db = openSqliteDatabase(file);
    expect(db.prepare("SELECT value FROM meta WHERE key = 'vector_dimensions'").get()).toEqual({ value: '16' });
    db.close();
  });
});
