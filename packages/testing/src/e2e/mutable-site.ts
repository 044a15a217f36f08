import { createHash } from 'node:crypto';
import type http from 'node:http';
import type { Embedder } from '@docshelf/core';

const WORDS =
  'queue worker retry backoff lock lease schedule cron payload handler timeout priority batch ack nack'.split(' ');
const prose = (seed: number, words: number) =>
  Array.from({ length: words }, (_, i) => WORDS[(seed * 5 + i * 7 + ((seed * i) % 3)) % WORDS.length]).join(' ');

/** A small site whose pages can change or disappear between crawls; pages carry ETag and Last-Modified. */
export function mutableSite(pages: number) {
  const html = new Map<string, string>();
  const page = (n: number, revision: string) =>
    `<!DOCTYPE html><html><head><title>Page ${n}</title></head><body><nav><a href="/docs/index.html">Home</a></nav><main>
<h1>Page ${n}: ${revision}</h1><p>Keyword page${n}${revision}. ${prose(n, 120)}.</p><h2>More</h2><p>${prose(n + 50, 80)}.</p></main></body></html>`;
  const paths = Array.from({ length: pages }, (_, i) => `/docs/p${i + 1}.html`);
  html.set(
    '/docs/index.html',
    `<!DOCTYPE html><html><head><title>Index</title></head><body><main><h1>Docs</h1><p>${prose(0, 60)}.</p>
<ul>${paths.map((p) => `<li><a href="${p}">${p}</a></li>`).join('')}</ul></main></body></html>`,
  );
  paths.forEach((p, i) => html.set(p, page(i + 1, 'first')));
  const statuses: number[] = [];
  const route = (req: http.IncomingMessage, res: http.ServerResponse): boolean => {
    const path = new URL(req.url ?? '/', 'http://site').pathname;
    if (!path.startsWith('/docs/')) return false;
    const body = html.get(path);
    if (body === undefined) {
      statuses.push(404);
      res.writeHead(404, { 'content-type': 'text/html' }).end('<html><body><h1>Not found</h1></body></html>');
      return true;
    }
    const etag = `"${createHash('sha1').update(body).digest('hex')}"`;
    const validators = { etag, 'last-modified': 'Tue, 02 Jan 2024 10:00:00 GMT' };
    const status = req.headers['if-none-match'] === etag ? 304 : 200;
    statuses.push(status);
    if (status === 304) res.writeHead(304, validators).end();
    else res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', ...validators }).end(body);
    return true;
  };
  return {
    route,
    statuses,
    change: (n: number) => html.set(`/docs/p${n}.html`, page(n, 'second')),
    remove: (n: number) => html.delete(`/docs/p${n}.html`),
  };
}

/**
 * Every chunk text the worker's embedder is asked to embed from now on (the worker shares the harness's embedder
 * object), into `into`: empty it before the step to watch.
 */
export function recordEmbeddedTexts(embedder: Embedder, into: string[]): void {
  const embed = embedder.embed.bind(embedder);
  embedder.embed = async (texts, scope) => {
    if (scope?.kind === 'document') into.push(...texts);
    return embed(texts, scope);
  };
}
