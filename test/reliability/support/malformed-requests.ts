import fc from 'fast-check';
import type { AppRoute } from './app-routes';

export const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
export type Method = (typeof METHODS)[number];

/** Percent-encodings that do not decode: a lone `%`, non-hex digits, a cut-off or an overlong UTF-8 sequence. */
const BAD_ENCODINGS = ['%', '%zz', '%E0%A4%A', 'a%2', '%C0%AF', '%%41'];

/** A request a client could send that breaks the contract in one way. */
export interface MalformedRequest {
  endpoint: string;
  method: Method;
  path: string;
  /** A JSON value, or raw text sent as is (with `contentType`). */
  body?: unknown;
  raw?: string;
  contentType?: string;
  headers?: Record<string, string>;
  /** Which credential it carries: the endpoint's own, so the request is refused for its content, or none. */
  credential: 'admin-key' | 'session' | 'read-key' | 'none';
}

const chunk = { id: 'c1', content: 'Some text.' };
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

/** Values that are not what a field of the given kind must be. */
const notAString = fc.oneof(
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.dictionary(fc.string(), fc.integer(), { maxKeys: 3 }),
);
const notAnInteger = fc.oneof(
  fc.string(),
  fc.double({ noInteger: true }),
  fc.constant(-1),
  fc.constant(1e12),
  fc.boolean(),
  fc.constant(null),
);
const badLibraryId = fc.oneof(
  fc.constant(''),
  fc.constant('/leading'),
  fc.constant('trailing/'),
  fc.constant('a/../b'),
  fc.constant('with space'),
  fc.constant('~staged/6f1c1e9e-3b0a-4c55-9a51-1f4f3b1c2d3e'),
  fc.string({ minLength: 129, maxLength: 300 }).map((s) => `x${s}`),
  fc.string({ minLength: 1, maxLength: 20 }).map((s) => `bad\u00e9${s}`),
  notAString,
);
const badUrl = fc.oneof(
  fc.constant('ftp://docs.example.com/'),
  fc.constant('javascript:alert(1)'),
  fc.constant('file:///etc/passwd'),
  fc.constant('not a url'),
  fc.constant('http://'),
  fc.string({ minLength: 5000, maxLength: 6000 }).map((s) => `https://example.com/${s}`),
  notAString,
);
/** Anything but an object: a body must be a JSON object. */
const notAnObject = fc.oneof(
  fc.integer(),
  fc.string(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.anything({ maxDepth: 1 }), { maxLength: 4 }),
);

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

/** Query strings and path parameters that break the read side and the job endpoints. */
const readRequests: fc.Arbitrary<Omit<MalformedRequest, 'endpoint'> & { endpoint: string }>[] = [
  fc
    .oneof(
      fc.constant(''),
      fc.constant('%20%20'),
      fc.constant('q=a&q=b'),
      fc.string({ minLength: 1001, maxLength: 1100 }).map((q) => `q=${encodeURIComponent(`a${q}`)}`),
    )
    .map((query) => ({
      endpoint: 'GET /api/search',
      method: 'GET' as const,
      path: `/api/search?${query}`,
      credential: 'read-key' as const,
    })),
  fc
    .oneof(fc.constant('0'), fc.constant('51'), fc.constant('ten'), fc.constant('-3'), fc.constant('1.5'))
    .map((limit) => ({
      endpoint: 'GET /api/search',
      method: 'GET' as const,
      path: `/api/search?q=cache&limit=${limit}`,
      credential: 'read-key' as const,
    })),
  fc.oneof(fc.constant('semantic'), fc.constant(''), fc.constant('HYBRID')).map((mode) => ({
    endpoint: 'GET /api/search',
    method: 'GET' as const,
    path: `/api/search?q=cache&mode=${mode}`,
    credential: 'read-key' as const,
  })),
  badLibraryId
    .filter((v): v is string => typeof v === 'string' && v !== '')
    .map((id) => ({
      endpoint: 'GET /api/search',
      method: 'GET' as const,
      path: `/api/search?q=cache&libraryId=${encodeURIComponent(id)}`,
      credential: 'read-key' as const,
    })),
  fc.oneof(fc.constant('99'), fc.constant('100001'), fc.constant('lots'), fc.constant('')).map((tokens) => ({
    endpoint: 'GET /api/context',
    method: 'GET' as const,
    path: `/api/context?libraryId=fuzz/none&query=x&tokens=${tokens}`,
    credential: 'read-key' as const,
  })),
  fc
    .oneof(
      fc.constant('libraryId=fuzz/none'),
      fc.constant('query=x'),
      fc.constant('libraryId=fuzz/none&query=x&format=xml'),
    )
    .map((query) => ({
      endpoint: 'GET /api/context',
      method: 'GET' as const,
      path: `/api/context?${query}`,
      credential: 'read-key' as const,
    })),
  fc
    .oneof(
      fc.constant(''),
      fc.constant('libraryId=fuzz/none&limit=501'),
      fc.constant('libraryId=fuzz/none&offset=-1'),
      fc.constant('libraryId=../x'),
    )
    .map((query) => ({
      endpoint: 'GET /api/chunks',
      method: 'GET' as const,
      path: `/api/chunks?${query}`,
      credential: 'read-key' as const,
    })),
  fc.oneof(fc.constant('state=finished'), fc.constant('libraryId=%20'), fc.constant('limit=0')).map((query) => ({
    endpoint: 'GET /api/jobs',
    method: 'GET' as const,
    path: `/api/jobs?${query}`,
    credential: 'admin-key' as const,
  })),
  fc
    .oneof(
      fc.constant('not-a-uuid'),
      fc.constant('00000000-0000-4000-8000-000000000000'),
      fc.string({ minLength: 1, maxLength: 40 }).map(encodeURIComponent),
      fc.constantFrom(...BAD_ENCODINGS),
    )
    .chain((id) =>
      fc.constantFrom(
        { endpoint: 'GET /api/jobs/:id', method: 'GET' as const, path: `/api/jobs/${id}` },
        { endpoint: 'GET /api/jobs/:id/events', method: 'GET' as const, path: `/api/jobs/${id}/events` },
        { endpoint: 'DELETE /api/jobs/:id', method: 'DELETE' as const, path: `/api/jobs/${id}` },
      ),
    )
    .map((r) => ({ ...r, credential: 'admin-key' as const })),
  fc
    .oneof(
      fc.constant('a%20b'),
      fc.constant('~staged/x'),
      fc.constant('..'),
      fc.constant('fuzz/missing'),
      fc.constantFrom(...BAD_ENCODINGS).map((bad) => `fuzz/${bad}`),
    )
    .chain((id) =>
      fc.constantFrom(
        {
          endpoint: 'GET /api/libraries/:id',
          method: 'GET' as const,
          path: `/api/libraries/${id}`,
          credential: 'none' as const,
        },
        {
          endpoint: 'DELETE /api/libraries/:id',
          method: 'DELETE' as const,
          path: `/api/libraries/${id}`,
          credential: 'admin-key' as const,
        },
      ),
    ),
  fc.oneof(fc.constant(''), fc.constant('id='), fc.constant('id=no-such-key')).map((query) => ({
    endpoint: 'DELETE /api/keys',
    method: 'DELETE' as const,
    path: `/api/keys?${query}`,
    credential: 'session' as const,
  })),
  fc.string({ minLength: 1001, maxLength: 1100 }).map((q) => ({
    endpoint: 'GET /api/libraries',
    method: 'GET' as const,
    path: `/api/libraries?q=${encodeURIComponent(`a${q}`)}`,
    credential: 'none' as const,
  })),
];

