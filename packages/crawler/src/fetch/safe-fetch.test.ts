import zlib from 'node:zlib';
import type { LookupAddress } from 'node:dns';
import { BlockedUrlError, createAddressPolicy } from './address-policy';
import { DEFAULT_USER_AGENT, FetchFailedError, safeFetch } from './safe-fetch';
import { startCanary, startFixtureServer, type FixtureServer } from '@docshelf/testing/targets/fixture-server';

const PAGE = '<html><head><title>Fixture</title></head><body><h1>Hello docs</h1></body></html>';

let site: FixtureServer;
let canary: FixtureServer;
const policy = createAddressPolicy({ allowlist: ['localhost'] });
const seenHeaders = new Map<string, Record<string, unknown>>();
const openResponses = new Set<import('node:http').ServerResponse>();

beforeAll(async () => {
  canary = await startCanary();
  site = await startFixtureServer(
    '127.0.0.1',
    (request, response) => {
      const path = new URL(request.url ?? '/', 'http://fixture').pathname;
      seenHeaders.set(path, request.headers);
      const html = { 'content-type': 'text/html; charset=UTF-8' };
      const redirect = (status: number, location: string) => response.writeHead(status, { location }).end();
      if (path === '/page') return response.writeHead(200, html).end(PAGE);
      if (path === '/gzip')
        return response.writeHead(200, { ...html, 'content-encoding': 'gzip' }).end(zlib.gzipSync(PAGE));
      if (path === '/br')
        return response.writeHead(200, { ...html, 'content-encoding': 'br' }).end(zlib.brotliCompressSync(PAGE));
      if (path === '/deflate')
        return response.writeHead(200, { ...html, 'content-encoding': 'deflate' }).end(zlib.deflateSync(PAGE));
      if (path === '/raw-deflate')
        return response.writeHead(200, { ...html, 'content-encoding': 'deflate' }).end(zlib.deflateRawSync(PAGE));
      if (path === '/big') return response.writeHead(200, { 'content-type': 'text/plain' }).end('x'.repeat(5000));
      if (path === '/big-chunked') {
        response.writeHead(200, { 'content-type': 'text/plain' });
        for (let i = 0; i < 10; i += 1) response.write('y'.repeat(500));
        return response.end();
      }
      if (path === '/gzip-bomb') {
        return response
          .writeHead(200, { 'content-encoding': 'gzip' })
          .end(zlib.gzipSync(Buffer.alloc(20 * 1024 * 1024)));
      }
      if (path === '/hang') return void openResponses.add(response);
      if (path === '/missing') return response.writeHead(404, html).end('<h1>Not found</h1>');
      if (path === '/r1') return redirect(301, 'r2');
      if (path === '/r2') return redirect(307, '/page?from=r2');
      if (path === '/see-other') return redirect(303, '/page');
      if (path === '/loop') return redirect(302, '/loop');
      if (path === '/to-canary') return redirect(302, `${canary.origin}/canary`);
      if (path === '/to-other-origin') return redirect(302, `http://127.0.0.1:${site.port}/echo`);
      if (path === '/echo')
        return response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(request.headers));
      response.writeHead(500).end();
    },
    'localhost',
  );
});

afterAll(async () => {
  openResponses.forEach((response) => response.destroy());
  await Promise.all([site.close(), canary.close()]);
});

async function failure<T extends Error>(promise: Promise<unknown>, type: new (...args: never[]) => T): Promise<T> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(type);
  return error as T;
}

