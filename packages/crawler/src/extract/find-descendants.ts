import type { Cheerio, CheerioAPI } from 'cheerio';
import { selectAll } from 'css-select';
import type { AnyNode, Element } from 'domhandler';

/**
 * The descendants of `scope` that match a CSS selector, in document order: what `scope.find(selector)` gives, but
 * in time linear in the elements searched. Cheerio's find() compares the scope's children pairwise first, which takes
 * seconds under an element with tens of thousands of children (a highlighted source file's <pre>, a flat page body).
 */
export function findDescendants($: CheerioAPI, scope: Cheerio<AnyNode> | AnyNode, selector: string): Cheerio<Element> {
  const scopes = 'cheerio' in scope || Array.isArray(scope) ? (scope as Cheerio<AnyNode>).toArray() : [scope];
  // One element at a time: css-select's own check for nested scopes is the same pairwise comparison.
  const found = scopes.flatMap((element) => selectAll<AnyNode, Element>(selector, element));
  return $(scopes.length > 1 ? [...new Set(found)] : found);
}
