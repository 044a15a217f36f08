import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface JsonRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  rawBody: Buffer;
  body: unknown;
}

export interface JsonResponse {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface RunningServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** A small HTTP server on 127.0.0.1 for the fakes of other services' JSON APIs. */
export async function startJsonServer(
  handle: (request: JsonRequest) => Promise<JsonResponse> | JsonResponse,
): Promise<RunningServer> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks);
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      let body: unknown;
      try {
        body = rawBody.length > 0 ? JSON.parse(rawBody.toString('utf8')) : undefined;
      } catch {
        body = undefined;
      }
      void Promise.resolve(
        handle({
          method: req.method ?? 'GET',
          path: url.pathname,
          query: url.searchParams,
          headers: req.headers,
          rawBody,
          body,
        }),
      )
        .catch((error: unknown): JsonResponse => ({ status: 500, body: { error: String(error) } }))
        .then((reply) => {
          const payload = reply.body === undefined ? '' : JSON.stringify(reply.body);
          res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
          res.end(payload);
        });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
