import type { Cheerio, CheerioAPI } from 'cheerio';
import { hasChildren, isTag, isText, type AnyNode, type Element } from 'domhandler';
import { saysTitle, selectContentBlock } from './content-blocks';
import { mayMatch, type DocumentIndex } from './document-index';
import { bearsMarks, FRAMEWORK_ROOTS } from './frameworks';
import { wordsOf } from './text-amounts';

/**
 * Content containers of documentation generators (frameworks.ts), most specific first. The generic landmarks come
 * last because on most generators they also wrap sidebars, breadcrumbs and pagination.
 */
const GENERIC_ROOTS = ['main article', 'article', '[role=main]', 'main', '#content'];
const ROOTS: { selector: string; marks?: string[] }[] = [
  ...FRAMEWORK_ROOTS,
  ...GENERIC_ROOTS.map((selector) => ({ selector })),
];

// Class names common enough to appear on small widgets: trusted only when they hold a real share of the page.
const WEAK_ROOTS = new Set(['div.body', '.markdown', '.markdown-body', '#content', '#main-content']);
const WEAK_ROOT_MIN_SHARE = 0.2;
// Several articles make a listing (blog index, card grid): the page is their container, not one of them.
const SINGLE_MATCH_ROOTS = new Set(['main article', 'article']);

/** Picks the element holding the page's documentation content; falls back to `<body>`. */
export function selectContentRoot($: CheerioAPI, index: DocumentIndex): Cheerio<Element> {
  const { names } = index;
  const asciidoc = selectAsciidocRoot($, index);
  if (asciidoc) return asciidoc;
  // Measured only when a weak root needs it: the whole body's text is a pass over the largest pages.
  let bodyLength: number | undefined;
  for (const { selector, marks } of ROOTS) {
    // Each selector is a pass over the document (10 ms on a large page): skip those naming what the page lacks.
    if (!mayMatch(selector, names) || !bearsMarks($, marks)) continue;
    const matches = selectAll($, index, selector);
    if (SINGLE_MATCH_ROOTS.has(selector) && matches.length > 1) {
      const story = selectHeadlineArticle($, index, matches);
      if (story) return selectContentBlock($, $(story));
      continue;
    }
    const root = selectLongestMatch($, matches);
    if (!root) continue;
    if (
      WEAK_ROOTS.has(selector) &&
      measureText(root) < (bodyLength ??= measureText(bodyOf($, index))) * WEAK_ROOT_MIN_SHARE
    )
      continue;
    // A generic landmark may hold more than the content: on a news page, the article among its teasers.
    return GENERIC_ROOTS.includes(selector) ? selectContentBlock($, root) : root;
  }
  const body = bodyOf($, index);
  return body.length > 0 ? selectContentBlock($, body) : $.root().children().first();
}

/**
 * Of several articles (a story and the teasers of other stories after it, each an `<article>`), the one holding the
 * page's headline: the document's one `<h1>` saying what its `<title>` says. The innermost such article, as a page
 * may wrap its story and its teasers in one more. None when no `<h1>` says the title, or more than one does.
 */
function selectHeadlineArticle($: CheerioAPI, index: DocumentIndex, articles: Element[]): Element | null {
  const title = index.tags.get('title')?.[0];
  const titleWords = new Set(wordsOf(title ? $(title).text() : ''));
  const headlines = (index.tags.get('h1') ?? []).filter((h1) => saysTitle($(h1).text(), titleWords));
  if (headlines.length !== 1) return null;
  let story: Element | null = null;
  // Document order: an article inside another comes after it.
  for (const article of articles) if (isAncestor(article, headlines[0]!)) story = article;
  return story;
}

function isAncestor(ancestor: Element, node: AnyNode): boolean {
  for (let parent = node.parent; parent; parent = parent.parent) if (parent === ancestor) return true;
  return false;
}

/** The document's (first) `<body>`. */
function bodyOf($: CheerioAPI, index: DocumentIndex): Cheerio<Element> {
  return $((index.tags.get('body') ?? []).slice(0, 1));
}

/** The selector's matches in document order; an id is looked up in the index rather than searched for. */
function selectAll($: CheerioAPI, index: DocumentIndex, selector: string): Element[] {
  if (/^#[\w-]+$/.test(selector)) return index.ids.get(selector.slice(1)) ?? [];
  return ($(selector) as Cheerio<Element>).toArray();
}

/**
 * Asciidoc keeps the page title and the man page NAME line in `div#header`, a sibling of `div#content`;
 * their common parent is the root so both survive (chrome removal keeps a header holding an h1). Both are `<div>`s:
 * a `<header id="header">` beside a `#content` is a site's banner over its page (a WordPress theme), and their
 * parent would be the whole page.
 */
const ASCIIDOC_CONTENT = 'div#header ~ div#content';

function selectAsciidocRoot($: CheerioAPI, index: DocumentIndex): Cheerio<Element> | null {
  if (!mayMatch(ASCIIDOC_CONTENT, index.names)) return null;
  const content = $(ASCIIDOC_CONTENT).first();
  if (content.length === 0 || index.ids.has('apicontent')) return null;
  const parent = content.parent();
  return parent.length > 0 && parent[0] && isTag(parent[0]) ? parent : null;
}

/** Among several matches (e.g. two `article`s) the one with the most text is the page body. */
function selectLongestMatch($: CheerioAPI, matches: Element[]): Cheerio<Element> | null {
  if (matches.length === 1) return holdsText(matches[0]!) ? $(matches[0]) : null;
  let best: Cheerio<Element> | null = null;
  let bestLength = 0;
  for (const element of matches) {
    const length = measureText($(element));
    if (length > bestLength) {
      best = $(element);
      bestLength = length;
    }
  }
  return best;
}

function measureText(element: Cheerio<Element>): number {
  return element.text().replace(/\s+/g, ' ').trim().length;
}

/** Whether any text that is not only whitespace stands inside (what a non-zero measureText says, without the full pass). */
function holdsText(node: AnyNode): boolean {
  if (isText(node)) return /\S/.test(node.data);
  return hasChildren(node) && node.children.some(holdsText);
}
