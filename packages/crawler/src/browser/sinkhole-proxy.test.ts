import net from 'node:net';
import { startSinkholeProxy } from './sinkhole-proxy';

function sendThrough(proxyUrl: string, request: string): Promise<string> {
  const { hostname, port } = new URL(proxyUrl);
  return new Promise((resolve, reject) => {
    let answer = '';
    const socket = net.connect(Number(port), hostname, () => socket.write(request));
    socket.on('data', (data) => (answer += data.toString()));
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
  });
}

describe('startSinkholeProxy', () => {
  it('refuses tunnels and proxied requests alike, and reports the host each one aimed at', async () => {
    const attempts: string[] = [];
    const proxy = await startSinkholeProxy((host) => attempts.push(host));
    try {
      expect(await sendThrough(proxy.url, 'CONNECT 127.0.0.2:8080 HTTP/1.1\r\nHost: 127.0.0.2:8080\r\n\r\n')).toMatch(
        /^HTTP\/1\.1 403 /,
      );
      expect(await sendThrough(proxy.url, 'GET http://169.254.169.254/latest/meta-data/ HTTP/1.1\r\n\r\n')).toMatch(
        /^HTTP\/1\.1 403 /,
      );
      expect(attempts).toEqual(['127.0.0.2', '169.254.169.254']);
    } finally {
      await proxy.close();
    }
  });
});
