import { randomBytes } from 'node:crypto';
import mongoose from 'mongoose';
import { describeJobStoreContract } from '@docshelf/testing/contracts/job-store.contract';
import { MongoJobStore } from './mongo.job-store';
import { announceContractTarget } from '@docshelf/testing/targets/announce-target';
import { detectContainerRuntimeSync } from '@docshelf/testing/targets/container-runtime';

const MONGO_IMAGE = 'mongo:7';
const givenUri = process.env.MONGODB_URI;
const runtime = givenUri ? undefined : detectContainerRuntimeSync();
const target = givenUri
  ? 'real server at MONGODB_URI'
  : runtime?.available
    ? `real server: ${MONGO_IMAGE} via testcontainers`
    : undefined;

let stopContainer: (() => Promise<void>) | undefined;
let uri: Promise<string> | undefined;

/** MONGODB_URI when given, else one container for the whole file. */
function serverUri(): Promise<string> {
  uri ??= givenUri
    ? Promise.resolve(givenUri)
    : (async () => {
        const { MongoDBContainer } = await import('@testcontainers/mongodb');
        const container = await new MongoDBContainer(MONGO_IMAGE).start();
        stopContainer = async () => void (await container.stop());
        return `${container.getConnectionString()}?directConnection=true`;
      })();
  return uri;
}

afterAll(async () => {
  await stopContainer?.();
});

if (target) {
  announceContractTarget('JobStore', 'mongo (mongoose)', target);
  describeJobStoreContract('mongo', async () => {
    const dbName = `docshelf_jobs_test_${randomBytes(4).toString('hex')}`;
    const store = new MongoJobStore({ uri: await serverUri(), dbName });
    return {
      store,
      cleanup: async () => {
        const admin = mongoose.createConnection(await serverUri(), { dbName });
        await admin.asPromise();
        await admin.dropDatabase();
        await admin.close();
        await store.close();
      },
    };
  });
} else {
  const reason = `skipped: no MONGODB_URI and ${runtime && !runtime.available ? runtime.reason : 'no container runtime'}`;
  announceContractTarget('JobStore', 'mongo (mongoose)', reason);
  describe.skip(`JobStore contract: mongo — ${reason}`, () => {
    it('runs against a real MongoDB server', () => {});
  });
}
