import type { Request } from 'express';

/** The matched route pattern (`/api/libraries/*id`), never the raw path: ids and keys stay out of labels. */
export function routeLabelOf(req: Request): string {
  // Express types the matched route as `any`.
  const path = (req.route as { path?: unknown } | undefined)?.path;
  if (typeof path === 'string') return req.baseUrl + path;
  // Mounted apps without routes of their own (Bull Board's static files) are labelled by where they are mounted.
  if (path !== undefined || req.baseUrl) return `${req.baseUrl}/*`;
  return 'unmatched';
}
