import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  evaluateReadiness,
  refuseMetricsScrape,
  renderMetrics,
  type ReadinessCheck,
  type Registry,
} from '@docshelf/observability';

export interface HealthServerOptions {
  /** The port to take; when it is in use a free one is taken instead (see the returned port). */
  port: number;
  host: string;
  /** The readiness checks, asked for on each probe (they change while the process stops). */
  checks: () => Record<string, ReadinessCheck>;
  /** Extra fields for the /readyz body, e.g. the state of each queue's worker. */
  describe: () => Record<string, unknown>;
  registry: Registry;
  metricsToken?: string;
  /** Without a token, whether anyone may scrape /metrics (METRICS_PUBLIC). */
  metricsPublic?: boolean;
}

export interface HealthServer {
  port: number;
  close(): Promise<void>;
}

/** The worker's small HTTP side for orchestrators and Prometheus: /healthz, /readyz and /metrics, nothing else. */
export async function startHealthServer(options: HealthServerOptions): Promise<HealthServer> {
  const server = http.createServer((req, res) => {
    void answer(options, req, res).catch((error: unknown) =>
      sendJson(res, 500, { error: (error as Error).message, code: 'INTERNAL' }),
    );
  });
  try {
    await listen(server, options.port, options.host);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') {
      throw new Error(
        `worker health server could not listen on ${options.host}:${options.port} (${(error as Error).message})`,
        {
          cause: error,
        },
      );
    }
    await listen(server, 0, options.host);
  }
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function listen(server: http.Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

async function answer(
  options: HealthServerOptions,
  req: http.IncomingMessage,
  res: http.ServerResponse,
): Promise<void> {
  const path = new URL(req.url ?? '/', 'http://worker').pathname;
  if (req.method !== 'GET')
    return sendJson(res, 405, { error: `Method ${req.method} not allowed`, code: 'METHOD_NOT_ALLOWED' });
  if (path === '/healthz') return sendJson(res, 200, { status: 'ok' });
  if (path === '/readyz') {
    const report = await evaluateReadiness(options.checks());
    return sendJson(res, report.ready ? 200 : 503, { ...report.body, ...options.describe() });
  }
  if (path === '/metrics') {
    const refused = refuseMetricsScrape(req.headers.authorization, {
      token: options.metricsToken,
      public: options.metricsPublic ?? false,
    });
    if (refused) return sendJson(res, refused.status, refused.body);
    const { contentType, body } = await renderMetrics(options.registry);
    res.writeHead(200, { 'content-type': contentType }).end(body);
    return;
  }
  sendJson(res, 404, { error: `No route for GET ${path}`, code: 'NOT_FOUND' });
}

function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(body));
}
