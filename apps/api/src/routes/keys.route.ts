import {
  createApiKey,
  createKeyRequestSchema,
  deleteKeyQuerySchema,
  listApiKeys,
  revokeApiKey,
  type CreatedKey,
  type KeyListResponse,
  type SuccessResponse,
  createdKeySchema,
  keyListResponseSchema,
  successSchema,
} from '@docshelf/core';
import { Router } from 'express';
import type { ApiDeps } from '../api-deps';
import { authDeps, principalOf, requireSession } from '../http/auth';
import { parseInput } from '../http/validate';
import { type Endpoint } from '../ops/openapi/endpoint';

export function keyRoutes(deps: ApiDeps): Router {
  const session = requireSession(authDeps(deps));
  return Router()
    .get('/api/keys', session, async (req, res) => {
      res.json({ keys: await listApiKeys(deps, principalOf(req).userId) } satisfies KeyListResponse);
    })
    .post('/api/keys', session, async (req, res) => {
      const input = parseInput(createKeyRequestSchema, req.body);
      res.json((await createApiKey(deps, principalOf(req).userId, input)) satisfies CreatedKey);
    })
    .delete('/api/keys', session, async (req, res) => {
      const { id } = parseInput(deleteKeyQuerySchema, req.query, 'Query');
      await revokeApiKey(deps, principalOf(req).userId, id);
      res.json({ success: true } satisfies SuccessResponse);
    });
}

/** The OpenAPI entries of these routes (ops/openapi/endpoints.ts gathers every route file's). */
export const keyEndpoints: Endpoint[] = [
  {
    method: 'get',
    path: '/api/keys',
    operationId: 'listKeys',
    tag: 'API keys',
    access: 'session',
    summary: "List the session user's API keys",
    description: 'The full key value is never included.',
    ok: { schema: keyListResponseSchema, description: 'The keys' },
    errors: [401, 500],
  },
  {
    method: 'post',
    path: '/api/keys',
    operationId: 'createKey',
    tag: 'API keys',
    access: 'session',
    summary: 'Create an API key',
    body: createKeyRequestSchema,
    ok: { schema: createdKeySchema, description: 'Created; `key` is shown only in this response' },
    errors: [400, 401, 415, 500],
  },
  {
    method: 'delete',
    path: '/api/keys',
    operationId: 'revokeKey',
    tag: 'API keys',
    access: 'session',
    query: deleteKeyQuerySchema,
    summary: 'Revoke an API key',
    ok: { schema: successSchema, description: 'Revoked; the key no longer authenticates' },
    errors: [400, 401, 404, 500],
  },
];
