import { normalizePageUrl } from '@docshelf/core';
import { load, type CheerioAPI } from 'cheerio';
import { indexDocument, type DocumentIndex } from './document-index';

export { normalizePageUrl };

// Files a docs crawler should never queue as pages: they are not HTML documents.
const ASSET_EXTENSIONS = new Set([
  // images
  'png',
  'jpg',
  'jpeg',
  'gif',
  'webp',
  'avif',
  'svg',
  'ico',
  'bmp',
  'tif',
  'tiff',
  // styles, scripts, source maps, WebAssembly
  'css',
  'js',
  'mjs',
  'cjs',
  'map',
  'wasm',
  // fonts
  'woff',
  'woff2',
  'ttf',
  'otf',
  'eot',
  // audio and video
  'mp3',
  'mp4',
  'm4a',
  'webm',
  'ogg',
  'ogv',
  'oga',
  'wav',
  'flac',
  'mov',
  'avi',
  'mkv',
  // archives and packages
  'zip',
  'tar',
  'gz',
  'tgz',
  'bz2',
  'xz',
  '7z',
  'rar',
  'jar',
  'exe',
  'dmg',
  'msi',
  'deb',
  'rpm',
  'apk',
  'whl',
  // documents and data
  'pdf',
  'epub',
  'doc',
  'docx',
  'xls',
  'xlsx',
  'ppt',
  'pptx',
  'csv',
  'txt',
  'json',
  'xml',
  'rss',
  'atom',
  'yaml',
  'yml',
  'toml',
  'ics',
]);

const SKIPPED_SCHEMES = /^\s*(mailto|tel|sms|javascript|data|blob|ftp|file):/i;

/** True when the URL path ends in a file extension that names an asset rather than a page. */
export function isAssetUrl(url: string): boolean {
  return isAssetPath(new URL(url).pathname);
}

function isAssetPath(pathname: string): boolean {
  const lastSegment = pathname.slice(pathname.lastIndexOf('/') + 1);
  const dot = lastSegment.lastIndexOf('.');
  if (dot <= 0) return false;
  return ASSET_EXTENSIONS.has(lastSegment.slice(dot + 1).toLowerCase());
}

/** The URL relative links resolve against: `<base href>` when present, else the page URL. */
export function resolveDocumentBase(index: DocumentIndex, pageUrl: string): string {
  const baseHref = index.tags.get('base')?.find((element) => element.attribs.href !== undefined)?.attribs.href;
  if (!baseHref) return pageUrl;
  return normalizeBaseHref(baseHref, pageUrl) ?? pageUrl;
}

function normalizeBaseHref(baseHref: string, pageUrl: string): string | null {
  try {
    return new URL(baseHref.trim(), pageUrl).href;
  } catch {
    return null;
  }
}

/**
 * Same-origin page links of a document, in document order, de-duplicated and normalised.
 * Reads `<a href>` and `<link rel=next|prev>`; skips fragment-only links, non-web schemes,
 * downloads, assets, other origins and the page itself.
 */
export function collectPageLinks($OrHtml: CheerioAPI | string, pageUrl: string): string[] {
  const $ = typeof $OrHtml === 'string' ? load($OrHtml) : $OrHtml;
  return collectIndexedLinks(indexDocument($), pageUrl);
}

/** collectPageLinks over a document already indexed; `base` is the document's base URL when the caller has it. */
export function collectIndexedLinks(index: DocumentIndex, pageUrl: string, base?: string): string[] {
  const self = normalizePageUrl(pageUrl, pageUrl);
  if (!self) return [];
  const origin = new URL(self).origin;
  const resolveAgainst = base ?? resolveDocumentBase(index, self);
  const seen = new Set<string>([self]);
  const links: string[] = [];

  // Attributes are read straight from the parsed elements: a docs page has a thousand links or more.
  for (const element of index.links) {
    const { attribs } = element;
    if (element.tagName === 'link' && !isPaginationRel(attribs.rel)) continue;
    if (attribs.download !== undefined) continue;
    const href = (attribs.href ?? '').trim();
    if (href === '' || href.startsWith('#') || SKIPPED_SCHEMES.test(href)) continue;
    const url = normalizePageUrl(href, resolveAgainst);
    if (!url || seen.has(url)) continue;
    seen.add(url);
    const parsed = new URL(url);
    if (parsed.origin !== origin || isAssetPath(parsed.pathname)) continue;
    links.push(url);
  }
  return links;
}

function isPaginationRel(rel: string | undefined): boolean {
  return (rel ?? '')
    .toLowerCase()
    .split(/\s+/)
    .some((token) => token === 'next' || token === 'prev');
}
