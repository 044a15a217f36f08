import { describeAccountStoreContract } from './account-store.contract';
import { describeLibraryStoreContract } from './library-store.contract';
import type { RecordStoreHarness } from './record-fixtures';
import { describeStagingStoreContract } from './staging-store.contract';

export type { RecordStoreHarness } from './record-fixtures';

/**
 * Behaviour every RecordStore adapter must show: the contracts of its three ports (libraries, accounts, staging) and
 * its health check. `create` returns a fresh, empty store per test.
 */
export function describeRecordStoreContract(label: string, create: () => Promise<RecordStoreHarness>): void {
  describeLibraryStoreContract(label, create);
  describeAccountStoreContract(label, create);
  describeStagingStoreContract(label, create);

  describe(`RecordStore contract: ${label}`, () => {
    let harness: RecordStoreHarness;

    beforeEach(async () => {
      harness = await create();
    });

    afterEach(async () => {
      await harness.cleanup();
    });

    it('answers ping', async () => {
      await expect(harness.store.ping()).resolves.toBeUndefined();
    });
  });
}
