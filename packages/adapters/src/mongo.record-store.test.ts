import { describeEmbedderStateStoreContract } from './contracts/embedder-state-store.contract';
import { describeRecordStoreContract } from './contracts/record-store.contract';
import { MongoRecordStore } from './mongo.record-store';
import { announceContractTarget } from './testing/announce-target';
import { mongoTarget } from './testing/mongo-target';

const mongo = mongoTarget();
afterAll(async () => mongo.stop());

if (mongo.description) {
  announceContractTarget('RecordStore', 'mongo (mongoose)', mongo.description);
  describeRecordStoreContract('mongo', async () => {
    // A database per test: a fresh, empty store without touching anyone else's data.
    const db = await mongo.freshDatabase();
    const store = new MongoRecordStore({ uri: db.uri, dbName: db.dbName });
    return {
      store,
      cleanup: async () => {
        await db.drop();
        await store.close();
      },
    };
  });
  announceContractTarget('EmbedderStateStore', 'mongo (mongoose)', mongo.description);
  describeEmbedderStateStoreContract('mongo', async () => {
    const db = await mongo.freshDatabase();
    const store = new MongoRecordStore({ uri: db.uri, dbName: db.dbName });
    return {
      states: store,
      records: store,
      cleanup: async () => {
        await db.drop();
        await store.close();
      },
    };
  });
} else {
  const reason = mongo.skipReason;
  announceContractTarget('RecordStore', 'mongo (mongoose)', reason);
  announceContractTarget('EmbedderStateStore', 'mongo (mongoose)', reason);
  describe.skip(`RecordStore and EmbedderStateStore contracts: mongo — ${reason}`, () => {
    it('runs against a real MongoDB replica set', () => {});
  });
}
