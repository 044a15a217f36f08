import type { AnyNode, Element } from 'domhandler';
import { BLOCK_TAGS } from './block-measures';
import { isElementNode, removeNodes } from './dom-nodes';
import { measureTextAmounts, shortText } from './text-amounts';

/**
 * The author's box of an article: a name (a link to the author's page, or a line of its own) over a paragraph that
 * begins with that name ("Rebecca Norris is a freelance writer…", "Geri Mileva, an experienced engineer…"), with a
 * portrait and a title beside them. It is about the writer, not the story. Told by its shape: the name said twice,
 * once alone and once opening the paragraph, in a small block holding little else. A page of profiles, where every
 * name opens its paragraph, has more than one such pair and keeps them all.
 */

/** A name is a line of two to four words, each capitalised, this long at most (characters). */
const MAX_NAME_CHARS = 40;
const NAME = /^(?:\p{Lu}[\p{L}.'’-]*\s+){1,3}\p{Lu}[\p{L}.'’-]*$/u;
/** The box is at most this share of the content's text. */
const MAX_SHARE = 0.3;
/** Besides its name and paragraph, the box holds labels of this many characters at most ("About the author", a title). */
const MAX_OTHER_CHARS = 80;
const HEADING_TAGS = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6']);

/** Removes from `top`, an article's content, its author's box, when it has one and only one (see above). */
export function removeAuthorBox(top: Element): void {
  const amounts = measureTextAmounts(top);
  const topChars = amounts.get(top)?.chars ?? 0;
  const names: { element: Element; name: string }[] = [];
  const boxes = new Set<Element>();
  const stack: Element[] = [top];
  while (stack.length > 0) {
    const element = stack.pop()!;
    if (HEADING_TAGS.has(element.name)) continue;
    const text = shortText(element, MAX_NAME_CHARS);
    if (text !== null && NAME.test(text)) names.push({ element, name: text });
    else if (BLOCK_TAGS.has(element.name) && isLeafBlock(element)) {
      const opening = shortText(element, Infinity)!;
      for (const { element: nameElement, name } of names) {
        if (!opening.startsWith(name) || opening.length === name.length) continue;
        const box = commonAncestor(nameElement, element);
        if (!box || box === top) continue;
        const chars = amounts.get(box)?.chars ?? 0;
        const own = (amounts.get(nameElement)?.chars ?? 0) + (amounts.get(element)?.chars ?? 0);
        if (chars <= topChars * MAX_SHARE && chars - own <= MAX_OTHER_CHARS) boxes.add(box);
      }
    }
    for (let i = element.children.length - 1; i >= 0; i--) {
      const child = element.children[i]!;
      if (isElementNode(child)) stack.push(child);
    }
  }
  if (boxes.size === 1) removeNodes([widen([...boxes][0]!, top, amounts)]);
}

/** The box with the wrappers around it holding nothing more than labels ("About the author"). */
function widen(box: Element, top: Element, amounts: Map<AnyNode, { chars: number }>): Element {
  const chars = amounts.get(box)?.chars ?? 0;
  let widest = box;
  for (let parent = parentOf(box); parent && parent !== top; parent = parentOf(parent)) {
    if ((amounts.get(parent)?.chars ?? 0) > chars + MAX_OTHER_CHARS) break;
    widest = parent;
  }
  return widest;
}

/** A block holding no other block: a paragraph. */
function isLeafBlock(element: Element): boolean {
  const stack: AnyNode[] = [...element.children];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (!isElementNode(node)) continue;
    if (BLOCK_TAGS.has(node.name)) return false;
    stack.push(...node.children);
  }
  return true;
}

function parentOf(node: AnyNode): Element | null {
  const parent = node.parent;
  return parent && isElementNode(parent) ? parent : null;
}

function commonAncestor(a: Element, b: Element): Element | null {
  const ancestors = new Set<Element>();
  for (let node: Element | null = a; node; node = parentOf(node)) ancestors.add(node);
  for (let node: Element | null = b; node; node = parentOf(node)) if (ancestors.has(node)) return node;
  return null;
}
