import { SESSION_COOKIE } from '@docshelf/core';
import { z } from 'zod';
import { version } from '../../../package.json';
import { ACCEPTED_JOB, ENDPOINTS, type Access, type Endpoint } from './endpoints';
import { apiKeySchema, chunkMetaSchema, errorSchema, libraryViewSchema } from './response-schemas';

type JsonSchema = Record<string, unknown>;
export type OpenApiDocument = Record<string, unknown> & { paths: Record<string, Record<string, Operation>> };
type Operation = Record<string, unknown>;

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid request: VALIDATION_FAILED (details name each field), MALFORMED_JSON, or an invalid library id',
  401: 'UNAUTHORIZED: missing or invalid credential, or the wrong kind for this endpoint',
  403: 'FORBIDDEN: a read API key on an admin endpoint, or a session request from another origin (Origin / Sec-Fetch-Site)',
  404: 'Not found (LIBRARY_NOT_FOUND, KEY_NOT_FOUND, JOB_NOT_FOUND)',
  405: 'Method not allowed',
  406: 'Not acceptable: the Accept header must allow application/json and text/event-stream',
  422: 'IDEMPOTENCY_KEY_REUSED: the Idempotency-Key was used for a different request in the last 24 hours',
  409: 'Conflict: JOB_CANCELLED (the job was cancelled while the request waited), JOB_NOT_CANCELLABLE, EMBEDDING_MISMATCH',
  413: 'PAYLOAD_TOO_LARGE: the body exceeds BODY_LIMIT; TOO_MANY_CHUNKS (MAX_CHUNKS_PER_REQUEST) or CHUNK_TOO_LARGE (MAX_CHUNK_BYTES)',
  414: 'URL_TOO_LONG: the request URL exceeds MAX_URL_LENGTH',
  429: 'RATE_LIMITED: too many login attempts or requests in the window; Retry-After says when to try again',
  415: 'UNSUPPORTED_MEDIA_TYPE: the body is not application/json',
  500: 'INTERNAL: unexpected failure; errorId is also in the log',
  503: 'Unavailable: QUEUE_UNAVAILABLE when Redis is unreachable (readiness: NOT_READY)',
  504: 'JOB_TIMEOUT: the job did not finish within JOB_WAIT_TIMEOUT_MS; it is still queued or running (jobId)',
};

const SECURITY: Record<Access, Record<string, string[]>[] | undefined> = {
  admin: [{ apiKey: [] }, { session: [] }],
  session: [{ session: [] }],
  public: [],
  'library-delete': [{ apiKey: [] }, { session: [] }],
  metrics: [{}, { metricsToken: [] }],
  reader: [{ apiKey: [] }, { session: [] }],
};

/** The OpenAPI 3.1 document, built from the same zod schemas that validate requests. */
export function buildOpenApiDocument(): OpenApiDocument {
  // The resources of SPEC.md section 2 get names of their own, for readers and client generators.
  const schemas: Record<string, JsonSchema> = {
    Error: jsonSchemaOf(errorSchema, 'output'),
    Library: jsonSchemaOf(libraryViewSchema, 'output'),
    ChunkMeta: jsonSchemaOf(chunkMetaSchema, 'output'),
    ApiKey: jsonSchemaOf(apiKeySchema, 'output'),
    [ACCEPTED_JOB.name]: jsonSchemaOf(ACCEPTED_JOB.schema, 'output'),
  };
  const paths: OpenApiDocument['paths'] = {};
  for (const endpoint of ENDPOINTS) {
    if (endpoint.body) schemas[endpoint.body.name] = jsonSchemaOf(endpoint.body.schema, 'input');
    if (endpoint.ok.name && endpoint.ok.schema) schemas[endpoint.ok.name] = jsonSchemaOf(endpoint.ok.schema, 'output');
    (paths[endpoint.path] ??= {})[endpoint.method] = operationOf(endpoint);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Docshelf API',
      version,
      description:
        'Documentation libraries of text chunks with embeddings. Every error is JSON `{error, code, details?}`. ' +
        'Request bodies are JSON; unknown fields are ignored.',
    },
    servers: [{ url: '/' }],
    tags: [...new Set(ENDPOINTS.map((e) => e.tag))].map((name) => ({ name })),
    paths,
    components: {
      schemas,
      securitySchemes: {
        apiKey: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'dsk_ + 64 hex characters',
          description: 'An API key, `Authorization: Bearer dsk_…`. Admin keys may ingest, crawl, embed and delete; read keys only read.',
        },
        session: {
          type: 'apiKey',
          in: 'cookie',
          name: SESSION_COOKIE,
          description: 'The dashboard session from POST /api/auth/login. The only credential for /api/keys and /api/ingest-url.',
        },
        metricsToken: { type: 'http', scheme: 'bearer', description: 'METRICS_TOKEN, when the server sets one' },
      },
    },
  };
}

