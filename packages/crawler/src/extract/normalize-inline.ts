import type { Cheerio, CheerioAPI } from 'cheerio';
import type { AnyNode, Element } from 'domhandler';
import { splitNameWords } from './chrome-names';
import { removeNodes, replaceNodes } from './dom-nodes';
import { findDescendants } from './find-descendants';
import { isFrameworkRoot } from './frameworks';
import { describeImages, findRepeatedCaptions } from './image-alt-text';

const PERMALINK_TEXT = /^(|#|¶|§|🔗|∞|¤|permalink( to this (headline|heading|section|definition))?)$/iu;
const PERMALINK_LABEL = /permalink|permanent link|link to this|direct link|anchor/i;
const PERMALINK_CLASS_WORDS = new Set(['headerlink', 'hash', 'anchorjs', 'permalink', 'anchor', 'mark']);
const ZERO_WIDTH = /[\u200b-\u200d\ufeff]/g;
const NON_WEB_LINK = /^\s*(javascript|data|blob):/i;

/**
 * Drops heading permalinks and empty anchors, makes every link absolute (against `<base href>` when
 * present) and replaces images by their alt text where it describes them, dropping captions said of several images
 * (image-alt-text.ts).
 */
export function normalizeInline($: CheerioAPI, root: Cheerio<Element>, baseUrl: string): void {
  // Images first: a link holding only an image with alt text is not empty.
  replaceImagesWithAlt($, root);
  removePermalinks($, root);
  // One pass: a link's href does not change whether it is empty, nor its removal another link's href.
  const empty: Element[] = [];
  findDescendants($, root, 'a').each((_, element) => {
    const link = $(element);
    absolutizeLink(link, baseUrl);
    if (visibleText(link) === '') empty.push(element);
  });
  removeNodes(empty);
}

function removePermalinks($: CheerioAPI, root: Cheerio<Element>): void {
  const replacements = new Map<AnyNode, AnyNode[]>();
  findDescendants($, findDescendants($, root, 'h1, h2, h3, h4, h5, h6'), 'a').each((_, element) => {
    const link = $(element);
    if (isPermalink(link, true)) {
      replacements.set(element, []);
    } else if ((link.attr('href') ?? '').startsWith('#')) {
      // A heading whose text links to itself reads better as plain heading text.
      replacements.set(element, [...element.children]);
    }
  });
  replaceNodes(replacements);
  const permalinks: Element[] = [];
  findDescendants($, root, 'a[class], a[title], a[aria-label]').each((_, element) => {
    if (isPermalink($(element), false)) permalinks.push(element);
  });
  removeNodes(permalinks);
}

/** A permalink is a link whose text is only a marker (¶, #, nothing) and that sits in or names a heading. */
function isPermalink(link: Cheerio<Element>, inHeading: boolean): boolean {
  if (!PERMALINK_TEXT.test(visibleText(link))) return false;
  if (inHeading) return true;
  const classWords = (link.attr('class') ?? '').split(/\s+/).flatMap(splitNameWords);
  const label = `${link.attr('title') ?? ''} ${link.attr('aria-label') ?? ''}`;
  return classWords.some((word) => PERMALINK_CLASS_WORDS.has(word)) || PERMALINK_LABEL.test(label);
}

function replaceImagesWithAlt($: CheerioAPI, root: Cheerio<Element>): void {
  const replacements = new Map<AnyNode, AnyNode[]>();
  const images = findDescendants($, root, 'img').toArray();
  // Asked only of a page with images: the search for code is a pass over the whole content.
  const documentation =
    images.length > 0 &&
    (isFrameworkRoot($, root) ||
      findDescendants($, root, 'pre, code')
        .toArray()
        .some((code) => $(code).text().trim() !== ''));
  for (const [image, text] of describeImages(images, documentation))
    replacements.set(image, text === '' ? [] : [$('<span></span>').text(text)[0]!]);
  // The elements images name as their descriptions, by id: a pass over the content only when an image names one.
  const byId = new Map<string, Element>();
  if (!documentation && images.some((image) => image.attribs['aria-describedby']))
    for (const element of findDescendants($, root, '[id]').toArray()) byId.set(element.attribs.id!, element);
  for (const caption of findRepeatedCaptions(images, documentation, byId)) replacements.set(caption, []);
  replaceNodes(replacements);
  // `picture source, video, audio`, in two compound steps (a selector with a combinator is searched far more slowly).
  removeNodes([
    ...findDescendants($, findDescendants($, root, 'picture'), 'source').toArray(),
    ...findDescendants($, root, 'video, audio').toArray(),
  ]);
}

function absolutizeLink(link: Cheerio<Element>, baseUrl: string): void {
  const href = link.attr('href');
  if (href === undefined) return;
  if (href.trim() === '' || NON_WEB_LINK.test(href)) {
    link.removeAttr('href');
    return;
  }
  try {
    link.attr('href', new URL(href.trim(), baseUrl).href);
  } catch {
    link.removeAttr('href');
  }
}

function visibleText(element: Cheerio<Element>): string {
  return element.text().replace(ZERO_WIDTH, '').trim();
}
