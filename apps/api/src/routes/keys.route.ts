import {
  createApiKey,
  createKeyRequestSchema,
  deleteKeyQuerySchema,
  listApiKeys,
  revokeApiKey,
  type CreatedKey,
  type KeyListResponse,
  type SuccessResponse,
} from '@docshelf/core';
import { Router } from 'express';
import type { ApiDeps } from '../api-deps';
import { authDeps, principalOf, requireSession } from '../http/auth';
import { parseInput } from '../http/validate';

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
