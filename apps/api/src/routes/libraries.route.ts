import {
  libraryIdSchema,
  libraryListQuerySchema,
  libraryNotFound,
  rankLibraries,
  requestLibraryDeletion,
  type Library,
  type LibraryDetailResponse,
  type LibraryListResponse,
  type LibraryView,
  type SuccessResponse,
} from '@docshelf/core';
import { Router, type Request, type RequestHandler } from 'express';
import type { ApiDeps } from '../api-deps';
import { authDeps, requireAdmin } from '../http/auth';
import { parseInput } from '../http/validate';

/** `/api/libraries/vercel/next.js` and `/api/libraries/vercel%2Fnext.js` name the same library. */
function libraryIdOf(req: Request): string {
  const raw = req.params.id as unknown as string[] | string;
  return parseInput(libraryIdSchema, Array.isArray(raw) ? raw.join('/') : raw, 'Library id');
}

export function libraryRoutes(deps: ApiDeps): Router {
  /** Beside the SPEC's fields, how many chunks have a vector (the dashboard's "share embedded"). */
  const withVectorCount = async (library: Library): Promise<LibraryView> => ({
    ...library,
    vectorCount: await deps.vectors.count(library.id),
  });
  const auth = authDeps(deps);
  const guardDelete: RequestHandler = deps.config.publicLibraryDelete
    ? (_req, _res, next) => next()
    : requireAdmin(auth);

  return Router()
    .get('/api/libraries', async (req, res) => {
      const { q } = parseInput(libraryListQuerySchema, req.query, 'Query');
      const libraries = await deps.records.listLibraries();
      res.json({
        libraries: await Promise.all((q ? rankLibraries(libraries, q) : libraries).map(withVectorCount)),
      } satisfies LibraryListResponse);
    })
    .get('/api/libraries/*id', async (req, res) => {
      const id = libraryIdOf(req);
      const library = await deps.records.getLibrary(id);
      if (!library) throw libraryNotFound(id);
      const [view, chunks] = await Promise.all([withVectorCount(library), deps.records.listChunkMeta(id)]);
      res.json({ library: view, chunks } satisfies LibraryDetailResponse);
    })
    .delete('/api/libraries/*id', guardDelete, async (req, res) => {
      res.json((await requestLibraryDeletion(deps, libraryIdOf(req))) satisfies SuccessResponse);
    });
}
