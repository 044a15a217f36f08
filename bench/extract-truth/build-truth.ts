/**
 * Builds the extraction-quality truth: for each page, the text a reader would call its content.
 *
 * Documentation pages: a rule per page (a CSS selector for the content, selectors for what to remove inside it:
 * permalink marks, "Source" links, toggle labels, in-page tables of contents, footers), applied with cheerio to the
 * stored copy of the page, then turned into text by `nodeText` (blocks on their own lines, code kept as written).
 * Articles: the article body of scrapinghub's article-extraction-benchmark ground truth, with the page's headline
 * put first; each paragraph is checked to be in the page, and a few are corrected by hand (see ARTICLE_FIXES).
 * The rules are in doc-rules.ts and article-rules.ts, the manifest and the reviews in truth-manifest.ts, what they share
 * (gzipped files, plain text, a page's titled headline, the manifest entry) in truth-files.ts.
 * Every truth file was then read against its page (the manifest's `review` says what was found and done).
 *
 *   npx tsx bench/extract-truth/build-truth.ts import-docs
 *       copies the chosen Debian documentation pages from .cache/debian-docs (scripts/fetch-debian-docs.sh) to pages/
 *   npx tsx bench/extract-truth/build-truth.ts import-articles <checkout of scrapinghub/article-extraction-benchmark>
 *       copies the chosen article pages to pages/ and writes their starting truth from the checkout's ground truth
 *       (this overwrites the article truth files: ARTICLE_FIXES are then to be made again)
 *   npx tsx bench/extract-truth/build-truth.ts docs
 *       regenerates the documentation truth files from the stored pages
 *   npx tsx bench/extract-truth/build-truth.ts import-dev <checkout of scrapinghub/article-extraction-benchmark>
 *       writes the development set, dev/: every other page of that benchmark (those not among the 42 above), with its
 *       ground truth as it is (no hand fixes), the headline put first when the page's first <h1> is its <title>'s
 *   npx tsx bench/extract-truth/build-truth.ts import-wcxb <checkout of Murrough-Foley/web-content-extraction-benchmark>
 *       adds to the development set three pages in five of WCXB's own development split per page type (articles, listings,
 *       documentation), none from a site in the test set, with WCXB's ground truth as it is (see import-wcxb.ts); run
 *       after import-dev, whose manifest it extends
 *   npx tsx bench/extract-truth/build-truth.ts check
 *       checks every article truth paragraph against its page's text
 *   npx tsx bench/extract-truth/build-truth.ts manifest
 *       rewrites manifest.json from the rules and the reviews recorded in REVIEWS
 *
 * The truth files are committed text: this script documents how they were made and can regenerate the documentation
 * ones; it is not run by the benchmark.
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { load } from 'cheerio';
import { nodeText, tokenize } from '../extract-quality-text';
import { ARTICLE_RULES, articleId, headlineOf } from './article-rules';
import { DOC_RULES, docId, docTruth } from './doc-rules';
import { importWcxb, WCXB_SOURCE } from './import-wcxb';
import { plainBody, readGz, titledHeadline, writeGz, type ManifestPage } from './truth-files';
import { REVIEWS, writeManifest } from './truth-manifest';

const HERE = __dirname;
const REPO = path.resolve(HERE, '../..');
const PAGES = path.join(HERE, 'pages');
const TRUTH = path.join(HERE, 'truth');
const DEBIAN_DOCS = path.join(REPO, '.cache/debian-docs/usr/share/doc');

function importDocs() {
  fs.mkdirSync(PAGES, { recursive: true });
  for (const rule of DOC_RULES) {
    const source = path.join(DEBIAN_DOCS, rule.siteDir, rule.path);
    writeGz(path.join(PAGES, `${docId(rule)}.html.gz`), fs.readFileSync(source));
  }
  console.log(`${DOC_RULES.length} documentation pages copied`);
}

function buildDocs() {
  fs.mkdirSync(TRUTH, { recursive: true });
  for (const rule of DOC_RULES) {
    const id = docId(rule);
    const text = docTruth(rule, readGz(path.join(PAGES, `${id}.html.gz`)));
    fs.writeFileSync(path.join(TRUTH, `${id}.txt`), `${text}\n`);
    console.log(`${id.padEnd(50)} ${String(tokenize(text).length).padStart(7)} words`);
  }
}

interface ScrapinghubTruth {
  articleBody: string;
  url: string;
}

function importArticles(checkout: string) {
  const truth = JSON.parse(fs.readFileSync(path.join(checkout, 'ground-truth.json'), 'utf8')) as Record<
    string,
    ScrapinghubTruth
  >;
  fs.mkdirSync(PAGES, { recursive: true });
  fs.mkdirSync(TRUTH, { recursive: true });
  const urls: Record<string, string> = {};
  for (const rule of ARTICLE_RULES) {
    const key = Object.keys(truth).find((k) => k.startsWith(rule.hash));
    if (!key) throw new Error(`no page ${rule.hash}`);
    const entry = truth[key]!;
    const id = articleId(entry.url, rule.hash);
    const gz = fs.readFileSync(path.join(checkout, 'html', `${key}.html.gz`));
    fs.writeFileSync(path.join(PAGES, `${id}.html.gz`), gz);
    const headline = headlineOf(rule, zlib.gunzipSync(gz).toString('utf8'));
    const body = plainBody(entry.articleBody);
    fs.writeFileSync(path.join(TRUTH, `${id}.txt`), `${headline ? `# ${headline}\n\n` : ''}${body}\n`);
    urls[id] = entry.url;
    console.log(`${id.padEnd(50)} ${String(tokenize(body).length).padStart(6)} words  ${headline.slice(0, 60)}`);
  }
  fs.writeFileSync(path.join(HERE, 'article-urls.json'), `${JSON.stringify(urls, null, 2)}\n`);
}

/**
 * The development set: the benchmark's pages that are not in the test set above, for tuning the extractor without
 * looking at the test pages. Its ground truth is taken as it is; the headline is put first only where the page's first
 * `<h1>` matches its `<title>`, no page was fixed by hand.
 */