describe('safeFetch', () => {
  it('fetches a page from an allow-listed host', async () => {
    const response = await safeFetch(`${site.origin}/page`, { policy });
    expect(response).toMatchObject({
      url: `${site.origin}/page`,
      status: 200,
      contentType: 'text/html',
      redirects: [],
    });
    expect(response.body.toString()).toBe(PAGE);
    expect(response.headers['content-type']).toBe('text/html; charset=UTF-8');
    expect(seenHeaders.get('/page')).toMatchObject({
      'user-agent': DEFAULT_USER_AGENT,
      'accept-encoding': 'gzip, deflate, br',
    });
    expect(seenHeaders.get('/page')?.accept).toContain('text/html');
  });

  it('lets callers set headers but keeps the encodings it can decode', async () => {
    await safeFetch(`${site.origin}/page`, {
      policy,
      headers: { 'User-Agent': 'Custom/1', 'Accept-Encoding': 'zstd', Host: 'evil.example' },
    });
    expect(seenHeaders.get('/page')).toMatchObject({
      'user-agent': 'Custom/1',
      'accept-encoding': 'gzip, deflate, br',
      host: `localhost:${site.port}`,
    });
  });

  it.each(['/gzip', '/br', '/deflate', '/raw-deflate'])('decodes %s bodies', async (path) => {
    const response = await safeFetch(`${site.origin}${path}`, { policy });
    expect(response.body.toString()).toBe(PAGE);
    expect(response.headers['content-encoding']).toBeUndefined();
  });

  it('returns error statuses instead of throwing', async () => {
    const response = await safeFetch(`${site.origin}/missing`, { policy });
    expect(response.status).toBe(404);
    expect(response.body.toString()).toContain('Not found');
  });

  it('sends HEAD without reading a body', async () => {
    const response = await safeFetch(`${site.origin}/page`, { policy, method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(response.body.length).toBe(0);
  });

  it.each(['/big', '/big-chunked'])('stops %s at maxBytes', async (path) => {
    const error = await failure(safeFetch(`${site.origin}${path}`, { policy, maxBytes: 1000 }), FetchFailedError);
    expect(error.message).toBe(`Fetch of ${site.origin}${path} failed: response exceeds 1000 bytes`);
    expect(error.code).toBe('FETCH_FAILED');
  });

  it('counts decoded bytes, so a gzip bomb stops at maxBytes', async () => {
    const error = await failure(
      safeFetch(`${site.origin}/gzip-bomb`, { policy, maxBytes: 1024 * 1024 }),
      FetchFailedError,
    );
    expect(error.message).toContain(`response exceeds ${1024 * 1024} bytes`);
  });

  it('gives up after timeoutMs', async () => {
    const startedAt = Date.now();
    const error = await failure(safeFetch(`${site.origin}/hang`, { policy, timeoutMs: 300 }), FetchFailedError);
    expect(error.message).toBe(`Fetch of ${site.origin}/hang failed: timeout after 300ms`);
    expect(Date.now() - startedAt).toBeLessThan(2000);
  });

  it('stops when the caller aborts', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('crawl cancelled')), 100);
    await expect(safeFetch(`${site.origin}/hang`, { policy, signal: controller.signal })).rejects.toThrow(
      'crawl cancelled',
    );
  });

  it('follows relative redirects and reports them', async () => {
    const response = await safeFetch(`${site.origin}/r1`, { policy });
    expect(response.url).toBe(`${site.origin}/page?from=r2`);
    expect(response.redirects).toEqual([`${site.origin}/r2`, `${site.origin}/page?from=r2`]);
    expect(response.body.toString()).toBe(PAGE);
  });

  it('follows a 303 See Other', async () => {
    expect((await safeFetch(`${site.origin}/see-other`, { policy })).url).toBe(`${site.origin}/page`);
  });

  it('refuses a redirect to a private address before connecting to it', async () => {
    const error = await failure(safeFetch(`${site.origin}/to-canary`, { policy }), BlockedUrlError);
    expect(error.message).toBe(`Blocked ${canary.origin}/canary: 127.0.0.2 is a loopback address`);
    expect(canary.connections).toBe(0);
  });

  it('stops redirect loops', async () => {
    const error = await failure(safeFetch(`${site.origin}/loop`, { policy }), FetchFailedError);
    expect(error.message).toBe(`Fetch of ${site.origin}/loop failed: too many redirects (more than 5)`);
    await expect(safeFetch(`${site.origin}/r1`, { policy, maxRedirects: 1 })).rejects.toThrow(
      'too many redirects (more than 1)',
    );
  });

  it('drops credentials when a redirect leaves the origin', async () => {
    const both = createAddressPolicy({ allowlist: ['localhost', '127.0.0.1'] });
    const response = await safeFetch(`${site.origin}/to-other-origin`, {
      policy: both,
      headers: { authorization: 'Bearer secret', cookie: 'a=1', 'x-keep': 'yes' },
    });
    const echoed = JSON.parse(response.body.toString()) as Record<string, string>;
    expect(echoed.authorization).toBeUndefined();
    expect(echoed.cookie).toBeUndefined();
    expect(echoed['x-keep']).toBe('yes');
  });

  it('refuses a private first URL without connecting', async () => {
    await failure(safeFetch(`${canary.origin}/direct`, { policy }), BlockedUrlError);
    await failure(safeFetch(`http://[::ffff:127.0.0.2]:${canary.port}/mapped`, { policy }), BlockedUrlError);
    await failure(safeFetch('file:///etc/passwd', { policy }), BlockedUrlError);
    expect(canary.connections).toBe(0);
  });

  it('checks the address it connects to, so DNS rebinding after the check gains nothing', async () => {
    // The name answers with a public address when checked and with the canary's when connected to.
    const answers: string[][] = [['93.184.216.34'], ['127.0.0.2']];
    const resolve = async (): Promise<LookupAddress[]> =>
      (answers.shift() ?? ['127.0.0.2']).map((address) => ({ address, family: 4 }));
    const rebinding = createAddressPolicy({ allowlist: [], resolve });
    const error = await failure(
      safeFetch(`http://rebind.example:${canary.port}/`, { policy: rebinding }),
      BlockedUrlError,
    );
    expect(error.message).toBe('Blocked rebind.example: rebind.example resolves to 127.0.0.2, a loopback address');
    expect(canary.connections).toBe(0);
  });

  it('says when DNS fails', async () => {
    const error = await failure(safeFetch('http://does-not-exist.invalid/', { policy }), FetchFailedError);
    expect(error.message).toMatch(
      /^Fetch of http:\/\/does-not-exist\.invalid\/ failed: DNS lookup failed for does-not-exist\.invalid \(E[A-Z_]+\)$/,
    );
    expect(error.kind).toBe('dns');
  });

  it('says when the connection is refused', async () => {
    const closed = await startFixtureServer('127.0.0.1', () => undefined, 'localhost');
    await closed.close();
    const error = await failure(safeFetch(`${closed.origin}/`, { policy }), FetchFailedError);
    expect(error.message).toBe(`Fetch of ${closed.origin}/ failed: connection refused by localhost:${closed.port}`);
  });
});
