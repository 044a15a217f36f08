import type { Config } from '@docshelf/config';
import { AppError } from '@docshelf/core';
import type { RequestHandler } from 'express';

type Limits = Config['limits'];

/** A request target (path and query) longer than MAX_URL_LENGTH: 414, before any other work. */
export function limitRequestUrl(limits: Limits): RequestHandler {
  return (req, _res, next) => {
    if (req.originalUrl.length > limits.urlLength) {
      throw new AppError(
        'URL_TOO_LONG',
        `Request URL is ${req.originalUrl.length} characters; the limit is ${limits.urlLength} (MAX_URL_LENGTH)`,
        414,
        {
          retryable: false,
          details: [{ limit: limits.urlLength, length: req.originalUrl.length }],
        },
      );
    }
    next();
  };
}

interface ChunkLike {
  content: string;
  url?: string;
}

/**
 * The sizes a JSON body may have beyond BODY_LIMIT, checked after validation and before anything is written:
 * chunks per request (413 TOO_MANY_CHUNKS), UTF-8 bytes per chunk content (413 CHUNK_TOO_LARGE) and the length of
 * every URL the body carries (400 URL_TOO_LONG), each naming the limit and its variable.
 */
export function checkBodyLimits(
  limits: Limits,
  body: { chunks?: ChunkLike[]; urls?: string[]; sourceUrl?: string; repoUrl?: string; callbackUrl?: string },
): void {
  const urls: [string, string | undefined][] = [
    ['sourceUrl', body.sourceUrl],
    ['repoUrl', body.repoUrl],
    ['callbackUrl', body.callbackUrl],
    ...(body.urls ?? []).map((url, i): [string, string] => [`urls.${i}`, url]),
    ...(body.chunks ?? []).map((chunk, i): [string, string | undefined] => [`chunks.${i}.url`, chunk.url]),
  ];
  const longUrls = urls.filter(([, url]) => url !== undefined && url.length > limits.urlLength);
  if (longUrls.length > 0) {
    throw new AppError(
      'URL_TOO_LONG',
      `${longUrls.length} URL(s) longer than ${limits.urlLength} characters (MAX_URL_LENGTH): ${longUrls
        .slice(0, 5)
        .map(([path]) => path)
        .join(', ')}`,
      400,
      {
        retryable: false,
        details: longUrls.slice(0, 50).map(([path, url]) => ({ path, length: url!.length, limit: limits.urlLength })),
      },
    );
  }
  const chunks = body.chunks ?? [];
  if (chunks.length > limits.chunksPerRequest) {
    throw new AppError(
      'TOO_MANY_CHUNKS',
      `${chunks.length} chunks in one request; the limit is ${limits.chunksPerRequest} (MAX_CHUNKS_PER_REQUEST): send them in several requests`,
      413,
      {
        retryable: false,
        details: [{ path: 'chunks', count: chunks.length, limit: limits.chunksPerRequest }],
      },
    );
  }
  const large = chunks.flatMap((chunk, i) => {
    const bytes = Buffer.byteLength(chunk.content, 'utf8');
    return bytes > limits.chunkBytes ? [{ path: `chunks.${i}.content`, bytes, limit: limits.chunkBytes }] : [];
  });
  if (large.length > 0) {
    throw new AppError(
      'CHUNK_TOO_LARGE',
      `${large.length} chunk(s) larger than ${limits.chunkBytes} bytes (MAX_CHUNK_BYTES): ${large
        .slice(0, 5)
        .map((d) => d.path)
        .join(', ')}`,
      413,
      {
        retryable: false,
        details: large.slice(0, 50),
      },
    );
  }
}

/**
 * CRAWL_MAX_PAGES bounds what one crawl may ask for: `maxPages` of a crawl that follows links, and the number of URLs
 * of one that does not (400 TOO_MANY_PAGES, naming the limit and its variable).
 */
export function checkCrawlPages(maxPages: number, body: { maxPages: number; urls: string[] }): void {
  const over = [
    ...(body.maxPages > maxPages ? [{ path: 'maxPages', value: body.maxPages, limit: maxPages }] : []),
    ...(body.urls.length > maxPages ? [{ path: 'urls', count: body.urls.length, limit: maxPages }] : []),
  ];
  if (over.length === 0) return;
  throw new AppError(
    'TOO_MANY_PAGES',
    `A crawl may take at most ${maxPages} pages on this server (CRAWL_MAX_PAGES): ${over.map((o) => o.path).join(' and ')} asks for more`,
    400,
    { retryable: false, details: over },
  );
}
