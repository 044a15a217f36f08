import fc from 'fast-check';

export const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
export type Method = (typeof METHODS)[number];

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

/** Percent-encodings that do not decode: a lone `%`, non-hex digits, a cut-off or an overlong UTF-8 sequence. */
export const BAD_ENCODINGS = ['%', '%zz', '%E0%A4%A', 'a%2', '%C0%AF', '%%41'];

/** Values that are not what a field of the given kind must be. */
export const notAString = fc.oneof(
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.dictionary(fc.string(), fc.integer(), { maxKeys: 3 }),
);
export const notAnInteger = fc.oneof(
  fc.string(),
  fc.double({ noInteger: true }),
  fc.constant(-1),
  fc.constant(1e12),
  fc.boolean(),
  fc.constant(null),
);
export const badLibraryId = fc.oneof(
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
export const badUrl = fc.oneof(
  fc.constant('ftp://docs.example.com/'),
  fc.constant('javascript:alert(1)'),
  fc.constant('file:///etc/passwd'),
  fc.constant('not a url'),
  fc.constant('http://'),
  fc.string({ minLength: 5000, maxLength: 6000 }).map((s) => `https://example.com/${s}`),
  notAString,
);
/** Anything but an object: a body must be a JSON object. */
export const notAnObject = fc.oneof(
  fc.integer(),
  fc.string(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.anything({ maxDepth: 1 }), { maxLength: 4 }),
);
