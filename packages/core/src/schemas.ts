/**
 * The schemas and inferred types of everything that crosses the API, without the use cases: what the dashboard
 * imports (types only) as `@docshelf/core/schemas`.
 */
export * from './domain/schemas';
export * from './domain/types';
export * from './domain/library-id';
export * from './api/schemas';
export * from './api/crawl-schemas';
export * from './api/refresh-schemas';
export * from './api/git-schemas';
export * from './api/archive-schemas';
export * from './api/retrieval-schemas';
export * from './jobs/job-record';
