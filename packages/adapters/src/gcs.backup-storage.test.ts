import { randomBytes } from 'node:crypto';
import { describeBackupStorageContract } from '@docshelf/testing/contracts/backup-storage.contract';
import { GcsBackupStorage } from './gcs.backup-storage';
import { announceContractTarget } from '@docshelf/testing/targets/announce-target';
import { startGcsEmulator, type GcsEmulator } from '@docshelf/testing/fakes/gcs-emulator';

let emulator: GcsEmulator | undefined;

/** One emulator per file, a fresh bucket per test. */
async function freshStorage(): Promise<{ storage: GcsBackupStorage; bucket: string }> {
  if (!emulator) {
    emulator = await startGcsEmulator();
    announceContractTarget('BackupStorage', 'gcs (official SDK)', `emulator: ${emulator.description}`);
  }
  const bucket = `docshelf-test-${randomBytes(4).toString('hex')}`;
  await emulator.createBucket(bucket);
  return {
    storage: new GcsBackupStorage({ bucket, projectId: 'demo-docshelf', apiEndpoint: emulator.endpoint }),
    bucket,
  };
}

afterAll(async () => {
  await emulator?.stop();
});

describeBackupStorageContract('gcs against a GCS-API emulator', async () => {
  const { storage } = await freshStorage();
  return { storage, cleanup: async () => {} };
});

describe('GcsBackupStorage on the emulator', () => {
  it('pages through more objects than one list page holds', async () => {
    const { storage } = await freshStorage();
    const names = Array.from({ length: 1_030 }, (_, i) => `${String(i).padStart(5, '0')}.json.gz`);
    for (let i = 0; i < names.length; i += 50) {
      await Promise.all(names.slice(i, i + 50).map((name) => storage.put('lib', name, Buffer.from(name))));
    }
    expect(await storage.list('lib')).toEqual(names);
    expect(await storage.deleteAll('lib')).toBe(1_030);
    expect(await storage.list('lib')).toEqual([]);
  }, 120_000);
});
