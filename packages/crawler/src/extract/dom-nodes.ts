import type { AnyNode, ChildNode, Comment, Element, ParentNode, Text } from 'domhandler';

// domhandler's isTag, isText and isComment, reading the node's type in place: called through the library's exports
// they were a third of each walk over a page's elements.
const typeOf = (node: AnyNode): string => node.type;
export const isElementNode = (node: AnyNode): node is Element => {
  const type = typeOf(node);
  return type === 'tag' || type === 'script' || type === 'style';
};
export const isTextNode = (node: AnyNode): node is Text => typeOf(node) === 'text';
export const isCommentNode = (node: AnyNode): node is Comment => typeOf(node) === 'comment';

/**
 * Appends `items` to `target` one by one. `target.push(...items)` passes every item as an argument on the stack, and a
 * page's flat body (600,000 links under one element) passes more than the stack holds: a RangeError.
 */
export function pushAll<T>(target: T[], items: readonly T[]): void {
  for (const item of items) target.push(item);
}

/**
 * The element children of `parent` named in `names`, in order: what `children('td, th')` gives, without compiling a
 * selector on every call (tables and code blocks ask for their rows and cells hundreds of times a page).
 */
export function childElements(parent: Element, names: ReadonlySet<string>): Element[] {
  return parent.children.filter((child): child is Element => isElementNode(child) && names.has(child.name));
}

/** Whether an ancestor of `node` is named `name`, as `parents(name).length > 0` says. */
export function hasAncestorNamed(node: AnyNode, name: string): boolean {
  for (let parent = node.parent; parent; parent = parent.parent)
    if (isElementNode(parent) && parent.name === name) return true;
  return false;
}

/**
 * Replaces each node of `replacements` by its list of nodes (none: the node is removed), rewriting each parent's
 * children once. Cheerio's `remove()` and `replaceWith()` splice one node at a time out of its parent's children, a
 * pass over its siblings each: a page of 600,000 empty links under one parent made that pass quadratic.
 */
export function replaceNodes(replacements: Map<AnyNode, AnyNode[]>): void {
  const byParent = new Map<ParentNode, Map<AnyNode, AnyNode[]>>();
  for (const [node, by] of replacements) {
    const parent = node.parent;
    if (!parent) continue;
    let ofParent = byParent.get(parent);
    if (!ofParent) byParent.set(parent, (ofParent = new Map<AnyNode, AnyNode[]>()));
    ofParent.set(node, by);
  }
  for (const [parent, ofParent] of byParent) {
    const children: ChildNode[] = [];
    for (const child of parent.children) {
      const by = ofParent.get(child);
      if (!by) {
        children.push(child);
        continue;
      }
      child.parent = null;
      child.prev = null;
      child.next = null;
      for (const node of by) {
        // A node moved here leaves where it stood, unless that is a node replaced here (a link's own children).
        if (node.parent && node.parent !== parent && !replacements.has(node.parent)) detach(node);
        children.push(node);
      }
    }
    children.forEach((child, i) => {
      child.parent = parent;
      child.prev = children[i - 1] ?? null;
      child.next = children[i + 1] ?? null;
    });
    parent.children = children;
  }
}

/** Removes every node of `nodes` from its parent (see replaceNodes). */
export function removeNodes(nodes: Iterable<AnyNode>): void {
  replaceNodes(new Map([...nodes].map((node): [AnyNode, AnyNode[]] => [node, []])));
}

function detach(node: AnyNode): void {
  const parent = node.parent;
  if (!parent) return;
  const index = parent.children.indexOf(node);
  if (index >= 0) parent.children.splice(index, 1);
  if (node.prev) node.prev.next = node.next;
  if (node.next) node.next.prev = node.prev;
  node.parent = null;
  node.prev = null;
  node.next = null;
}

/** Hidden at load by an attribute or inline style: a closed menu, a modal, or a wrapper shown by a script. */
export function isHiddenAtLoad(element: Element): boolean {
  const { attribs } = element;
  // Inactive tabs are hidden until clicked but hold real content (other languages, package managers).
  if (attribs.role === 'tabpanel') return false;
  if (attribs.hidden !== undefined || attribs['aria-hidden'] === 'true') return true;
  const style = (attribs.style ?? '').toLowerCase().replace(/\s+/g, '');
  return style.includes('display:none') || style.includes('visibility:hidden');
}

/** The elements under `top` that match, none inside another: a match is not looked into. */
export function findOutermost(top: Element, matches: (element: Element) => boolean): Element[] {
  const found: Element[] = [];
  const stack: Element[] = [top];
  while (stack.length > 0) {
    const element = stack.pop()!;
    for (const child of element.children) {
      if (!isElementNode(child)) continue;
      if (matches(child)) found.push(child);
      else stack.push(child);
    }
  }
  return found;
}

/** Whether `element` or an element under it matches. */
export function holds(element: Element, matches: (element: Element) => boolean): boolean {
  const stack: Element[] = [element];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (matches(node)) return true;
    for (const child of node.children) if (isElementNode(child)) stack.push(child);
  }
  return false;
}
