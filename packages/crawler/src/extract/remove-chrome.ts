import type { Cheerio, CheerioAPI } from 'cheerio';
import type { Element } from 'domhandler';
import { hasChromeName, hasHeaderName, splitNameWords } from './chrome-names';
import { findDescendants } from './find-descendants';

const CHROME_TAGS = new Set([
  'nav',
  'footer',
  'aside',
  'script',
  'style',
  'noscript',
  'template',
  'iframe',
  'svg',
  'canvas',
  'form',
  'button',
  'input',
  'select',
  'textarea',
  'object',
  'embed',
  'dialog',
  'link',
  'meta',
]);

// Content elements whose class names carry styling hints only (Docusaurus headings are `anchorWithStickyNavbar`).
const NEVER_CHROME_BY_NAME = new Set([
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'pre',
  'code',
  'table',
  'thead',
  'tbody',
  'tr',
  'td',
  'th',
]);

const CHROME_ROLES = ['navigation', 'banner', 'contentinfo', 'complementary', 'search', 'menu', 'menubar'];

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
]);

// "Next: Setup", "« Previous", "Newer posts →", but not "Next.js".
const PREV_NEXT_TEXT = /^[\s«‹←<]*(previous|prev|next|older|newer)(?=$|[\s:»›→>])|(^|\s)(previous|next)[\s»›→>]*$/i;
const EDIT_PAGE_TEXT =
  /^\W*(edit (this page|this file|page|on github|on gitlab)|improve this (page|doc)|suggest (an )?edit)\b/i;
const SKIP_LINK_TEXT = /^\W*skip to (main )?content\b/i;
const LINK_SEPARATORS = /^[\s|·•«»‹›←→<>\-–—/:]*$/u;

/** Removes navigation, banners, sidebars, hidden and interactive elements from inside `root`. */
export function removeChrome($: CheerioAPI, root: Cheerio<Element>): void {
  const doomed: Element[] = [];
  findDescendants($, root, '*').each((_, element) => {
    if (isChromeElement($, element)) doomed.push(element);
  });
  $(doomed).remove();
  removeLinkBlocks($, root, (link) => PREV_NEXT_TEXT.test(link.text()) || hasPaginationRel(link));
  removeLinkBlocks($, root, (link) => {
    const text = link.text();
    return EDIT_PAGE_TEXT.test(text) || SKIP_LINK_TEXT.test(text);
  });
}

function isChromeElement($: CheerioAPI, element: Element): boolean {
  const { id, class: className, role } = element.attribs;
  if (CHROME_TAGS.has(element.tagName)) return !isCallout(element);
  if (role && CHROME_ROLES.includes(role.toLowerCase())) return true;
  if (isHidden(element)) return true;
  if (element.tagName === 'header') return !isArticleHeader($, $(element));
  if (NEVER_CHROME_BY_NAME.has(element.tagName)) return false;
  if (!id && !className) return false;
  if (hasHeaderName(id, className)) return !isArticleHeader($, $(element));
  return hasChromeName(id, className);
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

function isHidden(element: Element): boolean {
  const { attribs } = element;
  // Inactive tabs are hidden until clicked but hold real content (other languages, package managers).
  if (attribs.role === 'tabpanel') return false;
  if (attribs.hidden !== undefined || attribs['aria-hidden'] === 'true') return true;
  const style = (attribs.style ?? '').toLowerCase().replace(/\s+/g, '');
  return style.includes('display:none') || style.includes('visibility:hidden');
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
  $([...doomed]).remove();
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
