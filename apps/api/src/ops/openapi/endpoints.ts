import { adminQueueEndpoints } from '../admin-queues.route';
import { authEndpoints } from '../../routes/auth.route';
import { crawlEndpoints } from '../../routes/crawl.route';
import { embedEndpoints } from '../../routes/embed.route';
import { healthEndpoints } from '../health.route';
import { ingestEndpoints } from '../../routes/ingest.route';
import { jobEndpoints } from '../../routes/jobs.route';
import { keyEndpoints } from '../../routes/keys.route';
import { libraryEndpoints } from '../../routes/libraries.route';
import { mcpEndpoints } from '../../routes/mcp.route';
import { metricsEndpoints } from '../metrics.route';
import { retrievalEndpoints } from '../../routes/retrieval.route';
import type { Endpoint } from './endpoint';

export type { Access, Endpoint } from './endpoint';

/**
 * Every endpoint Docshelf serves, as the OpenAPI document describes it: each route file declares its own entries
 * beside its routes; the document's own two are here.
 */
export const ENDPOINTS: Endpoint[] = [
  ...ingestEndpoints,
  ...crawlEndpoints,
  ...embedEndpoints,
  ...jobEndpoints,
  ...libraryEndpoints,
  ...retrievalEndpoints,
  ...mcpEndpoints,
  ...keyEndpoints,
  ...authEndpoints,
  ...healthEndpoints,
  ...metricsEndpoints,
  ...adminQueueEndpoints,
  {
    method: 'get',
    path: '/api/openapi.json',
    operationId: 'getOpenApiDocument',
    tag: 'Operations',
    access: 'public',
    summary: 'This OpenAPI 3.1 document',
    ok: { description: 'The document', contentType: 'application/json' },
    errors: [],
  },
  {
    method: 'get',
    path: '/api/docs',
    operationId: 'showApiReference',
    tag: 'Operations',
    access: 'public',
    summary: 'Readable API reference (HTML rendered from this document)',
    ok: { description: 'The reference page', contentType: 'text/html' },
    errors: [],
  },
];
