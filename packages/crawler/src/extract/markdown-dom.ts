import type { AnyNode, Element } from 'domhandler';
import { isCommentNode, isElementNode, isTextNode } from './dom-nodes';

/**
 * The content tree as turndown reads a DOM, built from the cheerio tree already parsed instead of serialising it and
 * parsing it again (the second parse was a third of a large page's extraction). The view is what that parse gave:
 * adjacent texts merged, empty ones gone, a `<pre>`'s leading newline dropped, a `<body>` root's children in its
 * place. Where a cleaned tree would not survive the round trip as it is (an element a parser would have closed or
 * moved, foreign content), `buildMarkdownDom` answers null and the caller serialises; so does a node turndown would
 * write as HTML (`outerHTML`, a table it keeps), by throwing `NeedsHtmlError`.
 */

const HTML_NAMESPACE = 'http://www.w3.org/1999/xhtml';
const words = (list: string) => new Set(list.split(' '));

/** Thrown when turndown asks for a node's HTML: the caller converts the serialised content instead. */
export class NeedsHtmlError extends Error {}

abstract class DomNode {
  parentNode: DomElement | null = null;
  previousSibling: DomNode | null = null;
  nextSibling: DomNode | null = null;
  abstract readonly nodeType: number;
  abstract readonly nodeName: string;
  abstract readonly textContent: string;
}

class DomText extends DomNode {
  readonly nodeType = 3;
  readonly nodeName = '#text';
  #data: string;
  constructor(data: string) {
    super();
    this.#data = data;
  }
  get data(): string {
    return this.#data;
  }
  set data(value: string) {
    this.#data = value;
    this.parentNode?.forgetText();
  }
  get nodeValue(): string {
    return this.#data;
  }
  get textContent(): string {
    return this.#data;
  }
}

class DomComment extends DomNode {
  readonly nodeType = 8;
  readonly nodeName = '#comment';
  constructor(readonly data: string) {
    super();
  }
  get nodeValue(): string {
    return this.data;
  }
  get textContent(): string {
    return this.data;
  }
}

// `type` as the DOM reflects it (turndown's task-list rule reads it): a plain attribute on these, enumerated on inputs.
const TYPE_REFLECTED = words('a area embed li link ol object param script source style ul');

