import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { Router, type RequestHandler, type Response } from 'express';
import type { ApiDeps } from '../api-deps';
import { authDeps, requireReader } from '../http/auth';
import { requireKnownOrigin } from '../http/known-origin';
import { createDocsMcpServer } from '../mcp/docs-mcp-server';
import { READER, type Endpoint } from '../ops/openapi/endpoint';
import { z } from 'zod';

/**
 * POST /mcp: the Model Context Protocol over Streamable HTTP, stateless (a server and transport per request), so any
 * API replica answers any call. GET and DELETE, which serve sessions, are refused as the protocol says. Browser
 * requests from other origins, and DNS-rebinding ones, are refused before the credential is even read.
 */
export function mcpRoutes(deps: ApiDeps, rateLimit: RequestHandler): Router {
  const reader = requireReader(authDeps(deps), deps.config.publicSearch);
  const knownOrigin = requireKnownOrigin({
    publicHosts: deps.config.http.publicHosts,
    allowedOrigins: deps.config.mcp.allowedOrigins,
  });
  return Router()
    .post('/mcp', knownOrigin, reader, rateLimit, async (req, res) => {
      const server = createDocsMcpServer(deps, deps.logger);
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      res.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res, req.body);
    })
    .get('/mcp', knownOrigin, reader, (_req, res) => methodNotAllowed(res))
    .delete('/mcp', knownOrigin, reader, (_req, res) => methodNotAllowed(res));
}

function methodNotAllowed(res: Response): void {
  res
    .status(405)
    .set('Allow', 'POST')
    .json({
      jsonrpc: '2.0',
      error: { code: -32000, message: 'Method not allowed: this MCP server is stateless; use POST' },
      id: null,
    });
}

const jsonRpcMessageSchema = z
  .object({
    jsonrpc: z.literal('2.0'),
    method: z.string(),
    params: z.record(z.string(), z.unknown()).optional(),
    id: z.union([z.string(), z.number()]).optional(),
  })
  .meta({
    id: 'McpMessage',
    description: 'A JSON-RPC 2.0 message of the Model Context Protocol (initialize, tools/list, tools/call, …)',
  });

/** The OpenAPI entries of these routes (ops/openapi/endpoints.ts gathers every route file's). */
export const mcpEndpoints: Endpoint[] = [
  {
    method: 'post',
    path: '/mcp',
    operationId: 'callMcp',
    tag: 'Retrieval',
    access: 'reader',
    summary: 'Model Context Protocol server (Streamable HTTP)',
    description: `Stateless MCP over Streamable HTTP with the tools \`resolve-library-id {libraryName, query?}\`, \`query-docs {libraryId, query, tokens?}\` and \`get-library-docs {context7CompatibleLibraryID, topic?, tokens?}\`, named as Context7 names them. Clients send \`Accept: application/json, text/event-stream\`; GET and DELETE answer 405. A browser request (one with \`Origin\`) from another origin than this service's, not listed in MCP_ALLOWED_ORIGINS, or for a \`Host\` outside PUBLIC_HOSTS (loopback and IP addresses when empty) answers 403. ${READER}`,
    body: jsonRpcMessageSchema,
    ok: { description: 'The JSON-RPC response', contentType: 'application/json' },
    errors: [400, 401, 403, 405, 406, 415, 429],
  },
];
