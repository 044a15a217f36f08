import { Errors, Pinecone, type Index, type PineconeRecord } from '@pinecone-database/pinecone';
import type { VectorIndex, VectorMatch, VectorRecord } from '@docshelf/core';
import { toChunkId, toVectorId } from './pinecone.vector-ids';

/** Pinecone's documented request limits. */
export const PINECONE_LIMITS = {
  maxRecordsPerUpsert: 1_000,
  /** 2 MB per request; batches aim a little lower since the SDK adds the envelope. */
  maxUpsertBytes: 2 * 1024 * 1024,
  maxIdsPerDelete: 1_000,
  maxTopK: 10_000,
};
const UPSERT_BYTE_BUDGET = PINECONE_LIMITS.maxUpsertBytes - 64 * 1024;
const FETCH_BATCH = 100;

export interface PineconeVectorIndexOptions {
  apiKey: string;
  /** Index name; resolved to its host through the control plane when no host is given. */
  indexName?: string;
  /** Data-plane host of the index (skips the control-plane lookup), e.g. https://docs-abc123.svc.pinecone.io. */
  indexHost?: string;
  /** Control-plane URL for a custom endpoint; api.pinecone.io when absent. */
  controllerHost?: string;
  dimensions: number;
}

type Metadata = { chunkId: string };

/**
 * VectorIndex on a Pinecone index (cosine metric): one namespace per library, named by the library id (ASCII and at
 * most 128 characters, within Pinecone's namespace rules), one record per chunk with a deterministic id.
 */
export class PineconeVectorIndex implements VectorIndex {
  readonly dimensions: number;
  private readonly index: Index<Metadata>;
  private dimensionCheck?: Promise<void>;

  constructor(options: PineconeVectorIndexOptions) {
    if (!options.indexName && !options.indexHost) throw new Error('Pinecone needs an index name or an index host');
    this.dimensions = options.dimensions;
    const client = new Pinecone({
      apiKey: options.apiKey,
      ...(options.controllerHost ? { controllerHostUrl: options.controllerHost } : {}),
    });
    this.index = client.index<Metadata>({ name: options.indexName, host: options.indexHost });
  }

  async upsert(libraryId: string, records: VectorRecord[]): Promise<void> {
    if (records.length === 0) return;
    // Everything is checked before the first request, so a bad vector writes nothing.
    records.forEach((record) => this.validateVector(record.values, `vector of chunk '${record.chunkId}'`));
    await this.checkIndexDimensions();
    const namespace = this.index.namespace(libraryId);
    for (const batch of batchUpsertRecords(records.map(toPineconeRecord))) await namespace.upsert({ records: batch });
  }

  async deleteChunks(libraryId: string, chunkIds: string[]): Promise<void> {
    const ids = [...new Set(chunkIds.map((chunkId) => toVectorId(chunkId).id))];
    const namespace = this.index.namespace(libraryId);
    for (let start = 0; start < ids.length; start += PINECONE_LIMITS.maxIdsPerDelete) {
      await ignoreNotFound(namespace.deleteMany({ ids: ids.slice(start, start + PINECONE_LIMITS.maxIdsPerDelete) }));
    }
  }

  async deleteLibrary(libraryId: string): Promise<void> {
    // A library that never had vectors has no namespace; deleting it is done already.
    await ignoreNotFound(this.index.deleteNamespace(libraryId));
  }

  async count(libraryId: string): Promise<number> {
    const stats = await this.index.describeIndexStats();
    return stats.namespaces?.[libraryId]?.recordCount ?? 0;
  }

  async query(libraryId: string, vector: number[], topK: number): Promise<VectorMatch[]> {
    this.validateVector(vector, 'query vector');
    if (topK < 1) return [];
    const response = await this.index.namespace(libraryId).query({
      vector,
      topK: Math.min(topK, PINECONE_LIMITS.maxTopK),
      includeValues: false,
      includeMetadata: true,
    });
    return response.matches.map((match) => ({ chunkId: toChunkId(match.id, match.metadata), score: match.score ?? 0 }));
  }

  async fetch(libraryId: string, chunkIds: string[]): Promise<Map<string, number[]>> {
    const found = new Map<string, number[]>();
    const ids = [...new Set(chunkIds.map((chunkId) => toVectorId(chunkId).id))];
    const namespace = this.index.namespace(libraryId);
    // Ids travel in the query string of a GET: keep each request's URL short.
    for (let start = 0; start < ids.length; start += FETCH_BATCH) {
      try {
        const { records } = await namespace.fetch({ ids: ids.slice(start, start + FETCH_BATCH) });
        for (const [id, record] of Object.entries(records)) {
          if (record.values) found.set(toChunkId(id, record.metadata), record.values);
        }
      } catch (error) {
        if (!(error instanceof Errors.PineconeNotFoundError)) throw error;
      }
    }
    return found;
  }

  async moveLibrary(from: string, to: string, chunkIds: string[]): Promise<void> {
    // Pinecone cannot rename a namespace: the vectors are read from one and written to the other.
    await this.deleteLibrary(to);
    for (let start = 0; start < chunkIds.length; start += FETCH_BATCH) {
      const found = await this.fetch(from, chunkIds.slice(start, start + FETCH_BATCH));
      await this.upsert(
        to,
        [...found].map(([chunkId, values]) => ({ chunkId, values })),
      );
    }
    await this.deleteLibrary(from);
  }

  async close(): Promise<void> {}

  private validateVector(values: number[], what: string): void {
    if (values.length !== this.dimensions)
      throw new Error(`${what} has ${values.length} dimensions, expected ${this.dimensions}`);
    if (!values.every(Number.isFinite)) throw new Error(`${what} has a value that is not a finite number`);
  }

  /** The index's dimension is fixed when it is created; a mismatch is reported once, clearly, instead of per request. */
  private checkIndexDimensions(): Promise<void> {
    this.dimensionCheck ??= this.index.describeIndexStats().then(
      (stats) => {
        if (stats.dimension !== undefined && stats.dimension !== this.dimensions) {
          throw new Error(`Pinecone index has ${stats.dimension} dimensions, the embedder produces ${this.dimensions}`);
        }
      },
      (error: unknown) => {
        this.dimensionCheck = undefined;
        throw error;
      },
    );
    return this.dimensionCheck;
  }
}

function toPineconeRecord(record: VectorRecord): PineconeRecord<Metadata> {
  const { id, hashed } = toVectorId(record.chunkId);
  return { id, values: record.values, ...(hashed ? { metadata: { chunkId: record.chunkId } } : {}) };
}

/** Groups records into upserts of at most 1,000 records and under 2 MB of JSON each. */
export function batchUpsertRecords<T extends PineconeRecord<Metadata>>(records: T[]): T[][] {
  const batches: T[][] = [];
  let current: T[] = [];
  let bytes = 0;
  for (const record of records) {
    const size = Buffer.byteLength(JSON.stringify(record)) + 1;
    if (
      current.length > 0 &&
      (current.length >= PINECONE_LIMITS.maxRecordsPerUpsert || bytes + size > UPSERT_BYTE_BUDGET)
    ) {
      batches.push(current);
      current = [];
      bytes = 0;
    }
    current.push(record);
    bytes += size;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

async function ignoreNotFound(operation: Promise<unknown>): Promise<void> {
  try {
    await operation;
  } catch (error) {
    if (!(error instanceof Errors.PineconeNotFoundError)) throw error;
  }
}
