import type { Cheerio, CheerioAPI } from 'cheerio';
import type { AnyNode, Element } from 'domhandler';
import { hasChromeName, hasHeaderName, splitNameWords } from './chrome-names';
import { mayMatch } from './document-index';
import { isElementNode, isHiddenAtLoad, isTextNode, pushAll, removeNodes } from './dom-nodes';
import { findDescendants } from './find-descendants';
import { FRAMEWORK_CHROME } from './frameworks';
import { linkDensity, measureTextAmounts, type TextAmount } from './text-amounts';

/** Elements that never carry a reader's text: scripts, styles, embedded objects and form controls. */
const NEVER_CONTENT_TAGS = new Set([
  'script',
  'style',
  'noscript',
  'template',
  'iframe',
  'svg',
  'canvas',
  'input',
  'select',
  'textarea',
  'button',
  'object',
  'embed',
  'link',
  'meta',
]);

/** Page regions by their tag: chrome unless they hold the page (an ASP.NET page is one page-wide <form>). */
const CHROME_REGION_TAGS = new Set(['nav', 'footer', 'aside', 'form', 'dialog']);
/**
 * Inside a content landmark an <aside> is the content's own: a footnote, a side note, a callout (Sphinx, Starlight).
 * It is judged as a named element is, by what it holds; in a page without a landmark it is a sidebar region.
 */
const ASIDE = 'aside';

/** Elements under which no name is believed: a heading's own link (mdBook's `<a class="header">`), code, a table. */
const NO_NAMES_UNDER: ReadonlySet<string> = new Set([
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'pre',
  'code',
  'kbd',
  'samp',
  'var',
  'table',
  'dt',
]);

/**
 * Elements a class or id name never removes: headings, code, tables, definitions and sections are content whatever
 * they are called (Sphinx names a section after its heading, `id="search-and-replace"`, and a signature after its API,
 * `id="re.search"`; Docusaurus headings are `anchorWithStickyNavbar`).
 */
const NEVER_CHROME_BY_NAME: ReadonlySet<string> = new Set([
  ...NO_NAMES_UNDER,
  'thead',
  'tbody',
  'tfoot',
  'tr',
  'td',
  'th',
  'dl',
  'dd',
  'section',
  'article',
  'main',
  'figure',
  'figcaption',
  'blockquote',
  'em',
  'strong',
]);

const CHROME_ROLES = new Set(['navigation', 'banner', 'contentinfo', 'complementary', 'search', 'menu', 'menubar']);

// Callouts are rendered as <aside> by some generators (Starlight); they are content, not a sidebar.
const CALLOUT_WORDS = new Set([
  'admonition',
  'callout',
  'note',
  'tip',
  'info',
  'warning',
  'caution',
  'danger',
  'important',
  'footnote',
]);

/**
 * An element holding this share of the content's text, not mostly as links, is the page itself: no tag, role, hidden
 * attribute or name removes it (a page-wide <form>, an anti-flicker `visibility:hidden` wrapper, a `content-w-sidebar`).
 */
const PAGE_SHARE = 0.5;
/** A name is believed only for an element holding less than this share of the content's text. */
const NAMED_CHROME_MAX_SHARE = 0.3;
/** Link text over this share of an element's text makes it a link list: a menu, a table of contents, breadcrumbs. */
const LINK_LIST_DENSITY = 0.5;
/** An element this short (characters that are not white space) with no structure of its own is a widget, not a text. */
const WIDGET_MAX_CHARS = 200;
/** What a widget never holds: headings, code, tables, quotations (an embedded post in a `social-media-embed`). */
const STRUCTURE_TAGS = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'pre', 'table', 'blockquote']);

const COMMENT_NAME = /(^|[\s_-])(comments?|respond)([\s_-]|$)/i;
const COMMENT_THREAD_ITEMS = 3;
/** A comment thread never takes more than this share of the content with it. */
const COMMENT_THREAD_MAX_SHARE = 0.95;

// "Next: Setup", "« Previous", "Newer posts →", but not "Next.js".
const PREV_NEXT_TEXT = /^[\s«‹←<]*(previous|prev|next|older|newer)(?=$|[\s:»›→>])|(^|\s)(previous|next)[\s»›→>]*$/i;
const EDIT_PAGE_TEXT =
  /^\W*(edit (this page|this file|page|on github|on gitlab)|improve this (page|doc)|suggest (an )?edit)\b/i;