class DomElement extends DomNode {
  readonly nodeType = 1;
  readonly nodeName: string;
  readonly childNodes: DomNode[] = [];
  #text: string | undefined;
  #children: DomElement[] | undefined;
  constructor(
    readonly localName: string,
    readonly attribs: Record<string, string>,
  ) {
    super();
    this.nodeName = localName.toUpperCase();
  }
  get firstChild(): DomNode | null {
    return this.childNodes[0] ?? null;
  }
  get lastChild(): DomNode | null {
    return this.childNodes[this.childNodes.length - 1] ?? null;
  }
  get children(): DomElement[] {
    // Whitespace collapsing removes texts and comments only, so the elements stay as built.
    this.#children ??= this.childNodes.filter((node): node is DomElement => node instanceof DomElement);
    return this.#children;
  }
  get lastElementChild(): DomElement | null {
    const { children } = this;
    return children[children.length - 1] ?? null;
  }
  get textContent(): string {
    // Turndown reads every node's text, top down: each is computed once (the tree no longer changes by then).
    if (this.#text === undefined) {
      let text = '';
      for (const node of this.childNodes) if (!(node instanceof DomComment)) text += node.textContent;
      this.#text = text;
    }
    return this.#text;
  }
  /** Drops the remembered text of this element and its ancestors (whitespace collapsing edits texts first). */
  forgetText(): void {
    if (this.#text === undefined) return;
    this.#text = undefined;
    this.parentNode?.forgetText();
  }
  getAttribute(name: string): string | null {
    return this.attribs[name] ?? null;
  }
  /** Descendants named `name` (any case), in document order. */
  getElementsByTagName(name: string, found: DomElement[] = []): DomElement[] {
    const wanted = name.toLowerCase();
    for (const child of this.childNodes) {
      if (!(child instanceof DomElement)) continue;
      if (child.localName === wanted) found.push(child);
      child.getElementsByTagName(wanted, found);
    }
    return found;
  }
  get rows(): DomElement[] | undefined {
    return this.localName === 'table' ? this.getElementsByTagName('tr') : undefined;
  }
  get type(): string | undefined {
    const type = this.attribs.type;
    if (this.localName === 'input') return (type ?? 'text').toLowerCase();
    return TYPE_REFLECTED.has(this.localName) ? (type ?? '') : undefined;
  }
  get checked(): boolean | undefined {
    return this.localName === 'input' ? this.attribs.checked !== undefined : undefined;
  }
  get outerHTML(): string {
    throw new NeedsHtmlError(this.localName);
  }
  /** Turndown clones its input before collapsing whitespace; this view is built for one conversion, so it is its own copy. */
  cloneNode(): this {
    return this;
  }
  appendChild(node: DomNode): void {
    const last = this.lastChild;
    node.parentNode = this;
    node.previousSibling = last;
    if (last) last.nextSibling = node;
    this.childNodes.push(node);
    this.#children = undefined;
  }
  removeChild(node: DomNode): void {
    const index = this.childNodes.indexOf(node);
    this.childNodes.splice(index, 1);
    if (node.previousSibling) node.previousSibling.nextSibling = node.nextSibling;
    if (node.nextSibling) node.nextSibling.previousSibling = node.previousSibling;
    node.parentNode = node.previousSibling = node.nextSibling = null;
    this.#children = undefined;
    this.forgetText();
  }
}

export type MarkdownDomRoot = DomElement;

// Roots a parser would not keep as an element inside turndown's wrapper (`<body>` is handled: its children stand in).
const UNSAFE_ROOTS = words(
  'html head caption col colgroup frame frameset tbody td tfoot th thead tr plaintext template image noscript textarea xmp iframe noembed noframes select option optgroup script style title',
);

// Start tags that close an open <p> (the table too: turndown's parser reads its input in quirks mode, where it does not,
// so a <p> holding one is left to it).
const CLOSES_P = words(
  'address article aside blockquote center details dialog dir div dl fieldset figcaption figure footer header hgroup main menu nav ol p search section summary ul h1 h2 h3 h4 h5 h6 pre listing form li dd dt plaintext hr xmp table',
);

const HEADINGS = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6']);

// The HTML parser's "special" elements, where its search for an open <li>, <dd> or <dt> to close stops.
const SPECIAL = words(
  'address applet area article aside base basefont bgsound blockquote body br button caption center col colgroup dd details dir div dl dt embed fieldset figcaption figure footer form frame frameset h1 h2 h3 h4 h5 h6 head header hgroup hr html iframe img input keygen li link listing main marquee menu meta nav noembed noframes noscript object ol p param plaintext pre script search section select source style summary table tbody td template textarea tfoot th thead title tr track ul wbr xmp',
);

// Where table parts may stand, and what may stand in them, for the parser to keep them where they are.
const TABLE_PARENT: Record<string, string[]> = {
  caption: ['table'],
  colgroup: ['table'],
  thead: ['table'],
  tbody: ['table'],
  tfoot: ['table'],
  tr: ['thead', 'tbody', 'tfoot'],
  td: ['tr'],
  th: ['tr'],
  col: ['colgroup'],
};
const TABLE_CHILDREN: Record<string, Set<string>> = {
  table: new Set(['caption', 'colgroup', 'thead', 'tbody', 'tfoot', 'script', 'style', 'template']),
  thead: new Set(['tr', 'script', 'style', 'template']),
  tbody: new Set(['tr', 'script', 'style', 'template']),
  tfoot: new Set(['tr', 'script', 'style', 'template']),
  tr: new Set(['td', 'th', 'script', 'style', 'template']),
  colgroup: new Set(['col', 'template']),
};

const VOID = words(
  'area base basefont bgsound br col embed frame hr img input keygen link meta param source track wbr',
);
// Elements whose first newline a parser drops.
const DROPS_LEADING_NEWLINE = new Set(['pre', 'listing', 'textarea']);
const ONLY_WHITESPACE = /^[\t\n\f\r ]*$/;

class Unsafe extends Error {}

/** The open elements that matter to where a parser puts the next one. */
interface Open {
  p: boolean;
  a: boolean;
  nobr: boolean;
}
const NONE_OPEN: Open = { p: false, a: false, nobr: false };

/**
 * Turndown's root (the wrapper element it parses its input into) holding `root`, or null when the cleaned tree is
 * not one a parser would give back as it is.
 */
export function buildMarkdownDom(root: Element): MarkdownDomRoot | null {
  if (!isHtml(root) || UNSAFE_ROOTS.has(root.name)) return null;
  const wrapper = new DomElement('x-turndown', { id: 'turndown-root' });
  try {
    if (root.name === 'body') appendChildren(wrapper, root.children, NONE_OPEN);
    else appendNode(wrapper, root, NONE_OPEN);
  } catch (error) {
    if (error instanceof Unsafe) return null;
    throw error;
  }
  return wrapper;
}

function isHtml(element: Element): boolean {
  return element.namespace === undefined || element.namespace === HTML_NAMESPACE;
}

function appendChildren(parent: DomElement, nodes: AnyNode[], open: Open): void {
  for (const node of nodes) appendNode(parent, node, open);
  if (DROPS_LEADING_NEWLINE.has(parent.localName)) {
    const first = parent.firstChild;
    if (first instanceof DomText && first.data.startsWith('\n')) {
      if (first.data.length === 1) parent.removeChild(first);
      else first.data = first.data.slice(1);
    }
  }
}

function appendNode(parent: DomElement, node: AnyNode, open: Open): void {
  if (isTextNode(node)) {
    if (node.data === '') return;
    const allowed = TABLE_CHILDREN[parent.localName];
    if (allowed && !ONLY_WHITESPACE.test(node.data)) throw new Unsafe();
    const last = parent.lastChild;
    if (last instanceof DomText) last.data += node.data;
    else parent.appendChild(new DomText(node.data));
    return;
  }
  if (isCommentNode(node)) {
    parent.appendChild(new DomComment(node.data));
    return;
  }
  if (!isElementNode(node) || !isHtml(node)) throw new Unsafe();
  const name = node.name;
  checkPlacement(parent, name, open);
  const element = new DomElement(name, node.attribs);
  parent.appendChild(element);
  if (VOID.has(name)) {
    if (node.children.length > 0) throw new Unsafe();
    return;
  }
  const inside = name === 'p' || name === 'a' || name === 'nobr' ? { ...open, [name]: true } : open;
  appendChildren(element, node.children, inside);
}

/** Throws where a parser reading the serialised tree would close or move the element instead of nesting it here. */
function checkPlacement(parent: DomElement, name: string, open: Open): void {
  if (open.p && CLOSES_P.has(name)) throw new Unsafe();
  if ((name === 'a' && open.a) || (name === 'nobr' && open.nobr)) throw new Unsafe();
  if (HEADINGS.has(name) && HEADINGS.has(parent.localName)) throw new Unsafe();
  const tableParents = TABLE_PARENT[name];
  if (tableParents && !tableParents.includes(parent.localName)) throw new Unsafe();
  const allowed = TABLE_CHILDREN[parent.localName];
  if (allowed && !allowed.has(name)) throw new Unsafe();
  if (name === 'li' || name === 'dd' || name === 'dt') {
    const closing = name === 'li' ? ['li'] : ['dd', 'dt'];
    for (let open: DomElement | null = parent; open; open = open.parentNode) {
      if (closing.includes(open.localName)) throw new Unsafe();
      if (SPECIAL.has(open.localName) && !['address', 'div', 'p'].includes(open.localName)) break;
    }
  }
}
