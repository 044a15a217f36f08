/**
 * Resolves `href` against `base` into a canonical page URL: absolute, no fragment, no default port,
 * lower-case host, no empty `?`. Returns null for anything that is not http(s) or cannot be parsed.
 */
export function normalizePageUrl(href: string, base: string): string | null {
  let url: URL;
  try {
    url = new URL(href.trim(), base);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  url.hash = '';
  // WHATWG URL keeps a bare "?"; assigning '' removes it.
  if (url.search === '' || url.search === '?') url.search = '';
  return url.href;
}
