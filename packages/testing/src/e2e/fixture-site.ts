import fs from 'node:fs';
import type http from 'node:http';
import path from 'node:path';
import { startFixtureServer } from '@docshelf/testing/targets/fixture-server';

export interface FixtureServer {
  origin: string;
  /** Paths requested so far, in order (query strings kept). */
  requests: string[];
  /** TCP connections accepted, preconnects included: a canary must stay at 0. */
  connections(): number;
  /** Distinct requested paths ending in .html or /, the pages a crawler fetched. */
  pagesFetched(): string[];
  close(): Promise<void>;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css',
  '.js': 'application/javascript',
  '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/markdown; charset=utf-8',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.xml': 'application/xml',
};

export type Route = (req: http.IncomingMessage, res: http.ServerResponse) => boolean;

/** Serves a directory (and optional generated routes) on a loopback address, recording every request. */
export async function serveFixtures(
  options: {
    root?: string;
    host?: string;
    routes?: Route;
    /** Delay before each answer, to keep several crawlers busy. */ delayMs?: number;
  } = {},
): Promise<FixtureServer> {
  const answer = (req: http.IncomingMessage, res: http.ServerResponse) => {
    if (options.routes?.(req, res)) return;
    const urlPath = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    const file = options.root ? path.join(options.root, urlPath.endsWith('/') ? `${urlPath}index.html` : urlPath) : '';
    if (!options.root || !file.startsWith(options.root) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
      res.writeHead(404, { 'content-type': 'text/html' }).end('<html><body><h1>Not found</h1></body></html>');
      return;
    }
    res.writeHead(200, { 'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream' });
    fs.createReadStream(file).pipe(res);
  };
  const server = await startFixtureServer(options.host ?? '127.0.0.1', (req, res) => {
    if (options.delayMs) setTimeout(() => answer(req, res), options.delayMs);
    else answer(req, res);
  });
  return {
    origin: server.origin,
    requests: server.hits,
    connections: () => server.connections,
    pagesFetched: () =>
      [...new Set(server.hits.map((r) => new URL(r, 'http://x').pathname))]
        .filter((p) => p.endsWith('.html') || p.endsWith('/'))
        .sort(),
    close: () => server.close(),
  };
}

export const DOCS_SITE = path.resolve(__dirname, '../../../../test/fixtures/docs-site');
