import fc from 'fast-check';
import { badLibraryId, badUrl, notAString, notAnInteger, notAnObject, type MalformedRequest } from './malformed-values';

const chunk = { id: 'c1', content: 'Some text.' };
/** A valid request to each endpoint that takes a JSON body: what the requests below break. */
const VALID: Record<
  string,
  { path: string; credential: MalformedRequest['credential']; body: Record<string, unknown> }
> = {
  ingest: {
    path: '/api/ingest',
    credential: 'admin-key',
    body: { libraryId: 'fuzz/lib', name: 'Fuzz', chunks: [chunk] },
  },
  crawl: {
    path: '/api/crawl',
    credential: 'admin-key',
    body: { libraryId: 'fuzz/lib', name: 'Fuzz', urls: ['https://docs.example.com/'] },
  },
  'ingest-url': {
    path: '/api/ingest-url',
    credential: 'session',
    body: {
      libraryId: 'fuzz/lib',
      name: 'Fuzz',
      sourceUrl: 'https://docs.example.com/llms.txt',
      sourceType: 'llms_txt',
    },
  },
  embed: { path: '/api/embed', credential: 'admin-key', body: { libraryId: 'fuzz/lib' } },
  keys: { path: '/api/keys', credential: 'session', body: { name: 'fuzz key', permissions: 'read' } },
  login: {
    path: '/api/auth/login',
    credential: 'none',
    body: { email: 'nobody@docshelf.test', password: 'not the password' },
  },
};

/** One broken variant of a valid body: a required field dropped, a field of the wrong kind, or a whole non-object. */
function brokenBodies(kind: keyof typeof VALID): fc.Arbitrary<unknown> {
  const valid = VALID[kind]!.body;
  const required: Record<string, string[]> = {
    ingest: ['libraryId', 'name', 'chunks'],
    crawl: ['libraryId', 'name', 'urls'],
    'ingest-url': ['libraryId', 'name', 'sourceUrl', 'sourceType'],
    embed: ['libraryId'],
    keys: ['name'],
    login: ['email', 'password'],
  };
  const dropped = fc.constantFrom(...required[kind]!).map((field) => {
    const { [field]: _gone, ...rest } = valid;
    return rest;
  });
  const variants: fc.Arbitrary<unknown>[] = [dropped, notAnObject];
  if ('libraryId' in valid) variants.push(badLibraryId.map((libraryId) => ({ ...valid, libraryId })));
  if ('name' in valid)
    variants.push(fc.oneof(notAString, fc.constant('   '), fc.constant('')).map((name) => ({ ...valid, name })));
  if (kind === 'ingest') {
    variants.push(
      fc
        .oneof(
          fc.constant([]),
          notAnObject,
          fc.constant([{ id: '', content: 'x' }]),
          fc.constant([{ id: 'a', content: '' }]),
          fc.constant([
            { id: 'a', content: 'x' },
            { id: 'a', content: 'y' },
          ]),
          fc.constant([{ content: 'no id' }]),
          fc
            .record({
              id: fc.constant('a'),
              content: fc.constant('x'),
              tokenCount: notAnInteger.filter((n) => n !== 1e12),
            })
            .map((c) => [c]),
          fc.record({ id: fc.constant('a'), content: notAString }).map((c) => [c]),
        )
        .map((chunks) => ({ ...valid, chunks })),
      notAString.filter((v) => typeof v !== 'boolean').map((replace) => ({ ...valid, replace })),
    );
  }
  if (kind === 'crawl') {
    variants.push(
      fc
        .oneof(
          fc.constant([]),
          badUrl.map((url) => [url]),
          fc.constant(Array.from({ length: 151 }, (_, i) => `https://d.example.com/${i}`)),
        )
        .map((urls) => ({ ...valid, urls })),
      fc
        .oneof(
          notAnInteger.map((maxDepth) => ({ maxDepth })),
          fc.constant({ maxDepth: 11 }),
          fc.constant({ maxPages: 151 }),
          fc.constant({ maxPages: 0 }),
          fc.constant({ renderer: 'netscape' }),
          fc.constant({ includePaths: 'docs/**' }),
          fc.constant({ includePaths: Array.from({ length: 51 }, () => '/x') }),
        )
        .map((option) => ({ ...valid, ...option })),
    );
  }
  if (kind === 'ingest-url') variants.push(badUrl.map((sourceUrl) => ({ ...valid, sourceUrl })));
  if (kind === 'embed')
    variants.push(
      fc
        .oneof(
          fc.constant({ limit: 0 }),
          fc.constant({ limit: 5001 }),
          fc.constant({ offset: -1 }),
          notAnInteger.map((limit) => ({ limit })),
        )
        .map((x) => ({ ...valid, ...x })),
    );
  if (kind === 'keys')
    variants.push(
      fc
        .oneof(fc.constant('owner'), fc.constant('ADMIN'), fc.integer())
        .map((permissions) => ({ ...valid, permissions })),
    );
  if (kind === 'login')
    variants.push(
      notAString.map((email) => ({ ...valid, email })),
      fc.string({ minLength: 1025, maxLength: 1100 }).map((password) => ({ ...valid, password })),
    );
  return fc.oneof(...variants);
}

