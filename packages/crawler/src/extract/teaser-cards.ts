import type { Element } from 'domhandler';
import { NO_TEXT, type Measures } from './block-measures';
import { isElementNode } from './dom-nodes';

/**
 * Teaser cards: the items of a rail of other stories ("Read this next", "More from…"). Each is a block whose heading
 * is a link to another page, or a short block with a heading and such a link, and a rail repeats it: at least
 * MIN_CARDS siblings of one tag and one class. Their excerpts are prose, so paragraph scores do not tell them from the
 * story; their shape does.
 */

/** Siblings of one kind, each headed by a link, that make a rail. */
const MIN_CARDS = 3;
const HEADING_TAGS = new Set(['h2', 'h3', 'h4', 'h5', 'h6']);
/** A heading is a link's when this share of its text is link text. */
const LINKED_HEADING_SHARE = 0.9;
/** A card whose heading is no link is this short at most (characters that are not white space): about 30 words. */
const SHORT_CARD_MAX_CHARS = 200;

/** The cards among the blocks measured. */
export function findTeaserCards(measures: Measures): Element[] {
  const cards: Element[] = [];
  for (const parent of measures.blocks) {
    // Siblings grouped by kind first: only a group large enough for a rail has its members' content searched.
    const groups = new Map<string, Element[]>();
    for (const child of parent.children) {
      if (!isElementNode(child)) continue;
      const kind = `${child.name}.${cardClass(child)}`;
      const group = groups.get(kind);
      if (group) group.push(child);
      else groups.set(kind, [child]);
    }
    for (const group of groups.values()) {
      if (group.length < MIN_CARDS) continue;
      const found = group.filter((element) => isCard(element, measures));
      if (found.length >= MIN_CARDS) cards.push(...found);
    }
  }
  return cards;
}

/** A class without the tokens that number an item (`post-7816`), which differ from card to card. */
function cardClass(element: Element): string {
  return (element.attribs.class ?? '')
    .split(/\s+/)
    .filter((token) => token !== '' && !/\d/.test(token))
    .sort()
    .join(' ');
}

/**
 * A block holding a heading that is a link to another page, or a short block holding a heading and a link to another
 * page (a news rail's card: a kicker, a line and a link laid over the picture).
 */
function isCard(element: Element, measures: Measures): boolean {
  let heading = false;
  let link = false;
  const stack: Element[] = [element];
  while (stack.length > 0) {
    const node = stack.pop()!;
    for (const child of node.children) {
      if (!isElementNode(child)) continue;
      if (HEADING_TAGS.has(child.name)) {
        if (isLinkedHeading(child, measures)) return true;
        heading = true;
      } else if (isPageLink(child)) link = true;
      else stack.push(child);
    }
  }
  return heading && link && (measures.amounts.get(element) ?? NO_TEXT).chars <= SHORT_CARD_MAX_CHARS;
}

function isLinkedHeading(heading: Element, measures: Measures): boolean {
  const amount = measures.amounts.get(heading) ?? NO_TEXT;
  if (amount.chars === 0 || amount.linkChars < amount.chars * LINKED_HEADING_SHARE) return false;
  const stack: Element[] = [heading];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.name === 'a') return isPageLink(node);
    for (const child of node.children) if (isElementNode(child)) stack.push(child);
  }
  return false;
}

/** A link to another page: not to a place in this one, not a script's. */
function isPageLink(element: Element): boolean {
  if (element.name !== 'a') return false;
  const href = element.attribs.href ?? '';
  return href !== '' && !href.startsWith('#') && !/^javascript:/i.test(href);
}
