import { randomBytes } from 'node:crypto';
import mongoose from 'mongoose';
import { detectContainerRuntimeSync } from './container-runtime';

const MONGO_IMAGE = 'mongo:7';

export interface MongoTarget {
  /** What the suite runs against, for the test log; undefined when no server can be had. */
  description?: string;
  /** Why the suite is skipped when there is no server. */
  skipReason: string;
  /** A fresh database per call, on MONGODB_URI or one mongo:7 replica-set container shared by the file. */
  freshDatabase(): Promise<{ uri: string; dbName: string; drop(): Promise<void> }>;
  /** Stops the container, if the file started one (call in afterAll). */
  stop(): Promise<void>;
}

/** The MongoDB server a test file may use: MONGODB_URI when set, else testcontainers where a container runtime exists. */
export function mongoTarget(): MongoTarget {
  const givenUri = process.env.MONGODB_URI;
  const runtime = givenUri ? undefined : detectContainerRuntimeSync();
  let stopContainer: (() => Promise<void>) | undefined;
  let uri: Promise<string> | undefined;
  const serverUri = () =>
    (uri ??= givenUri
      ? Promise.resolve(givenUri)
      : (async () => {
          const { MongoDBContainer } = await import('@testcontainers/mongodb');
          const container = await new MongoDBContainer(MONGO_IMAGE).start();
          stopContainer = async () => void (await container.stop());
          return `${container.getConnectionString()}?directConnection=true`;
        })());
  return {
    description: givenUri
      ? 'real server at MONGODB_URI'
      : runtime?.available
        ? `real server: ${MONGO_IMAGE} replica set via testcontainers`
        : undefined,
    skipReason: `skipped: no MONGODB_URI and ${runtime && !runtime.available ? runtime.reason : 'no container runtime'}`,
    async freshDatabase() {
      const dbName = `docshelf_test_${randomBytes(4).toString('hex')}`;
      const serverAt = await serverUri();
      return {
        uri: serverAt,
        dbName,
        drop: async () => {
          const admin = mongoose.createConnection(serverAt, { dbName });
          await admin.asPromise();
          await admin.dropDatabase();
          await admin.close();
        },
      };
    },
    stop: async () => stopContainer?.(),
  };
}
