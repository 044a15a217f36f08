/** The longest URL a crawl takes (a page job's URL, a chunk's `url`): a longer link is skipped and reported. */
export const MAX_URL_LENGTH = 4_096;
/** Links of one page a crawl takes, in document order; the rest are skipped and reported. */
export const MAX_LINKS_PER_PAGE = 10_000;
/** URLs a crawl takes from a site's sitemaps, all of them together; the rest are skipped and reported. */
export const MAX_SITEMAP_URLS = 100_000;

/**
 * A page's links within the crawl's bounds: none longer than MAX_URL_LENGTH, at most `max` of them. `notes` says what
 * was skipped, for the crawl's `errors` (the page itself is crawled as usual).
 */
export function boundLinks(
  links: string[],
  { max = MAX_LINKS_PER_PAGE, what = 'links' }: { max?: number; what?: string } = {},
): { links: string[]; notes: string[] } {
  const kept: string[] = [];
  let tooLong = 0;
  let beyond = 0;
  for (const link of links) {
    if (link.length > MAX_URL_LENGTH) tooLong += 1;
    else if (kept.length < max) kept.push(link);
    else beyond += 1;
  }
  const notes: string[] = [];
  if (tooLong > 0) notes.push(`${count(tooLong, what)} over ${MAX_URL_LENGTH.toLocaleString('en')} characters skipped`);
  if (beyond > 0) notes.push(`${count(beyond, what)} beyond the first ${max.toLocaleString('en')} skipped`);
  return { links: kept, notes };
}

const count = (n: number, what: string) => `${n.toLocaleString('en')} ${n === 1 ? what.replace(/s$/, '') : what}`;
