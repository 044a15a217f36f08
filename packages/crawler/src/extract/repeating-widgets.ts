import type { CheerioAPI } from 'cheerio';
import type { AnyNode, Element, Text } from 'domhandler';
import { isElementNode, isTextNode, pushAll, removeNodes } from './dom-nodes';
import { measureTextAmounts } from './text-amounts';

/**
 * A widget that says the same thing twice: a slideshow repeating each photo's caption and credit in its slide and in
 * its caption panel, a product card whose name is its heading and its picture's label. A story never repeats a
 * sentence within a few lines, so a small block whose text is mostly lines said twice inside it is such a widget and
 * goes whole, with its buttons' labels ("Caption", "Close", "Image 1 of 9"). Told by repetition, not by names. Two
 * repetitions are the page's: a section rendered twice (its first copy stays) and one value in parallel cells.
 */

/** A line shorter than this (characters, white space included once) is a label: "Advertisement" may repeat. */
const MIN_LINE_CHARS = 15;
/** The widget is at most this share of the content's text: a story that quotes itself stays whole. */
const MAX_SHARE = 0.3;
/** This share of the widget's text at least is lines said twice inside it. */
const MIN_REPEATED_SHARE = 0.5;
/** Text inside these is never counted: code and tables repeat lines by nature. */
const UNCOUNTED_TAGS = new Set(['pre', 'code', 'table', 'script', 'style', 'noscript', 'template']);

/** Removes from `top`, an article's content, the small blocks that repeat their own lines (see above). */
export function removeRepeatingWidgets($: CheerioAPI, top: Element): void {
  const lines = collectLines(top);
  const amounts = measureTextAmounts(top);
  const topChars = amounts.get(top)?.chars ?? 0;
  // For each block, the characters of the repeated lines whose every copy it holds.
  const repeatedWithin = new Map<Element, number>();
  for (const copies of lines.values()) {
    if (copies.length < 2) continue;
    const holder = commonAncestor(copies, top);
    if (!holder || holder === top || inParallelItems(copies, holder)) continue;
    const chars = copies.reduce((sum, copy) => sum + (amounts.get(copy)?.chars ?? 0), 0);
    for (let block: Element | null = holder; block && block !== top; block = parentOf(block))
      repeatedWithin.set(block, (repeatedWithin.get(block) ?? 0) + chars);
  }
  const doomed: Element[] = [];
  // Outermost first: a slideshow goes whole, not its caption panel alone.
  const stack: Element[] = [top];
  while (stack.length > 0) {
    const element = stack.pop()!;
    for (const child of element.children) {
      if (!isElementNode(child)) continue;
      const repeated = repeatedWithin.get(child);
      if (repeated === undefined) continue;
      const chars = amounts.get(child)?.chars ?? 0;
      if (chars >= topChars * MAX_SHARE || repeated < chars * MIN_REPEATED_SHARE || holdsHeadline(child)) {
        stack.push(child);
        continue;
      }
      const copies = laterCopies($, child);
      if (copies.length > 0) pushAll(doomed, copies);
      else doomed.push(child);
    }
  }
  removeNodes(doomed);
}

/** The text nodes under `top` of MIN_LINE_CHARS or more, grouped by their text with white space collapsed. */
function collectLines(top: Element): Map<string, Text[]> {
  const lines = new Map<string, Text[]>();
  const stack: AnyNode[] = [top];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (isTextNode(node)) {
      const line = node.data.replace(/\s+/g, ' ').trim();
      if (line.length < MIN_LINE_CHARS) continue;
      const copies = lines.get(line);
      if (copies) copies.push(node);
      else lines.set(line, [node]);
    } else if (isElementNode(node) && !UNCOUNTED_TAGS.has(node.name)) stack.push(...node.children);
  }
  return lines;
}

/**
 * Copies standing in items of one kind (the cells of a comparison table's row, cards of one class): parallel values
 * ("N/A" under two products), not a widget saying one thing twice.
 */
function inParallelItems(copies: AnyNode[], holder: Element): boolean {
  const kinds = new Set<string>();
  for (const copy of copies) {
    let item: AnyNode = copy;
    while (item.parent && item.parent !== holder) item = item.parent;
    if (!isElementNode(item)) return false;
    kinds.add(`${item.name}.${item.attribs.class ?? ''}`);
  }
  return kinds.size === 1;
}

/**
 * The children of `block` that repeat an earlier child's text whole: a section rendered twice (for two screen sizes),
 * whose first copy is the page's text and stays.
 */
function laterCopies($: CheerioAPI, block: Element): Element[] {
  const seen = new Set<string>();
  const copies: Element[] = [];
  for (const child of block.children) {
    if (!isElementNode(child)) continue;
    const text = $(child).text().replace(/\s+/g, ' ').trim();
    if (text === '') continue;
    if (seen.has(text)) copies.push(child);
    else seen.add(text);
  }
  return copies;
}

function parentOf(node: AnyNode): Element | null {
  const parent = node.parent;
  return parent && isElementNode(parent) ? parent : null;
}

/** The innermost element holding every node, at most `top`. */
function commonAncestor(nodes: AnyNode[], top: Element): Element | null {
  const path = new Set<Element>();
  for (let element = parentOf(nodes[0]!); element; element = element === top ? null : parentOf(element))
    path.add(element);
  let common: Element | null = parentOf(nodes[0]!);
  for (const node of nodes.slice(1)) {
    let element = parentOf(node);
    while (element && !path.has(element)) element = element === top ? null : parentOf(element);
    if (!element) return null;
    // The common ancestor is the highest of the meeting points.
    if (common && isInside(common, element)) common = element;
  }
  return common;
}

function isInside(node: Element, ancestor: Element): boolean {
  for (let parent = parentOf(node); parent; parent = parentOf(parent)) if (parent === ancestor) return true;
  return false;
}

/** The page's headline is never part of a widget, whatever repeats it (a slideshow's title bar). */
function holdsHeadline(element: Element): boolean {
  const stack: Element[] = [element];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.name === 'h1') return true;
    for (const child of node.children) if (isElementNode(child)) stack.push(child);
  }
  return false;
}
