import fc from 'fast-check';
import { BAD_ENCODINGS, badLibraryId, type MalformedRequest } from './malformed-values';

/** Query strings and path parameters that break the read side and the job endpoints. */
export const readRequests: fc.Arbitrary<Omit<MalformedRequest, 'endpoint'> & { endpoint: string }>[] = [
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
