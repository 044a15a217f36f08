/**
 * A fenced code block, an inline code span, or a markdown link or image: code is matched so that it is left as it is
 * (`fns[0](x)` is a call, not a link); a link's text may hold code spans (`[`fs.stat()`](fs.html#…)`).
 */
const LINK_OR_CODE =
  /(```[\s\S]*?```|~~~[\s\S]*?~~~)|(`[^`\n]*`)|(!?)\[((?:[^[\]\n`]|`[^`\n]*`)*)\]\((?:[^()\s]|\([^()\s]*\))*(?:\s+"[^"\n]*")?\)/g;

/**
 * Markdown links written as their text and images as their alt text (none when it is empty): in a prompt a link's URL
 * costs about as many tokens as a sentence and tells a reader of the text nothing; the piece keeps its page's URL.
 */
export function linksAsText(markdown: string): string {
  return markdown.replace(LINK_OR_CODE, (match, fence?: string, code?: string, _bang?: string, text?: string) =>
    fence !== undefined || code !== undefined ? match : (text ?? ''),
  );
}
