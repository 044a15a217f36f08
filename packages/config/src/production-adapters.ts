import { z } from 'zod';

const emptyAsUndefined = (schema: z.ZodTypeAny) => z.preprocess((v) => (v === '' ? undefined : v), schema);
const optionalString = emptyAsUndefined(z.string().optional()) as z.ZodType<string | undefined>;
const optionalUrl = emptyAsUndefined(z.string().url().optional()) as z.ZodType<string | undefined>;

/** Variables of the production engines; each engine's own settings are checked only when it is selected. */
export const productionEnvSchema = z.object({
  RECORD_STORE: z.enum(['sqlite', 'mongo']).default('sqlite'),
  MONGODB_URI: emptyAsUndefined(
    z
      .string()
      .regex(/^mongodb(\+srv)?:\/\//, 'MONGODB_URI starts with mongodb:// or mongodb+srv://')
      .optional(),
  ) as z.ZodType<string | undefined>,
  MONGODB_ATLAS_SEARCH_INDEX: optionalString,
  VECTOR_INDEX: z.enum(['sqlite-vec', 'pinecone']).default('sqlite-vec'),
  PINECONE_API_KEY: optionalString,
  PINECONE_INDEX: optionalString,
  PINECONE_INDEX_HOST: optionalString,
  PINECONE_CONTROLLER_HOST: optionalUrl,
  BACKUP_STORAGE: z.enum(['fs', 'gcs']).default('fs'),
  GCS_BUCKET: emptyAsUndefined(
    z
      .string()
      .regex(/^[a-z0-9][a-z0-9._-]{1,220}[a-z0-9]$/, 'GCS_BUCKET is a bucket name')
      .optional(),
  ) as z.ZodType<string | undefined>,
  GCS_PROJECT_ID: optionalString,
  GCS_API_ENDPOINT: optionalUrl,
  STORAGE_EMULATOR_HOST: optionalString,
  /**
   * `local`: local-lsi-v1, learned from each library; `local-general`: local-lsi-v2, the same with the shipped
   * general-language model beside it; `local-hash`: local-hash-v1, words only; `openai`: a remote model.
   */
  EMBEDDER: z.enum(['local', 'local-general', 'local-hash', 'openai']).default('local'),
  OPENAI_API_KEY: optionalString,
  OPENAI_BASE_URL: optionalUrl,
  OPENAI_EMBEDDING_MODEL: z.string().min(1).default('text-embedding-3-small'),
  OPENAI_EMBEDDING_DIMENSIONS: z.coerce.number().int().min(1).max(16_384).default(1536),
  OPENAI_MAX_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
  OPENAI_MAX_RETRIES: z.coerce.number().int().min(0).max(20).default(6),
  OPENAI_TIMEOUT_MS: z.coerce.number().int().min(1_000).default(60_000),
});

type ProductionEnv = z.infer<typeof productionEnvSchema>;

/** Which engine serves each port, with that engine's settings: the `adapters` part of the config's output. */
export type ProductionAdapters = ReturnType<typeof readProductionAdapters>;

/** Picks each port's engine; a selected engine without its required settings is an issue naming each of them. */
export function readProductionAdapters(e: ProductionEnv, ctx: z.RefinementCtx) {
  const need = (value: string | undefined, variable: string, message: string): string => {
    if (!value) ctx.addIssue({ code: 'custom', path: [variable], message });
    return value ?? '';
  };
  const adapters = {
    records: e.RECORD_STORE === 'mongo' ? readMongo(e, need) : { kind: e.RECORD_STORE },
    vectors: e.VECTOR_INDEX === 'pinecone' ? readPinecone(e, need, ctx) : { kind: e.VECTOR_INDEX },
    backups: e.BACKUP_STORAGE === 'gcs' ? readGcs(e, need) : { kind: e.BACKUP_STORAGE },
    embedder: e.EMBEDDER === 'openai' ? readOpenAi(e, need) : { kind: e.EMBEDDER },
  };
  if (e.MONGODB_ATLAS_SEARCH_INDEX && e.RECORD_STORE !== 'mongo') {
    ctx.addIssue({
      code: 'custom',
      path: ['MONGODB_ATLAS_SEARCH_INDEX'],
      message: 'only valid with RECORD_STORE=mongo',
    });
  }
  return adapters;
}

type Need = (value: string | undefined, variable: string, message: string) => string;

function readMongo(e: ProductionEnv, need: Need) {
  return {
    kind: 'mongo' as const,
    uri: need(e.MONGODB_URI, 'MONGODB_URI', 'required when RECORD_STORE=mongo'),
    /** Keyword search on that Atlas Search index instead of MongoDB's text index. */
    atlasSearchIndex: e.MONGODB_ATLAS_SEARCH_INDEX,
  };
}

function readPinecone(e: ProductionEnv, need: Need, ctx: z.RefinementCtx) {
  if (!e.PINECONE_INDEX && !e.PINECONE_INDEX_HOST) {
    ctx.addIssue({
      code: 'custom',
      path: [],
      message: 'PINECONE_INDEX or PINECONE_INDEX_HOST: one is required when VECTOR_INDEX=pinecone',
    });
  }
  return {
    kind: 'pinecone' as const,
    apiKey: need(e.PINECONE_API_KEY, 'PINECONE_API_KEY', 'required when VECTOR_INDEX=pinecone'),
    indexName: e.PINECONE_INDEX,
    indexHost: e.PINECONE_INDEX_HOST,
    controllerHost: e.PINECONE_CONTROLLER_HOST,
  };
}

function readGcs(e: ProductionEnv, need: Need) {
  // STORAGE_EMULATOR_HOST is the variable Google's SDKs and fake-gcs-server docs use; GCS_API_ENDPOINT wins when both are set.
  const emulator =
    e.STORAGE_EMULATOR_HOST && !/^https?:\/\//.test(e.STORAGE_EMULATOR_HOST)
      ? `http://${e.STORAGE_EMULATOR_HOST}`
      : e.STORAGE_EMULATOR_HOST;
  return {
    kind: 'gcs' as const,
    bucket: need(e.GCS_BUCKET, 'GCS_BUCKET', 'required when BACKUP_STORAGE=gcs'),
    projectId: e.GCS_PROJECT_ID,
    apiEndpoint: e.GCS_API_ENDPOINT ?? emulator,
  };
}

function readOpenAi(e: ProductionEnv, need: Need) {
  // Self-hosted OpenAI-compatible servers (vLLM, Ollama, TEI) usually take no key, but the SDK insists on one.
  const apiKey = e.OPENAI_BASE_URL
    ? (e.OPENAI_API_KEY ?? 'not-needed')
    : need(e.OPENAI_API_KEY, 'OPENAI_API_KEY', 'required when EMBEDDER=openai (or set OPENAI_BASE_URL)');
  return {
    kind: 'openai' as const,
    apiKey,
    /** Any OpenAI-compatible server (vLLM, Ollama, TEI); OpenAI itself when absent. */
    baseUrl: e.OPENAI_BASE_URL,
    model: e.OPENAI_EMBEDDING_MODEL,
    dimensions: e.OPENAI_EMBEDDING_DIMENSIONS,
    maxConcurrency: e.OPENAI_MAX_CONCURRENCY,
    /** Retries of one request on 408/409/429/5xx and network errors, honouring retry-after(-ms). */
    maxRetries: e.OPENAI_MAX_RETRIES,
    timeoutMs: e.OPENAI_TIMEOUT_MS,
  };
}
