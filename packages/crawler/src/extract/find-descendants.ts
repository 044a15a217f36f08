import type { Cheerio, CheerioAPI } from 'cheerio';
import { compile, selectAll } from 'css-select';
import { hasChildren, type AnyNode, type Element } from 'domhandler';
import { isElementNode, pushAll } from './dom-nodes';

// One compound selector or a list of them ("a", "h1, h2", "td.code", "a[class]", ".linenos, [data-line-number]").
const COMPOUND_LIST =
  /^(?:(?:[a-z][a-z0-9]*|\*)?(?:[.#][\w-]+|\[[\w-]+(?:=[\w-]+)?\])*)(?:\s*,\s*(?:[a-z][a-z0-9]*|\*)?(?:[.#][\w-]+|\[[\w-]+(?:=[\w-]+)?\])*)*$/;
type CompiledQuery = ReturnType<typeof compile<AnyNode, Element>>;
const compiled = new Map<string, CompiledQuery | null>();

/**
 * The descendants of `scope` that match a CSS selector, in document order: what `scope.find(selector)` gives, but
 * in time linear in the elements searched. Cheerio's find() compares the scope's children pairwise first, which takes
 * seconds under an element with tens of thousands of children (a highlighted source file's <pre>, a flat page body).
 */
export function findDescendants(
  $: CheerioAPI,
  scope: Cheerio<AnyNode> | AnyNode | AnyNode[],
  selector: string,
): Cheerio<Element> {
  const scopes = Array.isArray(scope) ? scope : 'cheerio' in scope ? scope.toArray() : [scope];
  const query = compiledQuery(selector);
  // One element at a time: css-select's own check for nested scopes is the same pairwise comparison.
  const found: Element[] = [];
  for (const element of scopes) {
    if (query) collectMatches(element, query, found);
    else pushAll(found, selectAll<AnyNode, Element>(selector, element));
  }
  return $(scopes.length > 1 ? [...new Set(found)] : found);
}

/**
 * The descendants matching `query`, in document order, walked as selectors walk (elements only, not into a template's
 * content): css-select's own walk costs half a microsecond an element (4 ms for one selector over Node's fs.html).
 */
function collectMatches(scope: AnyNode, query: CompiledQuery, found: Element[]): void {
  if (hasChildren(scope)) collectAmong(scope.children, query, found);
}

function collectAmong(nodes: AnyNode[], query: CompiledQuery, found: Element[]): void {
  for (const node of nodes) {
    if (!isElementNode(node)) continue;
    if (query(node)) found.push(node);
    collectAmong(node.children, query, found);
  }
}

/**
 * A selector without combinators matches a descendant whatever lies above the scope, so it is compiled once rather
 * than on every call (extraction makes thousands of calls a page); others are compiled against their scope.
 */
function compiledQuery(selector: string): CompiledQuery | null {
  let query = compiled.get(selector);
  if (query === undefined) {
    query = COMPOUND_LIST.test(selector) ? compile<AnyNode, Element>(selector) : null;
    compiled.set(selector, query);
  }
  return query;
}
