import { load } from 'cheerio';
import { limitNesting } from './limit-nesting';

/** Server-rendered docs carry their text; a script shell shows at most a loading line or a notice. */
const SHELL_TEXT_LIMIT = 200;
/** Above this much text a "please enable JavaScript" notice is a courtesy, not a sign of an empty page. */
const NOSCRIPT_NOTICE_TEXT_LIMIT = 1500;
/** A page showing this much text without any JavaScript is server-rendered, whatever else it holds. */
const RENDERED_TEXT_FLOOR = 5000;
const CONTENT_LANDMARKS = 'main, article, [role="main"]';
/** Characters a landmark needs beyond its heading to be content rather than a title over an empty shell. */
const LANDMARK_TEXT_BEYOND_HEADING = 20;
const MOUNT_POINTS = '#root, #app, #__next, #__nuxt, #___gatsby, #svelte, [data-reactroot], app-root';
const ENABLE_JAVASCRIPT_NOTICE =
  /(enable|turn on|activate)\s+javascript|javascript\s+(is\s+)?(required|disabled|must be enabled|needs to be enabled)|requires\s+javascript|need(s)?\s+(to\s+)?(enable\s+)?javascript/i;
const NON_EXECUTABLE_SCRIPT_TYPES = /json|template|text\/(x-)?(html|markdown)/i;

/**
 * True when the HTML is a client-rendered shell whose content only appears after JavaScript runs,
 * so the page must be loaded in a browser instead of being extracted as fetched.
 */
export function needsBrowser(html: string): boolean {
  // Cheap pre-check so large server-rendered pages (Node's all.html is 4 MB) skip a full parse.
  if (estimateVisibleText(html) >= RENDERED_TEXT_FLOOR) return false;
  const $ = load(limitNesting(html));
  const scripts = $('script').filter((_, script) => !NON_EXECUTABLE_SCRIPT_TYPES.test($(script).attr('type') ?? ''));
  if (scripts.length === 0) return false;
  const noscriptText = collapseSpace($('noscript').text());
  $('script, style, noscript, template, svg').remove();
  const bodyText = collapseSpace($('body').text());
  if (bodyText.length < SHELL_TEXT_LIMIT) return hasEmptyMountPoint($) || !hasLandmarkContent($);
  if (hasEmptyMountPoint($)) return true;
  return ENABLE_JAVASCRIPT_NOTICE.test(noscriptText) && bodyText.length < NOSCRIPT_NOTICE_TEXT_LIMIT;
}

/**
 * A short page can still be whole: a content landmark holding a heading and text beyond it (rustdoc's page of one
 * constant: its name, its declaration and a line saying what it is). A shell's landmark is empty or says "Loading".
 */
function hasLandmarkContent($: ReturnType<typeof load>): boolean {
  return $(CONTENT_LANDMARKS)
    .toArray()
    .some((element) => {
      const heading = collapseSpace($(element).find('h1, h2').first().text());
      return heading !== '' && collapseSpace($(element).text()).length > heading.length + LANDMARK_TEXT_BEYOND_HEADING;
    });
}

function hasEmptyMountPoint($: ReturnType<typeof load>): boolean {
  return $(MOUNT_POINTS)
    .toArray()
    .some(
      (element) => collapseSpace($(element).text()).length < SHELL_TEXT_LIMIT / 4 && $(element).find('a').length < 3,
    );
}

function estimateVisibleText(html: string): number {
  return html
    .replace(/<(script|style|noscript|template|svg|head)\b[\s\S]*?<\/\1\s*>/gi, ' ')
    .replace(/<[^>]*>/g, ' ')
    .replace(/\s+/g, ' ').length;
}

function collapseSpace(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