function importDev(checkout: string) {
  const truth = JSON.parse(fs.readFileSync(path.join(checkout, 'ground-truth.json'), 'utf8')) as Record<
    string,
    ScrapinghubTruth
  >;
  const testHashes = new Set(ARTICLE_RULES.map((rule) => rule.hash));
  const dev = path.join(HERE, 'dev');
  fs.mkdirSync(path.join(dev, 'pages'), { recursive: true });
  fs.mkdirSync(path.join(dev, 'truth'), { recursive: true });
  const pages: ManifestPage[] = [];
  for (const key of Object.keys(truth).sort()) {
    const hash = key.slice(0, 10);
    if (testHashes.has(hash)) continue;
    const entry = truth[key]!;
    const id = articleId(entry.url, hash);
    const gz = fs.readFileSync(path.join(checkout, 'html', `${key}.html.gz`));
    fs.writeFileSync(path.join(dev, 'pages', `${id}.html.gz`), gz);
    const headline = titledHeadline(zlib.gunzipSync(gz).toString('utf8'));
    const body = plainBody(entry.articleBody);
    writeGz(path.join(dev, 'truth', `${id}.txt.gz`), `${headline ? `# ${headline}\n\n` : ''}${body}\n`);
    pages.push({
      id,
      group: 'articles',
      source: 'scrapinghub/article-extraction-benchmark',
      sourcePath: `html/${key}.html.gz`,
      url: entry.url,
      html: `pages/${id}.html.gz`,
      truth: `truth/${id}.txt.gz`,
      licence:
        'the benchmark repository is MIT-licensed; the page itself is the publisher’s, kept as that benchmark keeps it, for evaluation',
      method: `scrapinghub ground truth articleBody as it is${headline ? ", the page's first h1 put first" : ''}`,
      review: 'not reviewed by hand: a development set for tuning, scored by `EXTRACT_QUALITY_SET=dev`',
    });
  }
  replaceDevPages('scrapinghub/article-extraction-benchmark', pages);
  console.log(
    `${pages.length} development pages, ${pages.filter((p) => p.method.includes('h1')).length} with a headline`,
  );
}

/** WCXB's pages added to the development set (see import-wcxb.ts), after the scrapinghub ones. */
function addWcxb(checkout: string) {
  const test = JSON.parse(fs.readFileSync(path.join(HERE, 'manifest.json'), 'utf8')) as { pages: ManifestPage[] };
  const testUrls = test.pages.filter((page) => page.group === 'articles').map((page) => page.url);
  const pages = importWcxb(checkout, path.join(HERE, 'dev'), testUrls);
  replaceDevPages(WCXB_SOURCE, pages);
  for (const group of ['articles', 'listings', 'documentation'])
    console.log(`${pages.filter((p) => p.group === group).length} ${group} from WCXB`);
}

/** Rewrites dev/manifest.json with one source's pages replaced by `pages`, the other source's kept. */
function replaceDevPages(source: string, pages: ManifestPage[]) {
  const file = path.join(HERE, 'dev', 'manifest.json');
  const kept = fs.existsSync(file)
    ? (JSON.parse(fs.readFileSync(file, 'utf8')) as { pages: ManifestPage[] }).pages.filter((p) => p.source !== source)
    : [];
  const order = (page: ManifestPage) => (page.source === WCXB_SOURCE ? 1 : 0);
  const manifest = {
    description:
      'Development set for extraction quality, to tune on (the test set, ../manifest.json, is only reported): the pages ' +
      "of scrapinghub/article-extraction-benchmark that are not in the test set, with that benchmark's own ground " +
      "truth; and three pages in five of WCXB's development split (articles, listings, documentation; no site of the " +
      "test set), with WCXB's ground truth. See build-truth.ts and import-wcxb.ts.",
    pages: [...kept, ...pages].sort((a, b) => order(a) - order(b)),
  };
  fs.writeFileSync(file, `${JSON.stringify(manifest, null, 2)}\n`);
}

/** Each truth paragraph's words must appear, in order, in the page's text: a paragraph not in the page is flagged. */
function checkArticles() {
  const urls = JSON.parse(fs.readFileSync(path.join(HERE, 'article-urls.json'), 'utf8')) as Record<string, string>;
  let flagged = 0;
  for (const id of Object.keys(urls)) {
    const $ = load(readGz(path.join(PAGES, `${id}.html.gz`)));
    const page = ` ${tokenize(nodeText($, $.root().get(0)!)).join(' ')} `;
    const paragraphs = fs
      .readFileSync(path.join(TRUTH, `${id}.txt`), 'utf8')
      .split(/\n+/)
      .filter(Boolean);
    const missing = paragraphs.filter((p) => {
      const words = tokenize(p);
      return words.length > 0 && !page.includes(` ${words.join(' ')} `);
    });
    if (missing.length) {
      flagged++;
      console.log(`${id}: ${missing.length}/${paragraphs.length} paragraphs not found as such in the page`);
      for (const p of missing) console.log(`    ${p.slice(0, 140)}`);
    }
  }
  console.log(`${Object.keys(urls).length} articles, ${flagged} with paragraphs to look at`);
}

const [command, argument] = process.argv.slice(2);
if (command === 'import-docs') importDocs();
else if (command === 'import-articles' && argument) importArticles(argument);
else if (command === 'import-dev' && argument) importDev(argument);
else if (command === 'import-wcxb' && argument) addWcxb(argument);
else if (command === 'docs') buildDocs();
else if (command === 'check') checkArticles();
else if (command === 'manifest') writeManifest(REVIEWS);
else {
  console.error(
    'usage: build-truth.ts import-docs | import-articles <checkout> | import-dev <checkout> | import-wcxb <checkout> | docs | check | manifest',
  );
  process.exit(1);
}
