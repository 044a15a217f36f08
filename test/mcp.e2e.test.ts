import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { countTokens } from 'gpt-tokenizer/cjs/encoding/o200k_base';
import request from 'supertest';
import { startHarness, type Harness } from '@docshelf/testing/e2e/harness';

const PAGES = [
  {
    id: 'routing',
    title: 'Router › Defining routes',
    url: 'https://router.example/routes',
    content:
      'Define a route with router.add(path, handler). Paths may hold :params, read from request.params inside the handler.',
  },
  {
    id: 'middleware',
    title: 'Router › Middleware',
    url: 'https://router.example/middleware',
    content:
      'Middleware runs before every handler. Register it with router.use(fn); call next() to continue or throw to stop the request.',
  },
  {
    id: 'errors',
    title: 'Router › Error handling',
    url: 'https://router.example/errors',
    content:
      'An error thrown by a handler reaches the error handler registered with router.onError, which picks the status code.',
  },
];

describe('POST /mcp with the official MCP SDK client over HTTP (API + worker + Redis + SQLite)', () => {
  let h: Harness;
  let server: http.Server;
  let origin: string;
  let readKey: string;

  beforeAll(async () => {
    h = await startHarness();
    const admin = await h.createKey('admin');
    readKey = await h.createKey('read');
    await request(h.app)
      .post('/api/ingest')
      .set('Authorization', `Bearer ${admin}`)
      .send({
        libraryId: 'acme/router',
        name: 'Acme Router',
        description: 'HTTP routing for Node',
        version: '3.2',
        chunks: PAGES,
      })
      .expect(200);
    server = h.app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await h.close();
  });

  async function connect(key: string | null): Promise<Client> {
    const client = new Client({ name: 'docshelf-test', version: '1.0.0' });
    const headers: Record<string, string> = key ? { Authorization: `Bearer ${key}` } : {};
    await client.connect(new StreamableHTTPClientTransport(new URL(`${origin}/mcp`), { requestInit: { headers } }));
    return client;
  }
  const textOf = (result: unknown) => ((result as CallToolResult).content[0] as { text: string }).text;

  it('lists the three Context7-named tools, read-only', async () => {
    const client = await connect(readKey);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['get-library-docs', 'query-docs', 'resolve-library-id']);
    for (const tool of tools) expect(tool.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    const query = tools.find((t) => t.name === 'query-docs')!;
    expect(Object.keys(query.inputSchema.properties ?? {}).sort()).toEqual(['libraryId', 'query', 'tokens']);
    expect(query.inputSchema.required?.sort()).toEqual(['libraryId', 'query']);
    const legacy = tools.find((t) => t.name === 'get-library-docs')!;
    expect(Object.keys(legacy.inputSchema.properties ?? {}).sort()).toEqual([
      'context7CompatibleLibraryID',
      'tokens',
      'topic',
    ]);
    await client.close();
  });

  it('resolves a library by name and answers query-docs with packed docs and their sources', async () => {
    const client = await connect(readKey);
    const resolved = textOf(
      await client.callTool({ name: 'resolve-library-id', arguments: { libraryName: 'acme router' } }),
    );
    expect(resolved).toContain('Library ID: acme/router');
    expect(resolved).toContain('Version: 3.2');

    const docs = await client.callTool({
      name: 'query-docs',
      arguments: { libraryId: 'acme/router', query: 'how do I run code before each handler', tokens: 1000 },
    });
    expect(docs.isError).toBeFalsy();
    const text = textOf(docs);
    // The best piece comes first, with its title and source: page, library and version, and the day it was fetched.
    expect(text.startsWith('### Router › Middleware\n')).toBe(true);
    expect(text.split('\n')[1]).toMatch(
      /^Source: https:\/\/router\.example\/middleware \(acme\/router@3\.2, fetched \d{4}-\d\d-\d\d\)$/,
    );
    expect(text).toContain('router.use(fn)');
    expect(countTokens(text, { disallowedSpecial: new Set() })).toBeLessThanOrEqual(1000);

    // Context7 writes ids with a leading slash; the older tool without a topic reads the library from its start.
    const legacy = textOf(
      await client.callTool({
        name: 'get-library-docs',
        arguments: { context7CompatibleLibraryID: '/acme/router', tokens: 500 },
      }),
    );
    expect(legacy).toContain('Router › Defining routes');
    expect(legacy).toMatch(/\nSource: \S+ \(acme\/router@3\.2, fetched \d{4}-\d\d-\d\d\)\n/);
    await client.close();
  });

  it('reports an unknown library and bad arguments as tool errors the agent can read', async () => {
    const client = await connect(readKey);
    const unknown = await client.callTool({
      name: 'query-docs',
      arguments: { libraryId: 'acme/nothing', query: 'routes' },
    });
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toMatch(/Library 'acme\/nothing' not found.*resolve-library-id/);
    const tooSmall = await client.callTool({
      name: 'query-docs',
      arguments: { libraryId: 'acme/router', query: 'routes', tokens: 5 },
    });
    expect(tooSmall.isError).toBe(true);
    expect(textOf(tooSmall)).toMatch(/tokens/);
    const none = textOf(await client.callTool({ name: 'resolve-library-id', arguments: { libraryName: 'zzzz' } }));
    expect(none).toMatch(/No library matches "zzzz"/);
    await client.close();
  });

  it('needs a key like the REST read endpoints, and refuses GET and DELETE of the stateless endpoint', async () => {
    await expect(connect(null)).rejects.toThrow(/UNAUTHORIZED/);
    const get = await request(h.app).get('/mcp').set('Authorization', `Bearer ${readKey}`).expect(405);
    expect(get.headers.allow).toBe('POST');
    await request(h.app)
      .post('/mcp')
      .set('Authorization', `Bearer ${readKey}`)
      .set('Content-Type', 'text/plain')
      .send('hi')
      .expect(415);
  });
});
