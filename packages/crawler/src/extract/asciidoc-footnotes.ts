import type { CheerioAPI } from 'cheerio';
import type { Element } from 'domhandler';
import type { DocumentIndex } from './document-index';
import { findDescendants } from './find-descendants';

// asciidoc's own script (asciidoc.js, `asciidoc.install()`) calls this on every page it generates.
const ASCIIDOC_SCRIPT = /\basciidoc\.install\s*\(/;
const NOTE_TEXT = /\s*\[([\s\S]*)]\s*/;

/**
 * Does to the page what asciidoc's script does in a browser, so a page fetched over HTTP reads as the rendered one:
 * each inline footnote (`<span class="footnote">[text]</span>`) becomes a numbered reference and its text moves to
 * the list at the end (`#footnotes`); a reference to a named footnote gets that footnote's number. The same steps as
 * asciidoc.js's `footnotes()`. A page the script already processed (rendered in a browser) is left as it is.
 * True when the document was changed.
 */
export function applyAsciidocFootnotes($: CheerioAPI, index: DocumentIndex): boolean {
  const holder = $((index.ids.get('footnotes') ?? []).slice(0, 1));
  const content = $((index.ids.get('content') ?? []).slice(0, 1));
  if (holder.length === 0 || content.length === 0 || !hasAsciidocScript($, index)) return false;
  // Rendered: the script has run (it marks each footnote with `data-note`); a second run would lose named references.
  if (findDescendants($, content, 'span.footnote[data-note]').length > 0) return false;
  holder.children('div.footnote').remove();
  const spans = findDescendants($, content, 'span');
  const refs = new Map<string, number>();
  let n = 0;
  spans.each((_, element) => {
    const span = $(element);
    if (span.attr('class') !== 'footnote') return;
    n += 1;
    const note = NOTE_TEXT.exec(span.html() ?? '')?.[1];
    if (note === undefined) return;
    span.html(`[<a id="_footnoteref_${n}" href="#_footnote_${n}" title="View footnote" class="footnote">${n}</a>]`);
    holder.append(
      `<div class="footnote" id="_footnote_${n}"><a href="#_footnoteref_${n}" title="Return to text">${n}</a>. ${note}</div>`,
    );
    const id = span.attr('id');
    if (id !== undefined) refs.set(`#${id}`, n);
  });
  if (n === 0) {
    holder.remove();
    return true;
  }
  spans.each((_, element: Element) => {
    const span = $(element);
    if (span.attr('class') !== 'footnoteref') return;
    const href = /#.*/.exec(findDescendants($, span, 'a').first().attr('href') ?? '')?.[0];
    const number = href === undefined ? undefined : refs.get(href);
    span.html(`[<a href="#_footnote_${number}" title="View footnote" class="footnote">${number}</a>]`);
  });
  return true;
}

function hasAsciidocScript($: CheerioAPI, index: DocumentIndex): boolean {
  return (index.tags.get('script') ?? []).some((script) => ASCIIDOC_SCRIPT.test($(script).text()));
}