const SKIP_LINK_TEXT = /^\W*skip to (main )?content\b/i;
// "Was this page helpful?", "Did this article help you?", "Is this page useful?".
const FEEDBACK_TEXT =
  /\b(was|is|did) (this|the) (page|article|doc|document|documentation|section|guide|topic|content)( help(ful)?| useful)\b/i;
const FORM_CONTROLS = 'form, input, select, textarea';
const LINK_SEPARATORS = /^[\s|·•«»‹›←→<>\-–—/:]*$/u;

export interface RemoveChromeOptions {
  /**
   * The second try on a page whose first extraction came out empty or tiny: a name is believed only for a link list,
   * and a hidden element goes only when it is empty or a link list.
   */
  loose?: boolean;
  /** `root` is a content landmark (`<main>`, `<article>`, a generator's root), not the whole body. */
  landmark?: boolean;
  /** The names the document uses (document-index.ts): which frameworks' chrome selectors can match. */
  names?: Set<string>;
  /** The ids the document's controls show and hide (document-index.ts): disclosures' panels. */
  controlled?: Set<string>;
  /** The text amounts of the document, measured before anything was removed (measured here when not given). */
  amounts?: Map<AnyNode, TextAmount>;
}

/**
 * Removes navigation, banners, sidebars, hidden and interactive elements from inside `root`. Chrome is decided by what
 * an element is and holds: its tag or landmark role, whether it is hidden, its share of the content's text and of link
 * text. Class and id names are the weakest evidence: they remove only a link list, a widget or a block of controls, and
 * never a block holding a real share of the content.
 */
export function removeChrome($: CheerioAPI, root: Cheerio<Element>, options: RemoveChromeOptions = {}): void {
  const top = root[0];
  if (!top) return;
  const amounts = options.amounts?.has(top) ? options.amounts : measureTextAmounts(top);
  const judge: Judge = {
    $,
    amounts,
    rootChars: amountOf(amounts, top).chars,
    landmark: options.landmark ?? false,
    loose: options.loose ?? false,
    controlled: options.controlled ?? new Set(),
  };
  const doomed: Element[] = frameworkChromeIn($, top, options.names);
  // Top down: an element judged chrome goes with everything under it, which is not judged.
  // Names are not believed under headings, code and tables (NO_NAMES_UNDER).
  const stack = top.children.map((node) => ({ node, byName: true })).reverse();
  while (stack.length > 0) {
    const { node, byName } = stack.pop()!;
    if (!isElementNode(node)) continue;
    if (isChromeElement(judge, node, byName)) {
      doomed.push(node);
      continue;
    }
    const childrenByName = byName && !NO_NAMES_UNDER.has(node.name);
    for (let i = node.children.length - 1; i >= 0; i--) stack.push({ node: node.children[i]!, byName: childrenByName });
  }
  pushAll(doomed, findFeedbackBlocks(judge, top));
  removeNodes(doomed);
  removeLinkBlocks($, root, (link) => PREV_NEXT_TEXT.test(link.text()) || hasPaginationRel(link));
  removeLinkBlocks($, root, (link) => {
    const text = link.text();
    return EDIT_PAGE_TEXT.test(text) || SKIP_LINK_TEXT.test(text);
  });
}

/** The chrome the generators in frameworks.ts render inside their content, found under `top`. */
function frameworkChromeIn($: CheerioAPI, top: Element, names: Set<string> | undefined): Element[] {
  const selectors = names ? FRAMEWORK_CHROME.filter((selector) => mayMatch(selector, names)) : FRAMEWORK_CHROME;
  return selectors.length === 0 ? [] : findDescendants($, top, selectors.join(', ')).toArray();
}

interface Judge {
  $: CheerioAPI;
  amounts: Map<AnyNode, TextAmount>;
  /** The content root's text, which each element's share is taken of. */
  rootChars: number;
  landmark: boolean;
  loose: boolean;
  controlled: Set<string>;
}

const NO_TEXT: TextAmount = { chars: 0, linkChars: 0 };
const amountOf = (amounts: Map<AnyNode, TextAmount>, node: AnyNode): TextAmount => amounts.get(node) ?? NO_TEXT;

