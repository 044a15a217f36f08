import {
  buildContext,
  chunksQuerySchema,
  contextQuerySchema,
  pageChunks,
  searchDocs,
  searchQuerySchema,
  chunksResponseSchema,
  contextResponseSchema,
  searchResponseSchema,
} from '@docshelf/core';
import { Router, type RequestHandler } from 'express';
import type { ApiDeps } from '../api-deps';
import { authDeps, requireReader } from '../http/auth';
import { parseInput } from '../http/validate';
import { READER, type Endpoint } from '../ops/openapi/endpoint';

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

/** The OpenAPI entries of these routes (ops/openapi/endpoints.ts gathers every route file's). */
export const retrievalEndpoints: Endpoint[] = [
  {
    method: 'get',
    path: '/api/search',
    operationId: 'searchDocs',
    tag: 'Retrieval',
    access: 'reader',
    query: searchQuerySchema,
    summary: 'Search chunks by a question',
    description: `Hybrid ranking: BM25 keyword ranking over titles and contents fused by reciprocal rank fusion with vector similarity of the question, embedded by each library's own embedding model; libraries without vectors are searched by keyword alone and \`mode\` says which ran. Each result names its source: library id and version, page URL, when the page was fetched and its content hash. \`libraryId\` may repeat; absent searches every library. ${READER}`,
    ok: { schema: searchResponseSchema, description: 'Results, best first' },
    errors: [400, 401, 404, 429, 500],
  },
  {
    method: 'get',
    path: '/api/context',
    operationId: 'getContext',
    tag: 'Retrieval',
    access: 'reader',
    query: contextQuerySchema,
    summary: 'The most relevant text of a library, packed into a token budget',
    description: `At most \`tokens\` tokens (100–100,000) by the o200k_base BPE tokenizer; neighbouring chunks of one page merged in page order with their overlap written once; each piece with its title and source: URL, library id and version, when the page was fetched and its content hash; links written as their text, headings the title already says left out. \`format=txt\` (default) answers plain text ready for a prompt, each piece under a title line, a page's first piece also under one source line (\`Source: <url> (<libraryId>@<version>, fetched <YYYY-MM-DD>)\`), \`json\` the pieces. ${READER}`,
    ok: {
      schema: contextResponseSchema,
      description: 'The packed context (JSON with `format=json`; plain text otherwise)',
    },
    errors: [400, 401, 404, 429, 500],
  },
  {
    method: 'get',
    path: '/api/chunks',
    operationId: 'listChunks',
    tag: 'Retrieval',
    access: 'reader',
    query: chunksQuerySchema,
    summary: "A page of a library's chunks with their text",
    description: `In library order; repeat with \`nextOffset\` until it is null. ${READER}`,
    ok: { schema: chunksResponseSchema, description: 'The chunks' },
    errors: [400, 401, 404, 429, 500],
  },
];
