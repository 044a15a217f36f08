import fs from 'node:fs';
import path from 'node:path';
import { describeBackupStorageContract, failHalfway } from '@docshelf/testing/contracts/backup-storage.contract';
import { FsBackupStorage } from './fs.backup-storage';
import { createTempDir } from '@docshelf/testing/targets/temp-dir';
import { announceContractTarget } from '@docshelf/testing/targets/announce-target';

announceContractTarget('BackupStorage', 'fs', 'real files in a temp dir');
describeBackupStorageContract('FsBackupStorage', async () => {
  const { dir, removeDir } = createTempDir();
  return { storage: new FsBackupStorage(path.join(dir, 'backups')), cleanup: async () => removeDir() };
});

describe('FsBackupStorage layout', () => {
  let dir: string;
  let removeDir: () => void;

  beforeEach(() => {
    ({ dir, removeDir } = createTempDir());
  });

  afterEach(() => {
    removeDir();
  });

  it('keeps each library in one encoded directory and leaves no temp files', async () => {
    const storage = new FsBackupStorage(dir);
    await storage.put('vercel/next.js', 'a.gz', Buffer.from('x'));
    expect(fs.readdirSync(dir)).toEqual(['vercel%2Fnext.js']);
    expect(fs.readdirSync(path.join(dir, 'vercel%2Fnext.js'))).toEqual(['a.gz']);
  });

  it('removes the temp file of a body that fails halfway', async () => {
    const storage = new FsBackupStorage(dir);
    await storage.put('lib', 'a.gz', Buffer.from('x'));
    await expect(storage.put('lib', 'a.gz', failHalfway())).rejects.toThrow('source failed halfway');
    await expect(storage.put('lib', 'b.gz', failHalfway())).rejects.toThrow('source failed halfway');
    expect(fs.readdirSync(path.join(dir, 'lib'))).toEqual(['a.gz']);
  });

  it('ignores stray files that are not valid object names', async () => {
    const storage = new FsBackupStorage(dir);
    await storage.put('lib', 'a.gz', Buffer.from('x'));
    fs.writeFileSync(path.join(dir, 'lib', 'a.gz~crashed.tmp'), 'partial');
    expect(await storage.list('lib')).toEqual(['a.gz']);
  });

  it.each(['..', '.'])('rejects the library id %j that would escape the root', async (libraryId) => {
    const storage = new FsBackupStorage(path.join(dir, 'backups'));
    await expect(storage.put(libraryId, 'a.gz', Buffer.from('x'))).rejects.toThrow(/invalid library id/);
    await expect(storage.deleteAll(libraryId)).rejects.toThrow(/invalid library id/);
  });
});