function isChromeElement(judge: Judge, element: Element, byName: boolean): boolean {
  const { $ } = judge;
  const tag = element.name;
  if (NEVER_CONTENT_TAGS.has(tag)) return true;
  const { id, class: className, role } = element.attribs;
  if (tag === ASIDE && judge.landmark)
    return !isCallout(element) && looksLikeChrome(judge, element, { widgets: false });
  if (CHROME_REGION_TAGS.has(tag)) return !isCallout(element) && !holdsThePage(judge, element);
  if (role && CHROME_ROLES.has(role.toLowerCase())) return !holdsThePage(judge, element);
  if (isHiddenAtLoad(element)) {
    if (isDisclosurePanel(judge, element))
      return isEmptyOrLinkList(judge, element) || findDescendants($, element, FORM_CONTROLS).length > 0;
    return judge.loose ? isEmptyOrLinkList(judge, element) : !holdsThePage(judge, element);
  }
  if (tag === 'header') return !isArticleHeader($, $(element)) && !holdsThePage(judge, element);
  if (!byName || NEVER_CHROME_BY_NAME.has(tag) || (!id && !className)) return false;
  // `header` names a page region only on a block (`site-header`), not on a word (Underscore's `<b class="header">`).
  const named = hasHeaderName(id, className)
    ? tag === 'div' && !isArticleHeader($, $(element))
    : hasChromeName(id, className);
  if (!named) return false;
  // A comment thread is told by repetition, not by its name alone: the looser second try removes it too.
  if (isCommentThread(judge, element)) return true;
  if (judge.loose) return isEmptyOrLinkList(judge, element) && shareOf(judge, element) < NAMED_CHROME_MAX_SHARE;
  return looksLikeChrome(judge, element);
}

/**
 * A comment thread is told by repetition, not by its name alone: a block named for comments that holds a reply form
 * or at least COMMENT_THREAD_ITEMS items named for comments, and leaves the content a real share of its own text.
 * Readers' comments can outweigh a short article, so the share a name is otherwise held to does not protect them.
 */
function isCommentThread(judge: Judge, element: Element): boolean {
  const { id = '', class: className = '' } = element.attribs;
  if (!COMMENT_NAME.test(`${id} ${className}`) || shareOf(judge, element) > COMMENT_THREAD_MAX_SHARE) return false;
  const items = findDescendants(judge.$, element, '[class], [id]').filter((_, item) =>
    COMMENT_NAME.test(`${item.attribs.id ?? ''} ${item.attribs.class ?? ''}`),
  );
  return items.length >= COMMENT_THREAD_ITEMS || findDescendants(judge.$, element, 'textarea').length > 0;
}

function shareOf(judge: Judge, element: Element): number {
  return judge.rootChars === 0 ? 0 : amountOf(judge.amounts, element).chars / judge.rootChars;
}

/** Most of the content's text, and not as links: the page itself, whatever wraps it. */
function holdsThePage(judge: Judge, element: Element): boolean {
  const amount = amountOf(judge.amounts, element);
  return shareOf(judge, element) >= PAGE_SHARE && linkDensity(amount) < LINK_LIST_DENSITY;
}

/**
 * What a name is believed for: a small share of the content that is a link list, a short widget with no headings,
 * code or tables, or a block holding form controls (a search box, a cookie banner's buttons). A footnote or side
 * note is short too: `widgets: false` asks for the link list or the controls only.
 */
function looksLikeChrome(judge: Judge, element: Element, { widgets = true } = {}): boolean {
  const amount = amountOf(judge.amounts, element);
  // A named link list goes whatever its share: a landing page that is one is kept by the looser second try.
  if (linkDensity(amount) >= LINK_LIST_DENSITY) return !judge.loose || shareOf(judge, element) < NAMED_CHROME_MAX_SHARE;
  if (shareOf(judge, element) >= NAMED_CHROME_MAX_SHARE) return false;
  if (widgets && amount.chars <= WIDGET_MAX_CHARS && !holdsStructure(element)) return true;
  return findDescendants(judge.$, element, 'button, input, select, form').length > 0;
}

function isEmptyOrLinkList(judge: Judge, element: Element): boolean {
  const amount = amountOf(judge.amounts, element);
  return amount.chars === 0 || linkDensity(amount) >= LINK_LIST_DENSITY;
}

