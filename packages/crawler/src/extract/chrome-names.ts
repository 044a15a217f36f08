/**
 * Decides from an element's id and class names whether it is page chrome (navigation, sidebars,
 * banners…). Names are split into words (kebab, snake and camelCase) so `theme-doc-sidebar-container`
 * and `tableOfContents_bqdL` match while `toctree-wrapper` or `navigator-api` do not.
 */

const CHROME_WORDS = new Set([
  'sidebar',
  'sidenav',
  'toc',
  'breadcrumb',
  'breadcrumbs',
  'navbar',
  'nav',
  'navigation',
  'menu',
  'menubar',
  'footer',
  'cookie',
  'cookies',
  'consent',
  'gdpr',
  'banner',
  'announcement',
  'pagination',
  'pager',
  'skiplink',
  'skipnav',
  'search',
  'searchbox',
  // Around articles: share bars, related stories and comment threads (a reply form is their controls).
  'share',
  'sharing',
  'social',
  'related',
  'comments',
  'comment',
  'respond',
]);

const TITLE_WORDS = new Set(['title', 'heading']);

const CHROME_PHRASES = [
  ['table', 'of', 'contents'],
  ['on', 'this', 'page'],
  ['edit', 'this', 'page'],
  ['edit', 'page'],
  ['edit', 'link'],
  ['prev', 'next'],
  ['previous', 'next'],
  ['next', 'prev'],
  ['skip', 'link'],
  ['skip', 'to', 'content'],
  ['last', 'updated'],
];

/**
 * `header` is chrome as a page region (`site-header`, `md-header`) but not inside names such as
 * `header-anchor`, `card-header`, `table-header` or `pane-header-alignment-left`, whose elements hold content or are
 * handled as permalinks.
 */
const HEADER_WORDS = new Set(['header', 'masthead']);
const HEADER_PART_WORDS = new Set([
  'anchor',
  'link',
  'cell',
  'row',
  'col',
  'column',
  'card',
  'table',
  'section',
  'title',
  'group',
  'permalink',
  // A component's own header: an accordion's or a tab's question above its panel.
  'accordion',
  'pane',
  'panel',
  'tab',
]);

/** Splits one class or id token into lower-case words. */
export function splitNameWords(token: string): string[] {
  return token
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[-_\s.:]+/)
    .filter((word) => word !== '')
    .map((word) => word.toLowerCase());
}

/** True when any of the id/class tokens names a chrome region. */
export function hasChromeName(id: string | undefined, className: string | undefined): boolean {
  const tokens = [id ?? '', ...(className ?? '').split(/\s+/)].filter((token) => token !== '');
  return tokens.some((token) => verdictOf(token).chrome);
}

/** True when the id/class tokens name a header region (see HEADER_WORDS). */
export function hasHeaderName(id: string | undefined, className: string | undefined): boolean {
  const tokens = [id ?? '', ...(className ?? '').split(/\s+/)].filter((token) => token !== '');
  return tokens.some((token) => verdictOf(token).header);
}

// A page repeats a few class names thousands of times (a highlighter's `n`, `o`, `p` on every token of its code).
const verdicts = new Map<string, { chrome: boolean; header: boolean }>();
const MAX_REMEMBERED_TOKENS = 10_000;

function verdictOf(token: string): { chrome: boolean; header: boolean } {
  let verdict = verdicts.get(token);
  if (!verdict) {
    const words = splitNameWords(token);
    verdict = { chrome: isChromeToken(words), header: isHeaderToken(words) };
    if (verdicts.size >= MAX_REMEMBERED_TOKENS) verdicts.clear();
    verdicts.set(token, verdict);
  }
  return verdict;
}

function isChromeToken(words: string[]): boolean {
  // A region's title is a heading of what it holds (`sidebar-title` over a Sphinx side note), not the region.
  if (words.some((word) => TITLE_WORDS.has(word))) return false;
  if (words.some((word) => CHROME_WORDS.has(word))) return true;
  return CHROME_PHRASES.some((phrase) => containsPhrase(words, phrase));
}

function isHeaderToken(words: string[]): boolean {
  return words.some((word) => HEADER_WORDS.has(word)) && !words.some((word) => HEADER_PART_WORDS.has(word));
}

function containsPhrase(words: string[], phrase: string[]): boolean {
  for (let start = 0; start + phrase.length <= words.length; start += 1) {
    if (phrase.every((word, offset) => words[start + offset] === word)) return true;
  }
  return false;
}
