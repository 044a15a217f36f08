import {
  buildContext,
  chunksQuerySchema,
  contextQuerySchema,
  pageChunks,
  searchDocs,
  searchQuerySchema,
} from '@docshelf/core';
import { Router, type RequestHandler } from 'express';
import type { ApiDeps } from '../api-deps';
import { authDeps, requireReader } from '../http/auth';
import { parseInput } from '../http/validate';

/** The read side for LLM tools: search, token-budgeted context and chunk pages. */
/** `rateLimit` counts requests per key (per address without one); it runs before the query is even read. */
export function retrievalRoutes(deps: ApiDeps, rateLimit: RequestHandler): Router {
  const reader = requireReader(authDeps(deps), deps.config.publicSearch);
  return Router()
    .get('/api/search', reader, rateLimit, async (req, res) => {
      const query = parseInput(searchQuerySchema, req.query, 'Query');
      res.json(
        await searchDocs(deps, { query: query.q, libraryIds: query.libraryId, limit: query.limit, mode: query.mode }),
      );
    })
    .get('/api/context', reader, rateLimit, async (req, res) => {
      const query = parseInput(contextQuerySchema, req.query, 'Query');
      const context = await buildContext(deps, {
        libraryId: query.libraryId,
        query: query.query,
        tokens: query.tokens,
      });
      if (query.format === 'json') res.json(context.response);
      else res.type('text/plain; charset=utf-8').send(context.text);
    })
    .get('/api/chunks', reader, rateLimit, async (req, res) => {
      res.json(await pageChunks(deps, parseInput(chunksQuerySchema, req.query, 'Query')));
    });
}
