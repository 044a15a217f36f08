import { describeEmbedderStateStoreContract } from '@docshelf/testing/contracts/embedder-state-store.contract';
import { describeRecordStoresContract } from '@docshelf/testing/contracts/record-stores.contract';
import { MongoRecordStores } from './mongo.record-stores';
import { announceContractTarget } from '@docshelf/testing/targets/announce-target';
import { mongoTarget } from '@docshelf/testing/targets/mongo-target';

const mongo = mongoTarget();
afterAll(async () => mongo.stop());

if (mongo.description) {
  announceContractTarget('RecordStores', 'mongo (mongoose)', mongo.description);
  describeRecordStoresContract('mongo', async () => {
    // A database per test: a fresh, empty store without touching anyone else's data.
    const db = await mongo.freshDatabase();
    const store = new MongoRecordStores({ uri: db.uri, dbName: db.dbName });
    return {
      stores: store,
      cleanup: async () => {
        await db.drop();
        await store.close();
      },
    };
  });
  announceContractTarget('EmbedderStateStore', 'mongo (mongoose)', mongo.description);
  describeEmbedderStateStoreContract('mongo', async () => {
    const db = await mongo.freshDatabase();
    const store = new MongoRecordStores({ uri: db.uri, dbName: db.dbName });
    return {
      states: store.embedderStates,
      libraries: store.libraries,
      cleanup: async () => {
        await db.drop();
        await store.close();
      },
    };
  });
} else {
  const reason = mongo.skipReason;
  announceContractTarget('RecordStores', 'mongo (mongoose)', reason);
  announceContractTarget('EmbedderStateStore', 'mongo (mongoose)', reason);
  describe.skip(`RecordStores and EmbedderStateStore contracts: mongo — ${reason}`, () => {
    it('runs against a real MongoDB replica set', () => {});
  });
}
