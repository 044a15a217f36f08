import type { Element } from 'domhandler';
import { isElementNode, isTextNode } from './dom-nodes';
import { wordsOf } from './text-amounts';

/** An alt text with this share of its words in its figure's caption says what the caption says. */
const CAPTION_WORDS_SHARE = 0.8;
/** The text nearest an image is looked for this many wrappers up… */
const NEAR_LEVELS = 4;
/** …and is a caption's, a line or two (characters): the story around an image says its words by chance. */
const NEAR_MAX_CHARS = 300;

/**
 * The text each image stands for in the content: its alt text, unless that text describes no image of its own or says
 * again what the page says beside it. An alt text on several images of the content is a label (the site's name, a
 * search phrase), not a description of each; an alt text its figure's caption repeats is read once, in the caption, and
 * so is one the text nearest the image repeats (WordPress's `wp-caption-text` beside its picture, a product's name
 * under its photo); a picture inside a link (a teaser's thumbnail, a product card's photo) is the link's, whose title
 * its alt text repeats or stands in for. In documentation (`documentation`: a generator's root, or content holding
 * code) every alt text is kept: a diagram's, repeated or captioned, is content.
 */
export function describeImages(images: Element[], documentation: boolean): Map<Element, string> {
  const alts = new Map(images.map((image) => [image, (image.attribs.alt ?? '').replace(/\s+/g, ' ').trim()]));
  if (documentation) return alts;
  const uses = new Map<string, number>();
  for (const alt of alts.values()) if (alt !== '') uses.set(alt.toLowerCase(), (uses.get(alt.toLowerCase()) ?? 0) + 1);
  for (const [image, alt] of alts) {
    if (alt === '') continue;
    if (
      uses.get(alt.toLowerCase())! > 1 ||
      captionRepeats(image, alt) ||
      isLinked(image) ||
      nearTextRepeats(image, alt)
    )
      alts.set(image, '');
  }
  return alts;
}

function captionRepeats(image: Element, alt: string): boolean {
  return saysAgain(captionText(image), alt);
}

/** Whether `text` holds most of the alt text's words (CAPTION_WORDS_SHARE). */
function saysAgain(text: string, alt: string): boolean {
  const said = new Set(wordsOf(text));
  const words = wordsOf(alt);
  return words.length > 0 && words.filter((word) => said.has(word)).length >= words.length * CAPTION_WORDS_SHARE;
}

/** A picture inside a link. */
function isLinked(image: Element): boolean {
  for (let node = image.parent; node; node = node.parent) if (isElementNode(node) && node.name === 'a') return true;
  return false;
}

/**
 * Whether the text nearest the image repeats its alt text: the text of its closest wrapper holding any, looked for
 * NEAR_LEVELS wrappers up at most, when it is a caption's length (a caption beside the picture, a product's name).
 */
function nearTextRepeats(image: Element, alt: string): boolean {
  let holder = image.parent;
  for (let level = 0; holder && isElementNode(holder) && level < NEAR_LEVELS; level++, holder = holder.parent) {
    const text = textOf(holder);
    if (/\S/.test(text)) return text.replace(/\s+/g, ' ').trim().length <= NEAR_MAX_CHARS && saysAgain(text, alt);
  }
  return false;
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

/**
 * Captions said of several images of the content: a label (the event's name under each photo of a gallery), as an alt
 * text on several images is, not what each shows. An image's captions are its figure's `<figcaption>` and the elements
 * its `aria-describedby` names (WordPress's `wp-caption-text`), found in `byId`. Documentation keeps them all.
 */
export function findRepeatedCaptions(images: Element[], documentation: boolean, byId: Map<string, Element>): Element[] {
  if (documentation) return [];
  const captions = new Map<string, Set<Element>>();
  for (const image of images) {
    for (const caption of captionsOf(image, byId)) {
      const text = textOf(caption).replace(/\s+/g, ' ').trim().toLowerCase();
      if (text === '') continue;
      const same = captions.get(text);
      if (same) same.add(caption);
      else captions.set(text, new Set([caption]));
    }
  }
  return [...captions.values()].filter((same) => same.size > 1).flatMap((same) => [...same]);
}

function captionsOf(image: Element, byId: Map<string, Element>): Element[] {
  const found: Element[] = [];
  for (const id of (image.attribs['aria-describedby'] ?? '').split(/\s+/)) {
    const described = id === '' ? undefined : byId.get(id);
    if (described) found.push(described);
  }
  let figure = image.parent;
  while (figure && !(isElementNode(figure) && figure.name === 'figure')) figure = figure.parent;
  if (figure && isElementNode(figure))
    for (const child of figure.children) if (isElementNode(child) && child.name === 'figcaption') found.push(child);
  return found;
}

function textOf(element: Element): string {
  const texts: string[] = [];
  const visit = (node: Element) => {
    for (const child of node.children) {
      if (isElementNode(child)) visit(child);
      else if (isTextNode(child)) texts.push(child.data);
    }
  };
  visit(element);
  return texts.join('');
}
