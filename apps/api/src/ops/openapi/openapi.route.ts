import { Router } from 'express';
import { renderDocsPage } from './docs-page';
import { buildOpenApiDocument } from './openapi-document';

/** The document and its HTML rendering are built once: both depend only on code. */
export function openApiRoutes(): Router {
  const document = buildOpenApiDocument();
  const page = renderDocsPage(document);
  return Router()
    .get('/api/openapi.json', (_req, res) => {
      res.json(document);
    })
    .get('/api/docs', (_req, res) => {
      res.type('html').send(page);
    });
}
