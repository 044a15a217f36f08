import { describeAccountStoreContract } from './account-store.contract';
import { describeLibraryStoreContract } from './library-store.contract';
import type { RecordStoresHarness } from './record-fixtures';
import { describeStagingStoreContract } from './staging-store.contract';

export type { RecordStoresHarness } from './record-fixtures';

/**
 * Behaviour every adapter of the record stores must show: the contracts of its three ports (libraries, accounts, staging) and
 * its health check. `create` returns a fresh, empty store per test.
 */
export function describeRecordStoresContract(label: string, create: () => Promise<RecordStoresHarness>): void {
  describeLibraryStoreContract(label, create);
  describeAccountStoreContract(label, create);
  describeStagingStoreContract(label, create);

  describe(`RecordStores contract: ${label}`, () => {
    let harness: RecordStoresHarness;

    beforeEach(async () => {
      harness = await create();
    });

    afterEach(async () => {
      await harness.cleanup();
    });

    it('answers ping', async () => {
      await expect(harness.stores.ping()).resolves.toBeUndefined();
    });
  });
}
