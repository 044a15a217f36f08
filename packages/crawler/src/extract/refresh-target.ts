import { load } from 'cheerio';
import { limitNesting } from './limit-nesting';

/** A refresh this soon is a redirect: the browser leaves before anyone reads the page (rustdoc's `0;URL=` stubs). */
const REDIRECT_DELAY_MAX_S = 1;
const MENTIONS_REFRESH = /http-equiv\s*=\s*["']?\s*refresh/i;
/** `<delay>[;,] [url=]<target>`, the target optionally quoted (HTML's "shared declarative refresh steps"). */
const REFRESH_CONTENT = /^\s*(\d+(?:\.\d*)?)\s*(?:[;,]\s*(?:url\s*=\s*)?(["']?)(.*?)\2\s*)?$/is;

/**
 * Where a page's `<meta http-equiv="refresh">` sends a browser at once, as an absolute http(s) URL; null when the page
 * has none, refreshes itself, or waits longer than REDIRECT_DELAY_MAX_S. Fetched over HTTP such a page is a redirect
 * to follow, not a script shell to render.
 */
export function refreshTarget(html: string, pageUrl: string): string | null {
  if (!MENTIONS_REFRESH.test(html)) return null;
  const $ = load(limitNesting(html));
  const content = $('meta')
    .filter((_, meta) => ($(meta).attr('http-equiv') ?? '').trim().toLowerCase() === 'refresh')
    .first()
    .attr('content');
  const match = content === undefined ? null : REFRESH_CONTENT.exec(content);
  if (!match || Number(match[1]) > REDIRECT_DELAY_MAX_S || !match[3]) return null;
  try {
    const target = new URL(match[3].trim(), pageUrl);
    target.hash = '';
    const isHttp = target.protocol === 'http:' || target.protocol === 'https:';
    return isHttp && target.href !== new URL(pageUrl).href.replace(/#.*$/, '') ? target.href : null;
  } catch {
    return null;
  }
}