function operationOf(endpoint: Endpoint): Operation {
  const operation: Operation = {
    operationId: operationIdOf(endpoint),
    tags: [endpoint.tag],
    summary: endpoint.summary,
    ...(endpoint.description ? { description: endpoint.description } : {}),
    security: SECURITY[endpoint.access],
    parameters: parametersOf(endpoint),
    responses: responsesOf(endpoint),
  };
  if (endpoint.body) {
    operation.requestBody = {
      required: true,
      content: { 'application/json': { schema: { $ref: `#/components/schemas/${endpoint.body.name}` } } },
    };
  }
  return operation;
}

function parametersOf(endpoint: Endpoint): object[] {
  const parameters: object[] = [];
  if (endpoint.libraryIdParam) {
    parameters.push({
      name: 'id',
      in: 'path',
      required: true,
      description: 'Library id, e.g. `vercel/next.js`; its slashes may be sent raw or as %2F',
      schema: { type: 'string', minLength: 1, maxLength: 128 },
    });
  }
  if (endpoint.jobIdParam) {
    parameters.push({ name: 'id', in: 'path', required: true, description: 'Job id, as answered with 202', schema: { type: 'string', format: 'uuid' } });
  }
  if (endpoint.respondAsync) {
    parameters.push({
      name: 'Prefer',
      in: 'header',
      required: false,
      description: '`respond-async`: answer 202 with the job at once instead of waiting for it (RFC 7240)',
      schema: { type: 'string', maxLength: 1024 },
    });
    parameters.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description:
        'A key of your own for this request: a repeat with the same key, path and body within 24 hours is answered as the first was, from its job, and runs nothing again; the same key with another request answers 422 IDEMPOTENCY_KEY_REUSED',
      schema: { type: 'string', pattern: '^[\\x21-\\x7e]{1,255}$' },
    });
  }
  if (endpoint.query) {
    const { properties = {}, required = [] } = jsonSchemaOf(endpoint.query, 'input') as { properties?: Record<string, JsonSchema>; required?: string[] };
    for (const [name, schema] of Object.entries(properties)) {
      parameters.push({ name, in: 'query', required: required.includes(name), schema });
    }
  }
  return parameters;
}

function responsesOf(endpoint: Endpoint): Record<string, object> {
  const { ok } = endpoint;
  const okSchema = ok.name ? { $ref: `#/components/schemas/${ok.name}` } : { type: 'string' };
  const responses: Record<string, object> = {
    '200': { description: ok.description, content: { [ok.contentType ?? 'application/json']: { schema: okSchema } } },
  };
  if (endpoint.respondAsync) {
    responses['202'] = {
      description: 'Prefer: respond-async: the job was accepted; Location names it',
      headers: { Location: { description: '/api/jobs/{jobId}', schema: { type: 'string' } } },
      content: { 'application/json': { schema: { $ref: `#/components/schemas/${ACCEPTED_JOB.name}` } } },
    };
  }
  for (const status of [...new Set(endpoint.errors)].sort((a, b) => a - b)) {
    const schema = endpoint.path === '/readyz' ? { $ref: '#/components/schemas/Readiness' } : { $ref: '#/components/schemas/Error' };
    responses[String(status)] = { description: ERROR_DESCRIPTIONS[status] ?? 'Error', content: { 'application/json': { schema } } };
  }
  return responses;
}

function operationIdOf(endpoint: Endpoint): string {
  const words = endpoint.path.replace(/[{}]/g, '').split(/[^A-Za-z0-9]+/).filter(Boolean);
  return [endpoint.method, ...words].map((w, i) => (i === 0 ? w : w[0]!.toUpperCase() + w.slice(1))).join('');
}

/** OpenAPI 3.1 schemas are JSON Schema 2020-12; requests are described as clients send them (defaults optional). */
function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as JsonSchema;
  return rest;
}
