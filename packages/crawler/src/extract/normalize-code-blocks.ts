import type { Cheerio, CheerioAPI } from 'cheerio';
import type { Element } from 'domhandler';
import { childElements, hasAncestorNamed } from './dom-nodes';
import { findDescendants } from './find-descendants';

const LANGUAGE_CLASS = /(?:^|\s)(?:language-|lang-|highlight-(?:source-|text-)?|brush:\s*)([\w#+.-]+)/i;
const NO_LANGUAGE = new Set(['none', 'default', 'nohighlight', 'notranslate', 'plain', 'plaintext']);
const LINE_NUMBER_GUTTERS = '.linenos, .lineno, .line-numbers-rows, .gutter, .line-number, [data-line-number]';
// Sphinx and MkDocs put the language two levels above <pre> (div.highlight-python > div.highlight > pre).
const LANGUAGE_ANCESTOR_DEPTH = 3;
const CODE = new Set(['code']);

/**
 * Rewrites every `<pre>` under `root` as `<pre><code class="language-xx">plain text</code></pre>`, the one
 * shape turndown turns into a fenced block with its language; highlighter markup and line numbers go.
 */
export function normalizeCodeBlocks($: CheerioAPI, root: Cheerio<Element>): void {
  unwrapLineNumberTables($, root);
  // Each block's <code> is a copy of this one, not parsed from markup every time.
  const template = $('<code></code>')[0] as Element;
  findDescendants($, root, 'pre').each((_, element) => {
    if (hasAncestorNamed(element, 'pre')) return;
    const pre = $(element);
    const language = detectCodeLanguage($, pre);
    findDescendants($, pre, LINE_NUMBER_GUTTERS).remove();
    // Prism (Docusaurus) ends each line with <br>, which has no text of its own.
    findDescendants($, pre, 'br').replaceWith('\n');
    // Expressive Code (Starlight) draws each line as a <div>, a line of its own in a browser without a line feed.
    findDescendants($, pre, 'div').each((_, line) => {
      if (line.nextSibling && !$(line).text().endsWith('\n')) $(line).after('\n');
    });
    const code = $(template.cloneNode()).text(pre.text());
    if (language) code.attr('class', `language-${language}`);
    pre.empty().removeAttr('class').append(code);
  });
}

/** The language of a code block from its own, its `<code>` child's or a close ancestor's markup. */
export function detectCodeLanguage($: CheerioAPI, pre: Cheerio<Element>): string {
  const candidates: Cheerio<Element>[] = [$(childElements(pre[0]!, CODE).slice(0, 1)), pre];
  let ancestor = pre.parent();
  for (let depth = 0; depth < LANGUAGE_ANCESTOR_DEPTH && ancestor.length > 0; depth += 1) {
    candidates.push(ancestor);
    ancestor = ancestor.parent();
  }
  for (const candidate of candidates) {
    if (candidate.length === 0) continue;
    const language = readLanguage(candidate);
    if (language !== null) return language;
  }
  return '';
}

function readLanguage(element: Cheerio<Element>): string | null {
  const declared = element.attr('data-lang') ?? element.attr('data-language');
  const fromClass = (element.attr('class') ?? '').match(LANGUAGE_CLASS)?.[1];
  const language = (declared ?? fromClass ?? '').trim().toLowerCase();
  if (language === '') return null;
  return NO_LANGUAGE.has(language) ? '' : language;
}

/** Pygments renders numbered blocks as a two-cell table; only the code cell is worth keeping. */
function unwrapLineNumberTables($: CheerioAPI, root: Cheerio<Element>): void {
  findDescendants($, root, 'table.highlighttable, table.codehilitetable').each((_, element) => {
    const table = $(element);
    const code = findDescendants($, table, 'td.code, td.highlight').first();
    if (code.length > 0) table.replaceWith(code.contents());
  });
}
