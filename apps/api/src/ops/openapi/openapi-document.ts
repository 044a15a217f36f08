import { acceptedJobSchema, ERROR_CODES, errorBodySchema, SESSION_COOKIE } from '@docshelf/core';
import { readinessBodySchema } from '@docshelf/observability';
import { z } from 'zod';
import { version } from '../../../package.json';
import { ENDPOINTS, type Access, type Endpoint } from './endpoints';

type JsonSchema = Record<string, unknown>;
export type OpenApiDocument = Record<string, unknown> & { paths: Record<string, Record<string, Operation>> };
type Operation = Record<string, unknown>;

/** Each error status's description: the codes that come with it and what they mean (ERROR_CODES, one table). */
function errorDescription(status: number): string {
  const codes = Object.entries(ERROR_CODES).filter(([, { statuses }]) =>
    (statuses as readonly number[]).includes(status),
  );
  if (codes.length === 0) return 'Error';
  return codes.map(([code, { meaning }]) => `${code}: ${meaning}`).join('; ');
}

const SECURITY: Record<Access, Record<string, string[]>[] | undefined> = {
  admin: [{ apiKey: [] }, { session: [] }],
  session: [{ session: [] }],
  public: [],
  'library-delete': [{ apiKey: [] }, { session: [] }],
  metrics: [{}, { metricsToken: [] }],
  reader: [{ apiKey: [] }, { session: [] }],
};

/**
 * The OpenAPI 3.1 document, generated from the same zod schemas that validate requests and type responses: every
 * schema named with `.meta({ id })` becomes a component, referenced wherever it is used.
 */
export function buildOpenApiDocument(): OpenApiDocument {
  const components = new Components();
  components.add(errorBodySchema, 'output');
  const paths: OpenApiDocument['paths'] = {};
  for (const endpoint of ENDPOINTS) {
    (paths[endpoint.path] ??= {})[endpoint.method] = operationOf(endpoint, components);
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
      schemas: components.schemas,
      securitySchemes: {
        apiKey: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'dsk_ + 64 hex characters',
          description:
            'An API key, `Authorization: Bearer dsk_…`. Admin keys may ingest, crawl, embed and delete; read keys only read.',
        },
        session: {
          type: 'apiKey',
          in: 'cookie',
          name: SESSION_COOKIE,
          description:
            'The dashboard session from POST /api/auth/login. The only credential for /api/keys and /api/ingest-url.',
        },
        metricsToken: {
          type: 'http',
          scheme: 'bearer',
          description: 'METRICS_TOKEN; without one, /metrics is closed unless METRICS_PUBLIC=true',
        },
      },
    },
  };
}

function operationOf(endpoint: Endpoint, components: Components): Operation {
  const operation: Operation = {
    operationId: endpoint.operationId,
    tags: [endpoint.tag],
    summary: endpoint.summary,
    ...(endpoint.description ? { description: endpoint.description } : {}),
    security: SECURITY[endpoint.access],
    parameters: parametersOf(endpoint, components),
    responses: responsesOf(endpoint, components),
  };
  if (endpoint.body && endpoint.bodyContentType === 'multipart/form-data') {
    // The form's text fields as their schema says, and the file beside them.
    const file = { type: 'object', required: ['file'], properties: { file: { type: 'string', format: 'binary' } } };
    operation.requestBody = {
      required: true,
      content: { 'multipart/form-data': { schema: { allOf: [components.named(endpoint.body, 'input'), file] } } },
    };
  } else if (endpoint.body) {
    operation.requestBody = {
      required: true,
      content: { 'application/json': { schema: components.named(endpoint.body, 'input') } },
    };
  }
  return operation;
}

function parametersOf(endpoint: Endpoint, components: Components): object[] {
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
    parameters.push({
      name: 'id',
      in: 'path',
      required: true,
      description: 'Job id, as answered with 202',
      schema: { type: 'string', format: 'uuid' },
    });
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
    const { properties = {}, required = [] } = components.add(endpoint.query, 'input') as {
      properties?: Record<string, JsonSchema>;
      required?: string[];
    };
    for (const [name, schema] of Object.entries(properties)) {
      parameters.push({ name, in: 'query', required: required.includes(name), schema });
    }
  }
  return parameters;
}

function responsesOf(endpoint: Endpoint, components: Components): Record<string, object> {
  const { ok } = endpoint;
  const okSchema = ok.schema ? components.named(ok.schema, 'output') : { type: 'string' };
  const responses: Record<string, object> = {
    '200': { description: ok.description, content: { [ok.contentType ?? 'application/json']: { schema: okSchema } } },
  };
  if (endpoint.respondAsync) {
    responses['202'] = {
      description: 'Prefer: respond-async: the job was accepted; Location names it',
      headers: { Location: { description: '/api/jobs/{jobId}', schema: { type: 'string' } } },
      content: { 'application/json': { schema: components.named(acceptedJobSchema, 'output') } },
    };
  }
  for (const status of [...new Set(endpoint.errors)].sort((a, b) => a - b)) {
    const schema = components.named(endpoint.path === '/readyz' ? readinessBodySchema : errorBodySchema, 'output');
    responses[String(status)] = {
      description: errorDescription(status),
      content: { 'application/json': { schema } },
    };
  }
  return responses;
}

const COMPONENT_REF = '#/components/schemas/';

/**
 * The document's named schemas. OpenAPI 3.1 schemas are JSON Schema 2020-12 (zod's `draft-2020-12` target; the
 * `openapi-3.0` target would be for a 3.0 document). Requests are described as clients send them (`io: "input"`:
 * defaults optional), responses as the API sends them (`io: "output"`: every field it always sends is required).
 */
class Components {
  readonly schemas: Record<string, JsonSchema> = {};

  /** Converts a schema; every schema in it named with `.meta({ id })` (itself included) goes to the components. */
  add(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
    const converted = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as JsonSchema;
    const {
      $schema: _dialect,
      $defs = {},
      ...root
    } = pointRefsAtComponents(converted) as JsonSchema & { $defs?: Record<string, JsonSchema> };
    for (const [id, definition] of Object.entries($defs)) {
      const known = this.schemas[id];
      if (known && JSON.stringify(known) !== JSON.stringify(definition)) {
        // One name, two shapes: a schema used both in a request and in a response differs by its defaults.
        throw new Error(
          `OpenAPI component ${id} would have two shapes; give the request or the response its own schema`,
        );
      }
      this.schemas[id] = definition;
    }
    return root;
  }

  /** A reference to a named schema, which must have a `.meta({ id })`. */
  named(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
    const id = z.globalRegistry.get(schema)?.id;
    if (!id) throw new Error(`A request or response schema needs .meta({ id }) to be named in the OpenAPI document`);
    this.add(schema, io);
    return { $ref: COMPONENT_REF + id };
  }
}

/** zod puts named schemas under `$defs`; in the document they are components. */
function pointRefsAtComponents(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(pointRefsAtComponents);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) =>
      key === '$ref' && typeof inner === 'string' && inner.startsWith('#/$defs/')
        ? [key, COMPONENT_REF + inner.slice('#/$defs/'.length)]
        : [key, pointRefsAtComponents(inner)],
    ),
  );
}
