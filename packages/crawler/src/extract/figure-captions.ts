import type { AnyNode, Element } from 'domhandler';
import { splitNameWords } from './chrome-names';
import { findOutermost, holds, isElementNode, isTextNode, removeNodes } from './dom-nodes';
import { measureTextAmounts } from './text-amounts';

/**
 * A news or blog article's illustrations: a `<figure>` (or WordPress's older caption markup, or a block of a picture
 * and a text named a caption) holding a picture and a caption saying what it shows, who is in it and who took it
 * ("The Doobie Brothers perform at the Beacon. (AP Photo)"). The Markdown keeps no picture, and its caption, left
 * between the story's paragraphs, reads as a stray line of the story: the figure goes whole. Told by its tag and what
 * it holds: a figure with text of its own outside its caption (a pull quote, a chart's table; a gallery's count is no
 * text of its own) or with no picture stays, and documentation is never asked (its figures' captions name diagrams).
 */

const PICTURE_TAGS = new Set(['img', 'picture', 'video', 'svg']);
/** Text outside the caption a figure may hold (characters that are not white space): a gallery's count, "Expand". */
const MAX_OTHER_CHARS = 20;

/** Removes from `top`, an article's content, its figures of a picture and a caption (see above). */
export function removeFigureCaptions(top: Element): void {
  const chars = charsUnder(top);
  const figures = findOutermost(top, isFigure);
  removeNodes(
    figures.filter((figure) => {
      const captions = captionsIn(figure);
      const captionChars = captions.reduce((sum, caption) => sum + chars(caption), 0);
      return captions.length > 0 && chars(figure) - captionChars <= MAX_OTHER_CHARS && holdsPicture(figure);
    }),
  );
}

/**
 * Removes from `top`, an article's content, its figures without the tag (isNamedCaptionBlock). Asked after the
 * slideshows that say each caption twice are gone (repeating-widgets.ts): a slide is such a block, and its caption
 * would otherwise leave the panel's copy said once.
 */
export function removeNamedCaptionBlocks(top: Element): void {
  const chars = charsUnder(top);
  removeNodes(findOutermost(top, (element) => isNamedCaptionBlock(element, chars)));
}

/** The text (characters that are not white space) of each element under `top`, measured once. */
function charsUnder(top: Element): (node: AnyNode) => number {
  const amounts = measureTextAmounts(top);
  return (node) => amounts.get(node)?.chars ?? 0;
}

/**
 * A figure without the tag: a block of pictures and one element with text whose class names it a caption
 * (`newsCaption`, `image-caption`), holding no other text and no link (a teaser's picture links to its story).
 */
function isNamedCaptionBlock(element: Element, chars: (node: AnyNode) => number): boolean {
  let caption: Element | null = null;
  for (const child of element.children) {
    if (isTextNode(child) && /\S/.test(child.data)) return false;
    if (!isElementNode(child)) continue;
    if (chars(child) === 0) continue;
    if (caption || !hasCaptionName(child)) return false;
    caption = child;
  }
  return caption !== null && holdsPicture(element) && !holdsLink(element);
}

function hasCaptionName(element: Element): boolean {
  return (element.attribs.class ?? '').split(/\s+/).some((token) => splitNameWords(token).includes('caption'));
}

const holdsPicture = (figure: Element) => holds(figure, (element) => PICTURE_TAGS.has(element.name));
const holdsLink = (block: Element) => holds(block, (element) => element.name === 'a' && !!element.attribs.href);

/**
 * A `<figure>`, or WordPress's caption markup from before HTML5 (`<div class="wp-caption">` around the picture and a
 * `<p class="wp-caption-text">`), as common as the tag on news and blog sites.
 */
function isFigure(element: Element): boolean {
  return element.name === 'figure' || hasClass(element, 'wp-caption');
}

function isCaption(element: Element): boolean {
  return element.name === 'figcaption' || hasClass(element, 'wp-caption-text');
}

function hasClass(element: Element, name: string): boolean {
  return (element.attribs.class ?? '').split(/\s+/).includes(name);
}

/** The captions (`<figcaption>`, `wp-caption-text`) under `figure`, none inside another. */
function captionsIn(figure: Element): Element[] {
  return findOutermost(figure, isCaption);
}
