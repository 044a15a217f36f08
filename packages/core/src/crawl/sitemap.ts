import { XMLParser } from 'fast-xml-parser';
import { z } from 'zod';

/** A sitemap lists pages (`<urlset>`) or, as a sitemap index (`<sitemapindex>`), other sitemaps. */
export type Sitemap = { kind: 'urlset'; urls: string[] } | { kind: 'index'; sitemaps: string[] };

/** Sitemaps followed from one index: a crawl takes at most 150 pages, which a few sitemaps already list. */
export const SITEMAP_INDEX_MAX_SITEMAPS = 20;

const parser = new XMLParser({
  // `<sm:urlset xmlns:sm=…>` reads as `<urlset>`; a <loc> stays a string even when it looks like a number.
  removeNSPrefix: true,
  parseTagValue: false,
  isArray: (name) => name === 'url' || name === 'sitemap',
});

const entrySchema = z.object({ loc: z.string().trim().min(1) });
const entriesSchema = z.array(z.unknown()).catch([]);
// An empty `<urlset/>` parses as '' rather than an object: it lists nothing.
const urlsetSchema = z.object({ url: entriesSchema }).catch({ url: [] });
const indexSchema = z.object({ sitemap: entriesSchema }).catch({ sitemap: [] });
const documentSchema = z.object({ urlset: z.unknown().optional(), sitemapindex: z.unknown().optional() });

const locsOf = (entries: unknown[]) => entries.flatMap((entry) => entrySchema.safeParse(entry).data?.loc ?? []);

/** Reads sitemap XML (fast-xml-parser, entities decoded); anything else reads as an empty list of pages. */
export function parseSitemap(xml: string): Sitemap {
  let parsed: unknown;
  try {
    parsed = parser.parse(xml);
  } catch {
    return { kind: 'urlset', urls: [] };
  }
  const document = documentSchema.safeParse(parsed).data;
  if (document?.sitemapindex !== undefined) return { kind: 'index', sitemaps: locsOf(indexSchema.parse(document.sitemapindex).sitemap) };
  return { kind: 'urlset', urls: locsOf(urlsetSchema.parse(document?.urlset).url) };
}

/**
 * The page URLs a site's sitemap lists. A sitemap index is followed one level down, to at most
 * SITEMAP_INDEX_MAX_SITEMAPS of its http(s) sitemaps, one after another; `fetchXml` unpacks gzipped ones (.xml.gz)
 * and answers null for a sitemap that cannot be had.
 */
export async function readSitemapUrls(fetchXml: (url: string) => Promise<string | null>, url: string): Promise<string[]> {
  const xml = await fetchXml(url);
  if (xml === null) return [];
  const sitemap = parseSitemap(xml);
  if (sitemap.kind === 'urlset') return sitemap.urls;
  const children = [...new Set(sitemap.sitemaps.flatMap((loc) => httpUrlOf(loc, url) ?? []))].slice(0, SITEMAP_INDEX_MAX_SITEMAPS);
  const urls: string[] = [];
  for (const child of children) {
    const childXml = await fetchXml(child);
    const listed = childXml === null ? undefined : parseSitemap(childXml);
    // Indexes do not nest (sitemaps.org): one found below an index is skipped.
    if (listed?.kind === 'urlset') urls.push(...listed.urls);
  }
  return urls;
}

function httpUrlOf(loc: string, base: string): string | undefined {
  if (!URL.canParse(loc, base)) return undefined;
  const url = new URL(loc, base);
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
}
