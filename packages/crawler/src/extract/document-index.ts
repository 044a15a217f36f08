import type { CheerioAPI } from 'cheerio';
import type { AnyNode, Element } from 'domhandler';
import { isElementNode } from './dom-nodes';

/**
 * What extraction looks up in the whole document, gathered in one walk: each selector run over the whole document is
 * a walk of its own (2 to 3 ms on a large page), and the steps before cleaning asked for eight.
 */
export interface DocumentIndex {
  /** `tag:name`, `attr:name`, `#id` and `.class` of every element: which content-root selectors could match. */
  names: Set<string>;
  /** Elements by id (`#id`), in document order. */
  ids: Map<string, Element[]>;
  /** Elements by tag name, in document order. */
  tags: Map<string, Element[]>;
  /** `a[href], area[href], link[href]`, in document order. */
  links: Element[];
  /**
   * The ids a control shows and hides (`aria-controls` on a button, an element with the button role, or one saying
   * whether it is expanded): a disclosure's or an accordion's panels, hidden at load until their control is clicked.
   */
  controlled: Set<string>;
}

const LINK_TAGS = new Set(['a', 'area', 'link']);

/** Walks the document as selectors do: elements only (scripts and styles too), not into a template's content. */
export function indexDocument($: CheerioAPI): DocumentIndex {
  const found: Found = {
    ids: new Map(),
    tags: new Map(),
    links: [],
    controlled: new Set(),
    classes: new Set(),
    attributes: new Set(),
  };
  visit(found, $.root().children().toArray());
  const { ids, tags, links, controlled, classes, attributes } = found;
  const names = new Set<string>([
    ...[...tags.keys()].map((tag) => `tag:${tag}`),
    ...[...attributes].map((attribute) => `attr:${attribute}`),
    ...[...ids.keys()].map((id) => `#${id}`),
    ...[...classes].map((token) => `.${token}`),
  ]);
  return { names, ids, tags, links, controlled };
}

interface Found extends Omit<DocumentIndex, 'names'> {
  classes: Set<string>;
  attributes: Set<string>;
}

function visit(found: Found, nodes: AnyNode[]): void {
  for (const node of nodes) {
    if (!isElementNode(node)) continue;
    const { name, attribs } = node;
    const sameTag = found.tags.get(name);
    if (sameTag) sameTag.push(node);
    else found.tags.set(name, [node]);
    for (const attribute in attribs) found.attributes.add(attribute);
    const { id, class: className } = attribs;
    if (id !== undefined) {
      const sameId = found.ids.get(id);
      if (sameId) sameId.push(node);
      else found.ids.set(id, [node]);
    }
    if (className) for (const token of className.split(/\s+/)) if (token) found.classes.add(token);
    if (attribs.href !== undefined && LINK_TAGS.has(name)) found.links.push(node);
    if (attribs['aria-controls'] && isControl(name, attribs))
      for (const controlled of attribs['aria-controls'].split(/\s+/)) if (controlled) found.controlled.add(controlled);
    visit(found, node.children);
  }
}

function isControl(tag: string, attribs: Record<string, string>): boolean {
  return tag === 'button' || attribs.role === 'button' || attribs['aria-expanded'] !== undefined;
}

/** False when the selector (ids, classes, tags and attribute names joined by combinators) names an id, class, tag or attribute the document does not use. */
export function mayMatch(selector: string, names: Set<string>): boolean {
  return selector.split(',').some((alternative) => {
    const required = [
      ...[...alternative.matchAll(/[#.][\w-]+/g)].map((m) => m[0]),
      ...[...alternative.matchAll(/\[([\w-]+)/g)].map((m) => `attr:${m[1]}`),
      ...[...alternative.matchAll(/(?:^|[\s>+~])([a-z][a-z0-9]*)/g)].map((m) => `tag:${m[1]}`),
    ];
    return required.every((name) => names.has(name));
  });
}
