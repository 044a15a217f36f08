import type { Cheerio, CheerioAPI } from 'cheerio';
import type { AnyNode, Element } from 'domhandler';
import { splitNameWords } from './chrome-names';
import { isElementNode, isTextNode } from './dom-nodes';

/**
 * Responsive page builders render a page's text once per screen size and hide all but one copy with CSS (Framer's
 * `ssr-variant hidden-…` wrappers, Elementor's `elementor-hidden-mobile`), and MDN keeps a live sample's source twice,
 * once `hidden`: without the style sheet, the content reads two or three times over. A block of at least this many
 * characters whose text, character for character, an earlier block outside it already holds goes when it, or a
 * wrapper holding only it, is named for hiding or for one screen size; the first copy stays. Documentation that
 * repeats itself (a man page listing one option's text under two commands) keeps both: nothing names them so.
 */
const MIN_CHARS = 1_000;
const COPY_WORDS = new Set(['hidden', 'hide', 'visible', 'show', 'mobile', 'desktop', 'tablet', 'phone', 'variant']);

// Two polynomial hashes of each element's text, combined bottom-up in one pass (a text is the concatenation of its
// children's), so that no element's text is built unless it may repeat another's. Moduli under 2^26 keep every
// product below 2^53.
const BASE = 131;
const MODULI = [67_108_859, 67_108_837] as const;

interface TextKey {
  chars: number;
  hashes: [number, number];
}

/** Removes every later copy of a long block of text inside `root` (see MIN_CHARS). */
export function removeDuplicateBlocks($: CheerioAPI, root: Cheerio<Element>): void {
  const top = root[0];
  if (!top) return;
  const keys = textKeys(top);
  if ((keys.get(top)?.chars ?? 0) < MIN_CHARS * 2) return;
  const firstWith = new Map<string, Element>();
  const stack: Element[] = [top];
  while (stack.length > 0) {
    const element = stack.pop()!;
    const key = keys.get(element)!;
    if (key.chars >= MIN_CHARS) {
      const id = `${key.chars}:${key.hashes[0]}:${key.hashes[1]}`;
      const first = firstWith.get(id);
      if (!first) firstWith.set(id, element);
      else if (!isAncestor(first, element) && $(first).text() === $(element).text()) {
        const copy = namedCopy(element, keys);
        if (copy) {
          $(copy).remove();
          continue;
        }
      }
    }
    // Children pushed last first, so that they are visited in document order.
    for (let i = element.children.length - 1; i >= 0; i--) {
      const child = element.children[i]!;
      if (isElementNode(child)) stack.push(child);
    }
  }
}

/** Each element's text length and hashes, children before parents. */
function textKeys(top: Element): Map<Element, TextKey> {
  const keys = new Map<Element, TextKey>();
  const order: Element[] = [];
  const stack: Element[] = [top];
  while (stack.length > 0) {
    const element = stack.pop()!;
    order.push(element);
    for (const child of element.children) if (isElementNode(child)) stack.push(child);
  }
  for (let i = order.length - 1; i >= 0; i--) {
    const element = order[i]!;
    let chars = 0;
    const hashes: [number, number] = [0, 0];
    for (const child of element.children) {
      const part = partKey(child, keys);
      if (!part) continue;
      for (const m of [0, 1] as const)
        hashes[m] = (mulMod(hashes[m], powMod(BASE, part.chars, MODULI[m]), MODULI[m]) + part.hashes[m]) % MODULI[m];
      chars += part.chars;
    }
    keys.set(element, { chars, hashes });
  }
  return keys;
}

function partKey(node: AnyNode, keys: Map<Element, TextKey>): TextKey | undefined {
  if (isElementNode(node)) return keys.get(node);
  if (!isTextNode(node)) return undefined;
  const hashes: [number, number] = [0, 0];
  for (let i = 0; i < node.data.length; i++) {
    const code = node.data.charCodeAt(i);
    for (const m of [0, 1] as const) hashes[m] = (hashes[m] * BASE + code) % MODULI[m];
  }
  return { chars: node.data.length, hashes };
}

/** The element or the outermost wrapper of the same text above it, if one of them is named as a hidden copy. */
function namedCopy(element: Element, keys: Map<Element, TextKey>): Element | undefined {
  const chars = keys.get(element)!.chars;
  let named: Element | undefined;
  for (
    let node: Element | null = element;
    node;
    node = node.parent && isElementNode(node.parent) ? node.parent : null
  ) {
    const key = keys.get(node);
    if (!key || key.chars !== chars) break;
    const words = (node.attribs.class ?? '').split(/\s+/).flatMap(splitNameWords);
    if (words.some((word) => COPY_WORDS.has(word))) named = node;
  }
  return named;
}

function isAncestor(ancestor: Element, node: AnyNode): boolean {
  for (let parent = node.parent; parent; parent = parent.parent) if (parent === ancestor) return true;
  return false;
}

/** a × b mod m for a, b < m < 2^26, whose product stays exact in a double. */
function mulMod(a: number, b: number, m: number): number {
  return (a * b) % m;
}

function powMod(base: number, exponent: number, m: number): number {
  let result = 1;
  let factor = base % m;
  for (let e = exponent; e > 0; e = Math.floor(e / 2)) {
    if (e % 2 === 1) result = mulMod(result, factor, m);
    factor = mulMod(factor, factor, m);
  }
  return result;
}
