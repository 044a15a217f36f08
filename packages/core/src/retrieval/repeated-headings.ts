import { TITLE_SEPARATOR } from '../chunking/chunk-markdown';

const HEADING = /^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
const FENCE = /^ {0,3}(```|~~~)/;

/** A heading's or a title part's words, without markdown emphasis or code marks, for comparing one with another. */
function words(text: string): string {
  return text.replace(/[`*_]/g, '').replace(/\s+/g, ' ').trim().toLowerCase();
}

/**
 * A piece's text without the headings its title already says and without a heading that ends it with nothing under
 * it: the piece is written under its title ("### Child process › Spawning"), so a first line "## Child process"
 * repeats it, and a last "## See also" whose text the chunk left out is residue of the page's layout. Only headings
 * at the start or the end go; those inside are the piece's structure.
 */
export function withoutRepeatedHeadings(markdown: string, title: string | null | undefined): string {
  const lines = markdown.split('\n');
  const said = new Set((title ?? '').split(TITLE_SEPARATOR).map(words));
  let start = 0;
  while (start < lines.length) {
    const line = lines[start]!;
    const heading = HEADING.exec(line);
    if (line.trim() === '') start++;
    else if (heading && said.has(words(heading[2]!))) start++;
    else break;
  }
  let end = lines.length;
  const fences = lines.filter((line) => FENCE.test(line)).length;
  // With an odd number of fences the text ends inside code, where a line starting with # is no heading.
  if (fences % 2 === 0) {
    while (end > start) {
      const line = lines[end - 1]!;
      if (line.trim() === '' || HEADING.test(line)) end--;
      else break;
    }
  }
  const kept = lines.slice(start, end).join('\n');
  return kept.trim() === '' ? markdown : kept;
}