/** JSON-RPC messages the MCP endpoint must refuse, and requests without the Accept header it needs. */
export const mcpRequests = fc
  .oneof(
    notAnObject.map((body) => ({ body })),
    fc.constant({ body: { method: 'tools/list', id: 1 } }),
    fc.constant({ body: { jsonrpc: '1.0', method: 'tools/list', id: 1 } }),
    fc.constant({ body: { jsonrpc: '2.0', id: 1 } }),
    fc.constant({ raw: '{"jsonrpc": "2.0", "method": ', contentType: 'application/json' }),
    fc.constant({ body: { jsonrpc: '2.0', method: 'tools/list', id: 1 }, headers: { Accept: 'text/html' } }),
  )
  .map((r) => ({
    endpoint: 'POST /mcp',
    method: 'POST' as const,
    path: '/mcp',
    credential: 'read-key' as const,
    headers: { Accept: 'application/json, text/event-stream', ...(r as { headers?: Record<string, string> }).headers },
    ...(r as object),
  }));

/** The endpoints that start jobs, the ones that read `Prefer` and `Idempotency-Key`. */
const JOB_KINDS = ['ingest', 'crawl', 'ingest-url', 'embed'] as const;

/** Whole-request breakage: bodies that are not JSON, are not labelled JSON, or (on job endpoints) broken headers. */
export const envelopeRequests = fc.constantFrom(...Object.keys(VALID)).chain((kind) =>
  fc
    .oneof(
      fc.constant({ raw: '{"libraryId": "fuzz/lib", ', contentType: 'application/json' }),
      fc.constant({ raw: 'libraryId=fuzz/lib&name=Fuzz', contentType: 'application/x-www-form-urlencoded' }),
      fc.constant({ raw: JSON.stringify(VALID[kind]!.body), contentType: 'text/plain' }),
      ...((JOB_KINDS as readonly string[]).includes(kind)
        ? [
            fc.constant({ body: VALID[kind]!.body, headers: { 'Idempotency-Key': 'has space' } }),
            fc.constant({ body: VALID[kind]!.body, headers: { Prefer: `respond-async${', x'.repeat(600)}` } }),
          ]
        : []),
    )
    .map((r) => ({
      endpoint: `POST ${VALID[kind]!.path}`,
      method: 'POST' as const,
      path: VALID[kind]!.path,
      credential: VALID[kind]!.credential,
      ...r,
    })),
);

/** A valid body of each endpoint broken in one way (`brokenBodies`). */
export const bodyRequests = fc.constantFrom(...Object.keys(VALID)).chain((kind) =>
  brokenBodies(kind).map((body) => ({
    endpoint: `POST ${VALID[kind]!.path}`,
    method: 'POST' as const,
    path: VALID[kind]!.path,
    credential: VALID[kind]!.credential,
    body,
  })),
);
