import { startJsonServer, type JsonRequest, type JsonResponse } from './json-http-server';

/** Pinecone's documented data-plane limits, enforced as the real service does (400 Bad Request). */
export const PINECONE_FAKE_LIMITS = {
  maxUpsertRecords: 1_000,
  maxRequestBytes: 2 * 1024 * 1024,
  maxDeleteIds: 1_000,
  maxTopK: 10_000,
  maxIdLength: 512,
};

interface StoredVector {
  id: string;
  values: number[];
  metadata?: Record<string, unknown>;
}

export interface SeenPineconeRequest {
  method: string;
  path: string;
  status: number;
  bytes: number;
  records?: number;
  apiVersion?: string;
}

export interface PineconeFake {
  /** Data-plane host of the one index, also answering the control plane's GET /indexes/:name. */
  url: string;
  apiKey: string;
  indexName: string;
  dimension: number;
  requests: SeenPineconeRequest[];
  namespaces: Map<string, Map<string, StoredVector>>;
  close(): Promise<void>;
}

const error = (status: number, message: string): JsonResponse => ({
  status,
  body: { code: status === 404 ? 5 : 3, message, details: [] },
});

/**
 * HTTP fake of one Pinecone serverless index (cosine metric) on 127.0.0.1: the data-plane endpoints the SDK calls, with
 * the Api-Key check, the request limits (1,000 records and 2 MB per upsert, 1,000 ids per delete, topK ≤ 10,000),
 * id length, dimension and zero-vector checks, and 404 for a namespace that does not exist.
 */