/** JSON-RPC messages the MCP endpoint must refuse, and requests without the Accept header it needs. */
const mcpRequests = fc
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
const envelopeRequests = fc.constantFrom(...Object.keys(VALID)).chain((kind) =>
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

/** `count` malformed requests over every endpoint, the same ones for the same seed. */
export function malformedRequests(count: number, seed: number): MalformedRequest[] {
  const bodyRequests = fc.constantFrom(...Object.keys(VALID)).chain((kind) =>
    brokenBodies(kind).map((body) => ({
      endpoint: `POST ${VALID[kind]!.path}`,
      method: 'POST' as const,
      path: VALID[kind]!.path,
      credential: VALID[kind]!.credential,
      body,
    })),
  );
  const any = fc.oneof(
    { weight: 4, arbitrary: bodyRequests },
    { weight: 3, arbitrary: fc.oneof(...readRequests) },
    { weight: 1, arbitrary: mcpRequests },
    { weight: 1, arbitrary: envelopeRequests },
  );
  return fc.sample(any, { seed, numRuns: count });
}

/** A route's path with each parameter (`:id`, `*rest`) replaced by `value`, or `value` as one more segment. */
function fillPath(path: string, value: string): string {
  const filled = path.replace(/[{}]/g, '').replace(/[:*][A-Za-z_$][\w$]*/g, value);
  return filled !== path.replace(/[{}]/g, '') ? filled : `${path.replace(/\/$/, '')}/${value}`;
}

/**
 * For every route of the app, every method with a path parameter that does not percent-decode (or a segment that
 * does not, for routes without parameters), and every method the route does not serve on a well-formed path: each
 * must be a 4xx. Bull Board's routes are reached with a session, the others without a credential.
 */
export function routeRequests(routes: AppRoute[]): MalformedRequest[] {
  const requests: MalformedRequest[] = [];
  let n = 0;
  for (const route of routes) {
    const credential = route.path.startsWith('/admin/queues') ? 'session' : 'none';
    for (const method of METHODS) {
      const bad = BAD_ENCODINGS[n++ % BAD_ENCODINGS.length]!;
      requests.push({ endpoint: `${method} ${route.path}`, method, path: fillPath(route.path, bad), credential });
    }
    const unserved = METHODS.filter((m) => m !== 'HEAD' && m !== 'OPTIONS' && !route.methods.includes(m));
    for (const method of unserved) {
      const path = route.path.includes(':') || route.path.includes('*') ? fillPath(route.path, 'x') : route.path;
      requests.push({ endpoint: `${method} ${route.path}`, method, path, credential: 'none' });
    }
  }
  return requests;
}
