import type { z } from 'zod';

/** Who may call an endpoint; each maps to the security requirements of the document. */
export type Access = 'admin' | 'session' | 'public' | 'library-delete' | 'metrics' | 'reader';

export interface Endpoint {
  method: 'get' | 'post' | 'delete';
  path: string;
  /** What the operation does, as a name (`crawlSite`, `searchDocs`): the generated client's function for it. */
  operationId: string;
  tag: 'Libraries' | 'Retrieval' | 'Ingestion' | 'Jobs' | 'API keys' | 'Dashboard session' | 'Operations';
  summary: string;
  description?: string;
  access: Access;
  /** Request and response schemas are named by their `.meta({ id })`, which is their name in the document. */
  body?: z.ZodType;
  /** How the body is sent: JSON unless said; a multipart form's file part is described beside its fields. */
  bodyContentType?: 'multipart/form-data';
  query?: z.ZodObject;
  libraryIdParam?: boolean;
  /** The path has a job id, `{id}`. */
  jobIdParam?: boolean;
  /** Takes `Prefer: respond-async` and then answers 202 with the job. */
  respondAsync?: boolean;
  ok: { schema?: z.ZodType; description: string; contentType?: string };
  errors: number[];
}

/** The errors of the four endpoints that run as jobs. */
export const JOB_ERRORS = [400, 401, 403, 409, 413, 414, 415, 422, 500, 503, 504];

/** How a synchronous request relates to its job, said once for the four job endpoints. */
export const RUNS_AS_JOB =
  ' Runs as one job in the worker. With `Prefer: respond-async` the answer is 202 with the job id at once; follow it at ' +
  '`/api/jobs/{id}` and `/api/jobs/{id}/events`. With `callbackUrl` the final job is POSTed there, signed with ' +
  'Standard Webhooks headers (`webhook-id`, `webhook-timestamp`, `webhook-signature`).';
export const READER = 'A read or admin API key or a session; anyone when the server runs with `PUBLIC_SEARCH=true`.';