export async function startPineconeFake(options: {
  dimension: number;
  apiKey?: string;
  indexName?: string;
}): Promise<PineconeFake> {
  const apiKey = options.apiKey ?? 'pc-fake-test-key';
  const indexName = options.indexName ?? 'docshelf-test';
  const namespaces = new Map<string, Map<string, StoredVector>>();
  const requests: SeenPineconeRequest[] = [];
  let url = '';

  const checkVector = (values: unknown, what: string): string | undefined => {
    if (!Array.isArray(values) || !values.every((v) => typeof v === 'number' && Number.isFinite(v)))
      return `${what}: values must be finite numbers`;
    if (values.length !== options.dimension)
      return `Vector dimension ${values.length} does not match the dimension of the index ${options.dimension}`;
    if (values.every((v) => v === 0)) return `${what}: dense vectors must contain at least one non-zero value`;
    return undefined;
  };

  const routes = (req: JsonRequest): JsonResponse => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const ns = typeof body.namespace === 'string' ? body.namespace : '';
    if (req.method === 'GET' && req.path === `/indexes/${indexName}`) {
      return {
        status: 200,
        body: {
          name: indexName,
          dimension: options.dimension,
          metric: 'cosine',
          host: url,
          status: { ready: true, state: 'Ready' },
          spec: { serverless: { cloud: 'aws', region: 'us-east-1' } },
          vector_type: 'dense',
          deletion_protection: 'disabled',
        },
      };
    }
    if (req.method === 'POST' && req.path === '/vectors/upsert') {
      if (req.rawBody.length > PINECONE_FAKE_LIMITS.maxRequestBytes)
        return error(400, `Request size ${req.rawBody.length} bytes exceeds the maximum supported size of 2MB`);
      const vectors = body.vectors;
      if (!Array.isArray(vectors) || vectors.length === 0)
        return error(400, 'vectors: at least one vector is required');
      if (vectors.length > PINECONE_FAKE_LIMITS.maxUpsertRecords)
        return error(
          400,
          `Request contains ${vectors.length} vectors, the maximum is ${PINECONE_FAKE_LIMITS.maxUpsertRecords}`,
        );
      for (const vector of vectors as StoredVector[]) {
        if (
          typeof vector.id !== 'string' ||
          vector.id.length === 0 ||
          vector.id.length > PINECONE_FAKE_LIMITS.maxIdLength
        )
          return error(400, `Vector ID must be 1 to 512 characters`);
        if (!/^[\x20-\x7e]*$/.test(vector.id)) return error(400, `Vector ID must be ASCII: ${vector.id}`);
        const problem = checkVector(vector.values, `vector ${vector.id}`);
        if (problem) return error(400, problem);
      }
      const store = namespaces.get(ns) ?? new Map<string, StoredVector>();
      namespaces.set(ns, store);
      for (const vector of vectors as StoredVector[])
        store.set(vector.id, { id: vector.id, values: vector.values, metadata: vector.metadata });
      return { status: 200, body: { upsertedCount: vectors.length } };
    }
    if (req.method === 'POST' && req.path === '/vectors/delete') {
      const store = namespaces.get(ns);
      if (!store) return error(404, `Namespace not found: ${ns}`);
      if (body.deleteAll === true) {
        namespaces.delete(ns);
        return { status: 200, body: {} };
      }
      const ids = body.ids;
      if (!Array.isArray(ids) || ids.length === 0) return error(400, 'ids, deleteAll or filter is required');
      if (ids.length > PINECONE_FAKE_LIMITS.maxDeleteIds)
        return error(400, `Request contains ${ids.length} ids, the maximum is ${PINECONE_FAKE_LIMITS.maxDeleteIds}`);
      for (const id of ids as string[]) store.delete(id);
      if (store.size === 0) namespaces.delete(ns);
      return { status: 200, body: {} };
    }
    if (req.method === 'DELETE' && req.path.startsWith('/namespaces/')) {
      const name = decodeURIComponent(req.path.slice('/namespaces/'.length));
      if (!namespaces.delete(name)) return error(404, `Namespace not found: ${name}`);
      return { status: 202, body: {} };
    }
    if (req.method === 'POST' && req.path === '/query') {
      const topK = body.topK;
      if (!Number.isInteger(topK) || (topK as number) < 1 || (topK as number) > PINECONE_FAKE_LIMITS.maxTopK)
        return error(400, 'topK must be between 1 and 10000');
      const problem = checkVector(body.vector, 'query vector');
      if (problem) return error(400, problem);
      const query = body.vector as number[];
      const matches = [...(namespaces.get(ns)?.values() ?? [])]
        .map((v) => ({
          id: v.id,
          score: cosine(query, v.values),
          ...(body.includeValues ? { values: v.values } : { values: [] }),
          ...(body.includeMetadata && v.metadata ? { metadata: v.metadata } : {}),
        }))
        .sort((a, b) => b.score - a.score)
        .slice(0, topK as number);
      return { status: 200, body: { results: [], matches, namespace: ns, usage: { readUnits: 1 } } };
    }
    if (req.method === 'POST' && req.path === '/describe_index_stats') {
      const summary = Object.fromEntries([...namespaces].map(([name, store]) => [name, { vectorCount: store.size }]));
      const total = [...namespaces.values()].reduce((sum, store) => sum + store.size, 0);
      return {
        status: 200,
        body: {
          namespaces: summary,
          dimension: options.dimension,
          indexFullness: 0,
          totalVectorCount: total,
          metric: 'cosine',
          vectorType: 'dense',
        },
      };
    }
    if (req.method === 'GET' && req.path === '/vectors/fetch') {
      const store = namespaces.get(req.query.get('namespace') ?? '');
      const found = req.query.getAll('ids').flatMap((id): Array<[string, StoredVector]> => {
        const vector = store?.get(id);
        return vector ? [[id, vector]] : [];
      });
      return { status: 200, body: { vectors: Object.fromEntries(found), namespace: req.query.get('namespace') ?? '' } };
    }
    return error(404, `Not found: ${req.method} ${req.path}`);
  };

  const server = await startJsonServer((req) => {
    const reply = req.headers['api-key'] === apiKey ? routes(req) : error(401, 'Invalid API Key');
    const records = Array.isArray((req.body as { vectors?: unknown[] } | undefined)?.vectors)
      ? (req.body as { vectors: unknown[] }).vectors.length
      : undefined;
    requests.push({
      method: req.method,
      path: req.path,
      status: reply.status,
      bytes: req.rawBody.length,
      records,
      apiVersion: req.headers['x-pinecone-api-version'] as string | undefined,
    });
    return reply;
  });
  url = server.url;
  return { url, apiKey, indexName, dimension: options.dimension, requests, namespaces, close: () => server.close() };
}

function cosine(a: number[], b: number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += (a[i] as number) * (b[i] as number);
    na += (a[i] as number) ** 2;
    nb += (b[i] as number) ** 2;
  }
  return dot / Math.sqrt(na * nb);
}
