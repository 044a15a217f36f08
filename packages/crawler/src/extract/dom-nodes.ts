import type { AnyNode, Comment, Element, Text } from 'domhandler';

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
