/**
 * Query parameters that never change what a page says: search-word highlighting (Sphinx's and mdBook's `?highlight=`,
 * which their own search results link with) and campaign tags. A link carrying them is the page without them.
 */
const NOISE_PARAMETERS = /^(highlight|utm_[a-z]+|fbclid|gclid)$/i;

/**
 * Resolves `href` against `base` into a canonical page URL: absolute, no fragment, no default port,
 * lower-case host, no empty `?`, no NOISE_PARAMETERS. Returns null for anything that is not http(s) or cannot be parsed.
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
  const noise = [...url.searchParams.keys()].filter((name) => NOISE_PARAMETERS.test(name));
  // Rewritten only when there is noise to drop: serialising the parameters again could re-encode the others.
  for (const name of noise) url.searchParams.delete(name);
  // WHATWG URL keeps a bare "?"; assigning '' removes it.
  if (url.search === '' || url.search === '?') url.search = '';
  return url.href;
}
