import type { Server } from 'node:http';

/**
 * Stops accepting connections and lets in-flight requests finish; at the deadline the remaining connections are
 * cut. Resolves with which of the two happened.
 */
export async function closeHttpServer(server: Server, deadlineMs: number): Promise<'drained' | 'cut'> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  // A keep-alive socket turns idle once its response is sent; close each as soon as it does.
  const sweep = setInterval(() => server.closeIdleConnections(), 100);
  server.closeIdleConnections();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'cut'>((resolve) => {
    timer = setTimeout(() => resolve('cut'), deadlineMs);
  });
  try {
    const outcome = await Promise.race([closed.then(() => 'drained' as const), deadline]);
    if (outcome === 'cut') {
      server.closeAllConnections();
      await closed;
    }
    return outcome;
  } finally {
    clearInterval(sweep);
    clearTimeout(timer);
  }
}
