/**
 * How deep elements may nest before deeper ones are flattened: Chromium's HTML parser stops nesting at 512 too
 * (`kMaximumHTMLParserDOMTreeDepth`), so a page reads the same fetched or rendered.
 */
export const MAX_NESTING = 512;

const VOID_TAGS = new Set([
  'area',
  'base',
  'br',
  'col',
  'embed',
  'hr',
  'img',
  'input',
  'link',
  'meta',
  'param',
  'source',
  'track',
  'wbr',
]);
/** Elements whose content is text, not markup, to the HTML parser. */
const RAW_TEXT_TAGS = new Set(['script', 'style', 'textarea', 'title', 'xmp', 'noscript', 'iframe', 'noembed']);
/** A start or end tag at the scan's position (attribute values holding `>` end it early: an estimate is enough). */
const TAG_AT = /<(\/?)([a-zA-Z][a-zA-Z0-9-]*)(?:[\s/][^>]*)?>/y;
/** How far down the open elements an end tag is matched: a stray end tag further down is left as it stands. */
const END_TAG_REACH = 8;

/**
 * The HTML with the tags of every element nested deeper than `max` levels left out (their text and children kept in
 * place, one level up): parse5 builds a tree in time that grows with the square of its depth, so 100,000 nested
 * `<div>`s held the worker for minutes, and extraction walks the tree recursively. One linear scan of the tags, as a
 * parser would see them (comments and the text of scripts and styles skipped); a page that nests no deeper than `max`
 * is returned as it is.
 */
export function limitNesting(html: string, max = MAX_NESTING): string {
  const dropped: Array<[number, number]> = [];
  const open: Array<{ name: string; dropped: boolean }> = [];
  let depth = 0;
  for (let at = html.indexOf('<'); at !== -1; at = html.indexOf('<', at)) {
    if (html.startsWith('<!--', at)) {
      const end = html.indexOf('-->', at + 4);
      at = end === -1 ? html.length : end + 3;
      continue;
    }
    TAG_AT.lastIndex = at;
    const tag = TAG_AT.exec(html);
    if (!tag) {
      at += 1;
      continue;
    }
    const end = at + tag[0].length;
    const name = tag[2]!.toLowerCase();
    if (tag[1]) {
      // An end tag closes the nearest open element of its name, and the elements opened inside it.
      let match = -1;
      for (let i = open.length - 1; i >= Math.max(0, open.length - END_TAG_REACH); i--)
        if (open[i]!.name === name) {
          match = i;
          break;
        }
      if (match >= 0) {
        const matched = open[match]!;
        while (open.length > match) if (!open.pop()!.dropped) depth -= 1;
        if (matched.dropped) dropped.push([at, end]);
      }
    } else if (!VOID_TAGS.has(name) && !tag[0].endsWith('/>')) {
      const drop = depth >= max;
      if (drop) dropped.push([at, end]);
      else depth += 1;
      open.push({ name, dropped: drop });
    }
    at = end;
    if (!tag[1] && RAW_TEXT_TAGS.has(name)) {
      const close = new RegExp(`</${name}[\\s/>]`, 'ig');
      close.lastIndex = end;
      const found = close.exec(html);
      at = found ? found.index : html.length;
    }
  }
  if (dropped.length === 0) return html;
  const kept: string[] = [];
  let from = 0;
  for (const [start, end] of dropped) {
    kept.push(html.slice(from, start));
    from = end;
  }
  kept.push(html.slice(from));
  return kept.join('');
}
