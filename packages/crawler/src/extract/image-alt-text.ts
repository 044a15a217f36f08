import type { Element } from 'domhandler';
import { isElementNode, isTextNode } from './dom-nodes';
import { wordsOf } from './text-amounts';

/** An alt text with this share of its words in its figure's caption says what the caption says. */
const CAPTION_WORDS_SHARE = 0.8;

/**
 * The text each image stands for in the content: its alt text, unless that text describes no image of its own. An alt
 * text on several images of the content is a label (the site's name, a search phrase), not a description of each; an
 * alt text its figure's caption repeats is read once, in the caption. In documentation (`documentation`: a
 * generator's root, or content holding code) every alt text is kept: a diagram's, repeated or captioned, is content.
 */
export function describeImages(images: Element[], documentation: boolean): Map<Element, string> {
  const alts = new Map(images.map((image) => [image, (image.attribs.alt ?? '').replace(/\s+/g, ' ').trim()]));
  if (documentation) return alts;
  const uses = new Map<string, number>();
  for (const alt of alts.values()) if (alt !== '') uses.set(alt.toLowerCase(), (uses.get(alt.toLowerCase()) ?? 0) + 1);
  for (const [image, alt] of alts) {
    if (alt === '') continue;
    if (uses.get(alt.toLowerCase())! > 1 || captionRepeats(image, alt)) alts.set(image, '');
  }
  return alts;
}

function captionRepeats(image: Element, alt: string): boolean {
  const caption = new Set(wordsOf(captionText(image)));
  const words = wordsOf(alt);
  return words.length > 0 && words.filter((word) => caption.has(word)).length >= words.length * CAPTION_WORDS_SHARE;
}

/** The text of the `<figcaption>` of the `<figure>` around the image, empty when there is none. */
function captionText(image: Element): string {
  let figure = image.parent;
  while (figure && !(isElementNode(figure) && figure.name === 'figure')) figure = figure.parent;
  if (!figure) return '';
  const texts: string[] = [];
  const visit = (node: Element, inCaption: boolean) => {
    for (const child of node.children) {
      if (isElementNode(child)) visit(child, inCaption || child.name === 'figcaption');
      else if (inCaption && isTextNode(child)) texts.push(child.data);
    }
  };
  visit(figure, false);
  return texts.join(' ');
}
