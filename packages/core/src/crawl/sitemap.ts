import { Parser } from 'htmlparser2';
import { boundLinks, MAX_SITEMAP_URLS } from './link-bounds';
import { nextTurn } from './next-turn';

/** A sitemap lists pages (`<urlset>`) or, as a sitemap index (`<sitemapindex>`), other sitemaps. */
export type Sitemap = { kind: 'urlset'; urls: string[] } | { kind: 'index'; sitemaps: string[] };

/** Sitemaps followed from one index: a crawl takes at most 150 pages, which a few sitemaps already list. */
export const SITEMAP_INDEX_MAX_SITEMAPS = 20;

const ENTRY_OF = { urlset: 'url', sitemapindex: 'sitemap' } as const;

/**
 * Reads sitemap XML with htmlparser2's XML mode (entities and CDATA decoded, namespace prefixes ignored, no tree
 * built): the `<loc>` of each `<url>` or `<sitemap>` entry. Anything that is not a sitemap reads as no pages.
 */
export function parseSitemap(xml: string): Sitemap {
  const reader = sitemapReader();
  reader.parser.end(xml);
  return reader.result();
}

/** Characters of sitemap XML parsed between two turns of the event loop. */
const PARSE_SLICE = 256 * 1024;

/** parseSitemap in slices, giving the event loop a turn between them: a 10 MB sitemap is a second of parsing. */
export async function parseSitemapInTurns(xml: string): Promise<Sitemap> {
  const reader = sitemapReader();
  for (let at = 0; at < xml.length; at += PARSE_SLICE) {
    reader.parser.write(xml.slice(at, at + PARSE_SLICE));
    await nextTurn();
  }
  reader.parser.end();
  return reader.result();
}

function sitemapReader(): { parser: Parser; result: () => Sitemap } {
  const open: string[] = [];
  const locs: string[] = [];
  let root: string | undefined;
  let loc: string | undefined;
  const parser = new Parser(
    {
      onopentag(name) {
        open.push(name.slice(name.lastIndexOf(':') + 1).toLowerCase());
        root ??= open[0];
        const [, entry, field] = open;
        if (
          open.length === 3 &&
          field === 'loc' &&
          (root === 'urlset' || root === 'sitemapindex') &&
          entry === ENTRY_OF[root]
        )
          loc = '';
      },
      ontext(text) {
        if (loc !== undefined) loc += text;
      },
      onclosetag() {
        if (open.length === 3 && loc !== undefined) {
          if (loc.trim()) locs.push(loc.trim());
          loc = undefined;
        }
        open.pop();
      },
    },
    { xmlMode: true, decodeEntities: true, recognizeCDATA: true },
  );
  return {
    parser,
    result: () => (root === 'sitemapindex' ? { kind: 'index', sitemaps: locs } : { kind: 'urlset', urls: locs }),
  };
}

/**
 * The page URLs a site's sitemap lists. A sitemap index is followed one level down, to at most
 * SITEMAP_INDEX_MAX_SITEMAPS of its http(s) sitemaps, one after another; `fetchXml` unpacks gzipped ones (.xml.gz)
 * and answers null for a sitemap that cannot be had. At most MAX_SITEMAP_URLS URLs are taken, none longer than
 * MAX_URL_LENGTH; `notes` says what was skipped.
 */
export async function readSitemapUrls(
  fetchXml: (url: string) => Promise<string | null>,
  url: string,
): Promise<{ urls: string[]; notes: string[] }> {
  const xml = await fetchXml(url);
  if (xml === null) return { urls: [], notes: [] };
  const sitemap = await parseSitemapInTurns(xml);
  if (sitemap.kind === 'urlset') return boundSitemapUrls(sitemap.urls);
  const children = [...new Set(sitemap.sitemaps.flatMap((loc) => httpUrlOf(loc, url) ?? []))].slice(
    0,
    SITEMAP_INDEX_MAX_SITEMAPS,
  );
  const urls: string[] = [];
  for (const child of children) {
    const childXml = await fetchXml(child);
    const listed = childXml === null ? undefined : await parseSitemapInTurns(childXml);
    // Indexes do not nest (sitemaps.org): one found below an index is skipped. One by one: a spread of 100,000
    // arguments overflows the call stack.
    if (listed?.kind === 'urlset') for (const listedUrl of listed.urls) urls.push(listedUrl);
  }
  return boundSitemapUrls(urls);
}

function boundSitemapUrls(urls: string[]): { urls: string[]; notes: string[] } {
  const bounded = boundLinks(urls, { max: MAX_SITEMAP_URLS, what: 'sitemap URLs' });
  return { urls: bounded.links, notes: bounded.notes };
}

function httpUrlOf(loc: string, base: string): string | undefined {
  if (!URL.canParse(loc, base)) return undefined;
  const url = new URL(loc, base);
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
}
