import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { Storage } from '@google-cloud/storage';
import { detectContainerRuntime } from '../targets/container-runtime';

export interface GcsEmulator {
  /** Give this to the adapter as apiEndpoint (GCS_API_ENDPOINT / STORAGE_EMULATOR_HOST). */
  endpoint: string;
  /** What is serving the GCS JSON API, for the test log. */
  description: string;
  createBucket(name: string): Promise<void>;
  stop(): Promise<void>;
}

export const FIREBASE_TOOLS_VERSION = '15.34.2';
const FAKE_GCS_IMAGE = 'fsouza/fake-gcs-server:1.52.2';

/** fake-gcs-server in a container where a runtime exists, else firebase-tools' storage emulator in this process. */
export async function startGcsEmulator(): Promise<GcsEmulator> {
  const runtime = await detectContainerRuntime();
  if (runtime.available) return startFakeGcsServer();
  const emulator = await startFirebaseStorageEmulator();
  return { ...emulator, description: `${emulator.description}; fake-gcs-server not used: ${runtime.reason}` };
}

async function startFakeGcsServer(): Promise<GcsEmulator> {
  const { GenericContainer, Wait } = await import('testcontainers');
  const container = await new GenericContainer(FAKE_GCS_IMAGE)
    .withCommand(['-scheme', 'http', '-port', '4443', '-backend', 'memory'])
    .withExposedPorts(4443)
    .withWaitStrategy(Wait.forHttp('/storage/v1/b', 4443))
    .start();
  const endpoint = `http://${container.getHost()}:${container.getMappedPort(4443)}`;
  return {
    endpoint,
    description: `fake-gcs-server (${FAKE_GCS_IMAGE}) via testcontainers at ${endpoint}`,
    createBucket: async (name) => {
      await new Storage({ apiEndpoint: endpoint, projectId: 'test' }).createBucket(name);
    },
    stop: async () => {
      await container.stop();
    },
  };
}

interface FirebaseStorageEmulator {
  args: { port: number };
  _persistence: { reset(dir: string): void };
}

/**
 * firebase-tools' storage emulator serves the GCS JSON API (uploads, list with prefix and pages, download, delete)
 * and creates buckets on first use. Its full start() also launches the Java rules runtime it would download; the
 * GCS API never consults rules, so only its HTTP app is served here, on 127.0.0.1.
 */
async function startFirebaseStorageEmulator(): Promise<GcsEmulator> {
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { StorageEmulator } = require('firebase-tools/lib/emulator/storage') as {
    StorageEmulator: new (args: object) => FirebaseStorageEmulator;
  };
  const { createApp } = require('firebase-tools/lib/emulator/storage/server') as {
    createApp: (projectId: string, emulator: unknown) => Promise<http.RequestListener>;
  };
  const { EmulatorRegistry } = require('firebase-tools/lib/emulator/registry') as {
    EmulatorRegistry: { set(name: string, instance: unknown): void; clear(name: string): void };
  };
  const emulator = new StorageEmulator({ projectId: 'demo-docshelf', host: '127.0.0.1', port: 0, rules: [] });
  // Its default blob directory is shared by every emulator on the machine; each test process gets its own.
  const blobDir = fs.mkdtempSync(path.join(os.tmpdir(), 'docshelf-gcs-emulator-'));
  emulator._persistence.reset(blobDir);
  const server = http.createServer(await createApp('demo-docshelf', emulator));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  emulator.args.port = (server.address() as AddressInfo).port;
  // Object metadata links are built from the registered host and port.
  EmulatorRegistry.set('storage', emulator);
  const endpoint = `http://127.0.0.1:${emulator.args.port}`;
  return {
    endpoint,
    description: `firebase-tools ${FIREBASE_TOOLS_VERSION} storage emulator (GCS JSON API, in-process) at ${endpoint}`,
    createBucket: async () => {},
    stop: async () => {
      EmulatorRegistry.clear('storage');
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      fs.rmSync(blobDir, { recursive: true, force: true });
    },
  };
}
