import fc from 'fast-check';
import type { AppRoute } from './app-routes';
import { bodyRequests, envelopeRequests, mcpRequests } from './malformed-bodies';
import { readRequests } from './malformed-queries';
import { BAD_ENCODINGS, METHODS, type MalformedRequest } from './malformed-values';

export { METHODS, type MalformedRequest, type Method } from './malformed-values';

/** `count` malformed requests over every endpoint, the same ones for the same seed. */
export function malformedRequests(count: number, seed: number): MalformedRequest[] {
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
