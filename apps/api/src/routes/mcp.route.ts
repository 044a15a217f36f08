import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { Router, type RequestHandler, type Response } from 'express';
import type { ApiDeps } from '../api-deps';
import { authDeps, requireReader } from '../http/auth';
import { requireKnownOrigin } from '../http/known-origin';
import { createDocsMcpServer } from '../mcp/docs-mcp-server';

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
