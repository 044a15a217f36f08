import fs from 'node:fs';
import path from 'node:path';
import express, { Router, type RequestHandler } from 'express';
import { contentSecurityPolicy } from 'helmet';

/** Where `npm run build:web` writes the dashboard (apps/web/dist). */
export const DEFAULT_WEB_DIST_DIR = path.resolve(__dirname, '../../../web/dist');

/** The dashboard's own paths: each answers index.html and the page is drawn in the browser. Nothing else falls back. */
export const DASHBOARD_PATHS = ['/', '/login', '/libraries', '/libraries/*rest', '/add', '/jobs/*rest', '/keys'];

/**
 * The dashboard is stricter than the service's other pages (http/security-headers.ts, which also sets nosniff and
 * refuses framing): no inline style either, so its CSP allows nothing inline and nothing from another origin.
 */
const securityHeaders = contentSecurityPolicy({
  useDefaults: false,
  directives: {
    defaultSrc: ["'self'"],
    scriptSrc: ["'self'"],
    scriptSrcAttr: ["'none'"],
    styleSrc: ["'self'"],
    imgSrc: ["'self'"],
    fontSrc: ["'self'"],
    connectSrc: ["'self'"],
    objectSrc: ["'none'"],
    baseUri: ["'self'"],
    formAction: ["'self'"],
    frameAncestors: ["'none'"],
  },
}) as RequestHandler;

/** Serves the built dashboard at `/`; without a build, its pages say how to make one. */
export function dashboardRoutes(distDir: string = DEFAULT_WEB_DIST_DIR): Router {
  const index = path.join(distDir, 'index.html');
  const page: RequestHandler = (_req, res) => {
    if (!fs.existsSync(index)) {
      res
        .status(503)
        .type('html')
        .send(
          '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Docshelf</title></head><body>' +
            '<h1>The dashboard is not built</h1><p>Run <code>npm run build:web</code> (or <code>bash scripts/setup.sh</code>) ' +
            'in the Docshelf directory, then reload this page. The API itself is running: see <a href="/api/docs">/api/docs</a>.</p></body></html>',
        );
      return;
    }
    // The HTML names hashed asset files, so it must never be cached past a new build.
    res.setHeader('cache-control', 'no-cache');
    res.sendFile(index);
  };
  return Router()
    .use(
      '/assets',
      securityHeaders,
      express.static(path.join(distDir, 'assets'), { immutable: true, maxAge: '1y', index: false }),
    )
    .get('/favicon.svg', securityHeaders, express.static(distDir, { index: false }))
    .get(DASHBOARD_PATHS, securityHeaders, page);
}
