import { libraryIdSchema, libraryListQuerySchema, libraryNotFound, rankLibraries, requestLibraryDeletion } from '@docshelf/core';
import { Router, type Request, type RequestHandler } from 'express';
import type { ApiDeps } from '../api-deps';
import { requireAdmin } from '../http/auth';
import { parseInput } from '../http/validate';

/** `/api/libraries/vercel/next.js` and `/api/libraries/vercel%2Fnext.js` name the same library. */
function libraryIdOf(req: Request): string {
  const raw = req.params.id as unknown as string[] | string;
  return parseInput(libraryIdSchema, Array.isArray(raw) ? raw.join('/') : raw, 'Library id');
}

export function libraryRoutes(deps: ApiDeps): Router {
  const auth = { records: deps.records, sessionTtlMs: deps.config.sessionTtlMs };
  const guardDelete: RequestHandler = deps.config.publicLibraryDelete ? (_req, _res, next) => next() : requireAdmin(auth);

  return Router()
    .get('/api/libraries', async (req, res) => {
      const { q } = parseInput(libraryListQuerySchema, req.query, 'Query');
      const libraries = await deps.records.listLibraries();
      res.json({ libraries: q ? rankLibraries(libraries, q) : libraries });
    })
    .get('/api/libraries/*id', async (req, res) => {
      const id = libraryIdOf(req);
      const library = await deps.records.getLibrary(id);
      if (!library) throw libraryNotFound(id);
      res.json({ library, chunks: await deps.records.listChunkMeta(id) });
    })
    .delete('/api/libraries/*id', guardDelete, async (req, res) => {
      res.json(await requestLibraryDeletion(deps, libraryIdOf(req)));
    });
}
