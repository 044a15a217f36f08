import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FixtureServer {
  /** e.g. `http://127.0.0.2:43121` (or with the hostname given to start). */
  origin: string;
  port: number;
  /** TCP connections accepted: counts preconnects and upgrades too, not only complete requests. */
  connections: number;
  /** Requests seen, by path. */
  hits: string[];
  close(): Promise<void>;
}

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

/** A real HTTP server on a loopback address, for tests. */
export async function startFixtureServer(
  listenOn: string,
  handler: Handler,
  hostname = listenOn,
): Promise<FixtureServer> {
  const server = http.createServer();
  const fixture: FixtureServer = { origin: '', port: 0, connections: 0, hits: [], close: async () => undefined };
  server.on('connection', () => (fixture.connections += 1));
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    fixture.hits.push(request.url ?? '');
    handler(request, response);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, listenOn, () => resolve());
  });
  fixture.port = (server.address() as AddressInfo).port;
  fixture.origin = `http://${hostname}:${fixture.port}`;
  fixture.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return fixture;
}

/** A canary on 127.0.0.2 that should never be reached: it answers every request, so any hit is a leak. */
export function startCanary(): Promise<FixtureServer> {
  return startFixtureServer('127.0.0.2', (_request, response) => {
    response.setHeader('access-control-allow-origin', '*');
    response.end('canary reached');
  });
}
