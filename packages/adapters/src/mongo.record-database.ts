import mongoose, { type Connection } from 'mongoose';
import { defineMongoModels, type MongoModels } from './mongo.models';

export interface MongoRecordDatabaseOptions {
  uri: string;
  /** Overrides the database named in the URI (tests use one database each). */
  dbName?: string;
}

let sequence = 0;
/** Increasing within a process and roughly across processes: orders keys and staged pages written in one millisecond. */
export const nextSeq = () => Date.now() * 1_024 + (sequence++ % 1_024);

export function isDuplicateKey(error: unknown): boolean {
  return (error as { code?: number } | null)?.code === 11000;
}

/**
 * One connection to the record database and its models, shared by the record stores. Ingestion commits, swaps and
 * library deletes run in multi-document transactions, so a reader sees a library entirely before or entirely after
 * them; MongoDB offers those on replica sets and sharded clusters only (a single-node replica set is enough), which
 * whenReady checks on first use.
 */
export class MongoRecordDatabase {
  readonly connection: Connection;
  readonly models: MongoModels;
  private ready?: Promise<void>;

  constructor(options: MongoRecordDatabaseOptions) {
    this.connection = mongoose.createConnection(options.uri, {
      ...(options.dbName ? { dbName: options.dbName } : {}),
      serverSelectionTimeoutMS: 10_000,
    });
    this.models = defineMongoModels(this.connection);
  }

  /** The chunks collection with its indexes built, for a keyword index that searches what the library store writes. */
  async chunkModel(): Promise<MongoModels['chunks']> {
    await this.whenReady();
    return this.models.chunks;
  }

  async ping(): Promise<void> {
    await this.connection.asPromise();
    await this.connection.db!.admin().ping();
  }

  async close(): Promise<void> {
    await this.connection.close();
  }

  /** Connects, builds the indexes and checks that the server can run transactions, once. */
  whenReady(): Promise<void> {
    this.ready ??= (async () => {
      await this.connection.asPromise();
      const hello = await this.connection.db!.admin().command({ hello: 1 });
      if (!hello.setName && hello.msg !== 'isdbgrid') {
        throw new Error(
          'MongoDB record store needs transactions: run MongoDB as a replica set (one node is enough) or a sharded cluster',
        );
      }
      await Promise.all(Object.values(this.models).map((model) => model.init()));
    })().catch((error: unknown) => {
      this.ready = undefined;
      throw error;
    });
    return this.ready;
  }
}
