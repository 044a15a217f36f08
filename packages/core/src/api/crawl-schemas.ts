import { z } from 'zod';
import { libraryIdSchema } from '../domain/library-id';
import { refreshEverySchema } from './refresh-every';

/** SPEC: a single-URL crawl follows at most this many pages unless it asks for more (`maxPages`). */
export const DEFAULT_CRAWL_PAGES = 150;
/**
 * The most pages any crawl may be configured for (CRAWL_MAX_PAGES cannot exceed it): a bound on what a request or a
 * job payload may carry before the operator's own limit is checked.
 */
export const CRAWL_PAGES_CEILING = 1_000_000;

export const httpUrlSchema = z
  .string()
  .max(4_096)
  .refine((value) => {
    try {
      const url = new URL(value);
      return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
    } catch {
      return false;
    }
  }, 'must be an absolute http or https URL');

/**
 * Globs compile to backtracking regular expressions, so a pattern with many wildcards in one segment
 * (`/*a*a*a*b`) can take seconds on one long path and stall a worker. These bounds keep every match to milliseconds
 * on a 4,000-character path while allowing what path filters need (`/docs/**`, `/**\/*.html`, `/api/*-v*.html`).
 */
export const PATH_PATTERN_LIMITS = { starsPerSegment: 2, globstars: 2, braceGroups: 2 } as const;

export const pathPattern = z
  .string()
  .min(1)
  .max(512)
  .superRefine((pattern, ctx) => {
    const segments = pattern.split('/');
    const globstars = segments.filter((s) => s === '**').length;
    const crowded = segments.find(
      (s) => s !== '**' && (s.match(/\*+/g)?.length ?? 0) > PATH_PATTERN_LIMITS.starsPerSegment,
    );
    const braces = (pattern.match(/\{/g) ?? []).length;
    if (crowded !== undefined) {
      ctx.addIssue({
        code: 'custom',
        message: `at most ${PATH_PATTERN_LIMITS.starsPerSegment} '*' wildcards per path segment ('${crowded}' has more)`,
      });
    }
    if (globstars > PATH_PATTERN_LIMITS.globstars) {
      ctx.addIssue({ code: 'custom', message: `at most ${PATH_PATTERN_LIMITS.globstars} '**' segments per pattern` });
    }
    if (braces > PATH_PATTERN_LIMITS.braceGroups) {
      ctx.addIssue({ code: 'custom', message: `at most ${PATH_PATTERN_LIMITS.braceGroups} '{…}' groups per pattern` });
    }
  });

/** Optional on the four job endpoints; checked against the SSRF address policy before the job is accepted. */
export const callbackUrlSchema = httpUrlSchema
  .optional()
  .describe(
    'When the job ends, its final state is POSTed here, signed as a Standard Webhooks message (webhook-id = the job id, ' +
      'webhook-timestamp, webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body"> under WEBHOOK_SECRET)',
  );

/** On ingest, crawl and ingest-url: embed beyond the SPEC's automatic limits (50 chunks on ingest, 500 on the others). */
export const embedAllSchema = z
  .boolean()
  .default(false)
  .describe('Embed every chunk of the ingestion whatever their number (`vectorized` is then true)');

/** Crawl options beyond the contract's; every default is the contract's (docs/api.md). */
export const crawlOptionsSchema = z.object({
  /** 1 = the seed page's links, as the contract has it; larger values follow links breadth-first. */
  maxDepth: z.number().int().min(0).max(10).default(1),
  /** Pages a single-URL crawl takes at most, seed included; the operator's CRAWL_MAX_PAGES bounds it. */
  maxPages: z.number().int().min(1).max(CRAWL_PAGES_CEILING).default(DEFAULT_CRAWL_PAGES),
  /** Glob patterns on the URL path (`/docs/**`); a discovered page must match one include and no exclude. */
  includePaths: z.array(pathPattern).max(50).default([]),
  excludePaths: z.array(pathPattern).max(50).default([]),
  respectRobotsTxt: z.boolean().default(true),
  /** Also seed discovery from the site's /sitemap.xml. */
  useSitemap: z.boolean().default(false),
  /**
   * `auto` (the default) fetches over HTTP and renders in Chromium only pages that are script shells; `browser`
   * renders every page; `http` never renders. bench/crawl.bench.ts compares them (bench/results.md).
   */
  renderer: z.enum(['browser', 'auto', 'http']).default('auto'),
  /** Embed the library whatever its number of chunks, not only at 500 or fewer. */
  embedAll: embedAllSchema,
});
export type CrawlOptions = z.infer<typeof crawlOptionsSchema>;

export const crawlRequestSchema = z
  .object({
    libraryId: libraryIdSchema,
    name: z.string().trim().min(1, 'name must not be empty').max(256),
    description: z.string().max(4_096).optional(),
    urls: z.array(httpUrlSchema).min(1, 'urls must contain at least one URL').max(CRAWL_PAGES_CEILING),
    replace: z.boolean().default(false),
    callbackUrl: callbackUrlSchema,
    refreshEvery: refreshEverySchema.optional(),
  })
  .extend(crawlOptionsSchema.shape)
  .meta({ id: 'CrawlRequest' });
export type CrawlRequest = z.infer<typeof crawlRequestSchema>;

export const crawlResponseSchema = z
  .object({
    success: z.boolean(),
    libraryId: z.string(),
    pagesDiscovered: z.number().int(),
    pagesCrawled: z.number().int(),
    pagesRendered: z
      .number()
      .int()
      .describe('Of the pages crawled, those loaded in Chromium (all of them with renderer "browser")'),
    /** Of the pages crawled, those unchanged since the library's last crawl: kept with their chunks and vectors. */
    pagesUnchanged: z
      .number()
      .int()
      .describe(
        'Pages unchanged since the library was last crawled (HTTP 304 or the same content): not extracted or embedded again',
      ),
    chunksIngested: z.number().int(),
    vectorized: z.boolean(),
    errors: z.array(z.string()),
  })
  .meta({ id: 'CrawlResponse' });
export type CrawlResponse = z.infer<typeof crawlResponseSchema>;

export const ingestUrlRequestSchema = z
  .object({
    libraryId: libraryIdSchema,
    name: z.string().trim().min(1, 'name must not be empty').max(256),
    description: z.string().max(4_096).optional(),
    sourceUrl: httpUrlSchema,
    sourceType: z.string().min(1).max(64),
    embedAll: embedAllSchema,
    callbackUrl: callbackUrlSchema,
  })
  .meta({ id: 'IngestUrlRequest' });
export type IngestUrlRequest = z.infer<typeof ingestUrlRequestSchema>;
