import type { Element } from 'domhandler';
import { isElementNode, removeNodes } from './dom-nodes';
import { shortText } from './text-amounts';

/**
 * A picture's credit: an element saying who took or owns a photo and nothing else ("Photo: Jane Doe, AP", "(Image: ©
 * NASA)", "Image copyright Getty Images", "Credit...Doug Mills/The New York Times", "Alex Wong | Getty Images"). Told
 * by its text, as a dateline is (datelines.ts): a line announcing a credit, or a few names ending with a picture
 * agency's. Readability keeps it, as a line of the story; a caption around it stays.
 */

/** A credit is this short at most (characters): a line, not a paragraph. */
const MAX_CHARS = 120;
/** "Photo:", "Image credit:", "Photograph ©", "Picture courtesy of", "Credit…", "Image copyright", in brackets or not. */
const ANNOUNCED =
  /^[\s([]*(?:(?:(?:photo(?:graph)?|image|picture|illustration)s?\s*(?:credits?|courtesy(?:\s+of)?)?\s*(?::|©|\|))|(?:credits?\s*(?::|\.{2,}|…))|(?:image\s+copyright\b))/i;
/** A few names ending with a picture agency's: "Getty Images", "Alex Wong | Getty Images". */
const AGENCY_ONLY = /^[\p{L}\p{N}\s.,'’|/&-]{0,60}\b(?:getty images|shutterstock(?:\.com)?|istock(?:photo)?)\W*$/iu;
const HEADING_TAGS = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6']);
/** Elements never judged, nor what is inside them: code and tables are the page's own. */
const KEPT_TAGS = new Set([...HEADING_TAGS, 'pre', 'code', 'table']);

/** Removes the picture credits under `top`, an article's content. */
export function removeCreditLines(top: Element): void {
  const doomed: Element[] = [];
  const stack: Element[] = [top];
  while (stack.length > 0) {
    const element = stack.pop()!;
    for (const child of element.children) {
      if (!isElementNode(child) || KEPT_TAGS.has(child.name)) continue;
      const text = shortText(child, MAX_CHARS);
      if (text !== null && isCredit(text)) doomed.push(child);
      else stack.push(child);
    }
  }
  removeNodes(doomed);
}

function isCredit(text: string): boolean {
  const line = text.replace(/\s+/g, ' ').trim();
  return line !== '' && (ANNOUNCED.test(line) || AGENCY_ONLY.test(line));
}