function holdsStructure(element: Element): boolean {
  const stack = element.children.slice();
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (!isElementNode(node)) continue;
    if (STRUCTURE_TAGS.has(node.name)) return true;
    pushAll(stack, node.children);
  }
  return false;
}

/** A header carrying the page's heading and no navigation is the article's title block. */
function isArticleHeader($: CheerioAPI, $element: Cheerio<Element>): boolean {
  return (
    findDescendants($, $element, 'h1, h2, h3').length > 0 &&
    findDescendants($, $element, 'nav, [role=navigation], form, input').length === 0
  );
}

function isCallout(element: Element): boolean {
  if (element.tagName !== 'aside') return false;
  const words = (element.attribs.class ?? '').split(/\s+/).flatMap(splitNameWords);
  return words.some((word) => CALLOUT_WORDS.has(word));
}

/**
 * A panel a control on the page shows and hides (an accordion's answer, a "Read more" disclosure): hidden at load
 * only until clicked, so judged by what it holds. A menu a button opens is a link list, and a search box's panel holds
 * its form; a modal dialog is no disclosure.
 */
function isDisclosurePanel(judge: Judge, element: Element): boolean {
  const { id, role } = element.attribs;
  return id !== undefined && judge.controlled.has(id) && role !== 'dialog' && element.attribs['aria-modal'] !== 'true';
}

/**
 * A "Was this page helpful?" question goes with the largest block around it that is still a widget's size: the
 * question, its buttons and thanks. Found from the text, so each element is not asked for its text.
 */
function findFeedbackBlocks(judge: Judge, top: Element): Element[] {
  const found: Element[] = [];
  const stack: AnyNode[] = [top];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (isTextNode(node)) {
      if (!FEEDBACK_TEXT.test(node.data)) continue;
      let block: Element | null = null;
      for (let parent = node.parent; parent && parent !== top && isElementNode(parent); parent = parent.parent) {
        if (amountOf(judge.amounts, parent).chars > WIDGET_MAX_CHARS) break;
        block = parent;
      }
      if (block) found.push(block);
    } else if (isElementNode(node) && !NEVER_CONTENT_TAGS.has(node.name)) pushAll(stack, node.children);
  }
  return found;
}

function hasPaginationRel(link: Cheerio<Element>): boolean {
  const rel = (link.attr('rel') ?? '').toLowerCase().split(/\s+/);
  return rel.includes('prev') || rel.includes('next');
}

/**
 * Removes links matching `isTarget` together with the largest enclosing block (below `root`) that holds
 * nothing but such links and separators, e.g. a "← Previous | Next →" bar. A matching link that shares
 * its block with prose stays, so "see the next section" survives.
 */
function removeLinkBlocks(
  $: CheerioAPI,
  root: Cheerio<Element>,
  isLinkTarget: (link: Cheerio<Element>) => boolean,
): void {
  const rootNode = root[0];
  const doomed = new Set<Element>();
  // A link is judged once, though each block around it asks again (the tree does not change until the end).
  const verdicts = new Map<Element, boolean>();
  const isTarget = (link: Cheerio<Element>): boolean => {
    let verdict = verdicts.get(link[0]!);
    if (verdict === undefined) {
      verdict = isLinkTarget(link);
      verdicts.set(link[0]!, verdict);
    }
    return verdict;
  };
  findDescendants($, root, 'a').each((_, element) => {
    const link = $(element);
    if (!isTarget(link)) return;
    let block: Element | null = null;
    let candidate = link.parent();
    while (candidate.length > 0 && candidate[0] !== rootNode && holdsOnlyTargetLinks($, candidate, isTarget)) {
      block = candidate[0] as Element;
      candidate = candidate.parent();
    }
    if (block) doomed.add(block);
  });
  removeNodes(doomed);
}

function holdsOnlyTargetLinks(
  $: CheerioAPI,
  block: Cheerio<Element>,
  isTarget: (link: Cheerio<Element>) => boolean,
): boolean {
  const links = findDescendants($, block, 'a');
  if (links.length === 0 || links.toArray().some((link) => !isTarget($(link)))) return false;
  const clone = block.clone();
  findDescendants($, clone, 'a').remove();
  return LINK_SEPARATORS.test(clone.text());
}
