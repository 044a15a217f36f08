import {
  forgetLibrarySource,
  libraryIdSchema,
  refreshScheduleOf,
  libraryListQuerySchema,
  libraryNotFound,
  rankLibraries,
  requestLibraryDeletion,
  type Library,
  type LibraryDetailResponse,
  type LibraryListResponse,
  type LibraryView,
  type SuccessResponse,
  libraryDetailResponseSchema,
  libraryListResponseSchema,
  successSchema,
} from '@docshelf/core';
import { Router, type Request, type RequestHandler } from 'express';
import type { ApiDeps } from '../api-deps';
import { authDeps, requireAdmin } from '../http/auth';
import { parseInput } from '../http/validate';
import { type Endpoint } from '../ops/openapi/endpoint';

/** `/api/libraries/vercel/next.js` and `/api/libraries/vercel%2Fnext.js` name the same library. */
function libraryIdOf(req: Request): string {
  const raw = req.params.id as unknown as string[] | string;
  return parseInput(libraryIdSchema, Array.isArray(raw) ? raw.join('/') : raw, 'Library id');
}

export function libraryRoutes(deps: ApiDeps): Router {
  const refreshes = { sources: deps.sources, scheduler: deps.jobs };
  /** Beside the SPEC's fields, how many chunks have a vector (the dashboard's "share embedded"), and its schedule. */
  const withVectorCount = async (library: Library): Promise<LibraryView> => {
    const [vectorCount, refresh] = await Promise.all([
      deps.vectors.count(library.id),
      refreshScheduleOf(refreshes, library.id),
    ]);
    return { ...library, vectorCount, ...(refresh ? { refresh } : {}) };
  };
  const auth = authDeps(deps);
  const guardDelete: RequestHandler = deps.config.publicLibraryDelete
    ? (_req, _res, next) => next()
    : requireAdmin(auth);

  return Router()
    .get('/api/libraries', async (req, res) => {
      const { q } = parseInput(libraryListQuerySchema, req.query, 'Query');
      const libraries = await deps.libraries.listLibraries();
      res.json({
        libraries: await Promise.all((q ? rankLibraries(libraries, q) : libraries).map(withVectorCount)),
      } satisfies LibraryListResponse);
    })
    .get('/api/libraries/*id', async (req, res) => {
      const id = libraryIdOf(req);
      const library = await deps.libraries.getLibrary(id);
      if (!library) throw libraryNotFound(id);
      const [view, chunks] = await Promise.all([withVectorCount(library), deps.libraries.listChunkMeta(id)]);
      res.json({ library: view, chunks } satisfies LibraryDetailResponse);
    })
    .delete('/api/libraries/*id', guardDelete, async (req, res) => {
      const id = libraryIdOf(req);
      const answer = await requestLibraryDeletion(deps, id);
      // Its schedule stops and its kept crawl is forgotten with it.
      await forgetLibrarySource(refreshes, id);
      res.json(answer satisfies SuccessResponse);
    });
}

/** The OpenAPI entries of these routes (ops/openapi/endpoints.ts gathers every route file's). */
export const libraryEndpoints: Endpoint[] = [
  {
    method: 'get',
    path: '/api/libraries',
    operationId: 'listLibraries',
    tag: 'Libraries',
    access: 'public',
    summary: 'List every library, or those matching `q`',
    description:
      "Without `q`: every library. With `q`: libraries whose id, name or description match, best first (exact id or name, then the id's last segment, prefixes, then words).",
    query: libraryListQuerySchema,
    ok: { schema: libraryListResponseSchema, description: 'All libraries' },
    errors: [500],
  },
  {
    method: 'get',
    path: '/api/libraries/{id}',
    operationId: 'getLibrary',
    tag: 'Libraries',
    access: 'public',
    libraryIdParam: true,
    summary: 'Get a library with its chunk metadata',
    ok: {
      schema: libraryDetailResponseSchema,
      description: 'The library and its chunks (without content), in library order',
    },
    errors: [400, 404, 500],
  },
  {
    method: 'delete',
    path: '/api/libraries/{id}',
    operationId: 'deleteLibrary',
    tag: 'Libraries',
    access: 'library-delete',
    libraryIdParam: true,
    summary: 'Delete a library with its chunks, vectors and backups',
    description: 'Needs an admin API key or a session unless the server runs with `PUBLIC_LIBRARY_DELETE=true`.',
    ok: { schema: successSchema, description: 'Deleted' },
    errors: [400, 401, 403, 404, 500, 503, 504],
  },
];
