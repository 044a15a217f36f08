import net from 'node:net';

export interface SinkholeProxy {
  /** `http://127.0.0.1:<port>`, for Chromium's proxy setting. */
  url: string;
  close(): Promise<void>;
}

/** `CONNECT host:443 HTTP/1.1` or `GET http://host/path HTTP/1.1` → `host`. */
function findTargetHost(requestLine: string): string {
  const [method, target = ''] = requestLine.split(' ');
  if (method === 'CONNECT') return target.replace(/:\d+$/, '');
  return URL.canParse(target) ? new URL(target).hostname : target;
}

/**
 * A proxy that drops every connection. Chromium is pointed at it so that anything it would fetch by itself, outside
 * the route handler (preconnects, WebSockets from workers, anything a future Chromium adds), reaches nothing.
 */
export async function startSinkholeProxy(
  onAttempt: (host: string, requestLine: string) => void,
): Promise<SinkholeProxy> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.once('data', (data) => {
      const requestLine = data.toString('latin1').split('\r\n', 1)[0] ?? '';
      onAttempt(findTargetHost(requestLine), requestLine);
    });
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
    // 403 rather than a bare reset, so Chromium fails the request at once instead of retrying.
    socket.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  server.unref();
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        sockets.forEach((socket) => socket.destroy());
        server.close(() => resolve());
      }),
  };
}
