import type { Server } from 'node:http';
import pTimeout from 'p-timeout';

/**
 * Stops accepting connections and lets in-flight requests finish; at the deadline the remaining connections are
 * cut. Resolves with which of the two happened.
 */
export async function closeHttpServer(server: Server, deadlineMs: number): Promise<'drained' | 'cut'> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  // A keep-alive socket turns idle once its response is sent; close each as soon as it does.
  const sweep = setInterval(() => server.closeIdleConnections(), 100);
  server.closeIdleConnections();
  try {
    const outcome = await pTimeout(
      closed.then(() => 'drained' as const),
      { milliseconds: deadlineMs, fallback: () => 'cut' as const },
    );
    if (outcome === 'cut') {
      server.closeAllConnections();
      await closed;
    }
    return outcome;
  } finally {
    clearInterval(sweep);
  }
}
