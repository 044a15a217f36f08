/**
 * The development set's second source: pages of WCXB, the Web Content eXtraction Benchmark
 * (Murrough-Foley/web-content-extraction-benchmark, v1.0, CC-BY-4.0), saved from the web in 2025. Its ground truth
 * (`main_content`) was drafted by a language model and then reviewed by hand in four passes, per its README; it is
 * taken as it is. Only WCXB's own development split is read (its held-out split stays out), and no page from a site
 * in our test set: three pages in every five of each type taken (the first, third and fifth, in the order of WCXB's
 * file numbers), so the choice does not depend on how any extractor does on a page. (The set began with every fifth
 * page; the third and fifth were added later, so that rules are tuned on more kinds of page.)
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { tokenize } from '../extract-quality-text';
import { articleHost, plainBody, titledHeadline, writeGz, type Group, type ManifestPage } from './truth-files';

export const WCXB_SOURCE = 'Murrough-Foley/web-content-extraction-benchmark (WCXB v1.0)';

/** WCXB's page types taken, the group each is scored in, and the prefix of its ids. */
const TYPES: Record<string, { group: Group; prefix: string }> = {
  article: { group: 'articles', prefix: 'article' },
  // News front pages, course catalogues, review lists: the content is the list, not one story in it.
  listing: { group: 'listings', prefix: 'listing' },
  documentation: { group: 'documentation', prefix: 'docs' },
};
/**
 * Python's and PostgreSQL's manuals are kept out of everything extraction is tuned on: they are an independent check
 * of Docshelf as a whole.
 */
const INDEPENDENT_CHECK_HOSTS = ['docs.python.org', 'postgresql.org'];
/** Of each run of five pages in file-number order, the positions taken. */
const TAKEN = new Set([0, 2, 4]);

interface WcxbMetadata {
  files: Record<string, { split: 'dev' | 'test'; page_type: string; domain: string }>;
}

interface WcxbTruth {
  url?: string;
  ground_truth: { main_content?: string };
}

const readTruth = (checkout: string, fileId: string) =>
  JSON.parse(fs.readFileSync(path.join(checkout, 'dev/ground-truth', `${fileId}.json`), 'utf8')) as WcxbTruth;

/** The page's headline put first, unless the truth already starts with it. */
function withHeadline(body: string, headline: string): string {
  const words = tokenize(headline);
  const starts = tokenize(body.slice(0, headline.length * 2)).slice(0, words.length);
  return headline && starts.join(' ') !== words.join(' ') ? `# ${headline}\n\n${body}` : body;
}

/**
 * Copies the chosen pages of a WCXB checkout into `dev` (pages/, truth/) and returns their manifest entries;
 * `testUrls` are the test set's pages, whose sites are left out.
 */
export function importWcxb(checkout: string, dev: string, testUrls: string[]): ManifestPage[] {
  const metadata = JSON.parse(fs.readFileSync(path.join(checkout, 'metadata.json'), 'utf8')) as WcxbMetadata;
  const testHosts = new Set(testUrls.map(articleHost));
  const pages: ManifestPage[] = [];
  for (const [type, { group, prefix }] of Object.entries(TYPES)) {
    // A few truth files have no URL or no main content (WCXB's schema lets them): those pages are not candidates.
    const fileIds = Object.keys(metadata.files)
      .sort()
      .filter((fileId) => {
        const file = metadata.files[fileId]!;
        if (file.split !== 'dev' || file.page_type !== type) return false;
        const truth = readTruth(checkout, fileId);
        return truth.url && truth.ground_truth.main_content && !testHosts.has(articleHost(truth.url));
      })
      .filter((_, index) => TAKEN.has(index % 5))
      // Left out after the sampling, so that the other pages taken stay the same.
      .filter((fileId) => !INDEPENDENT_CHECK_HOSTS.includes(articleHost(readTruth(checkout, fileId).url!)));
    for (const fileId of fileIds) {
      const truth = readTruth(checkout, fileId);
      const url = truth.url!;
      const id = `${prefix}--${articleHost(url).replace(/\./g, '_')}-wcxb${fileId}`;
      const gz = fs.readFileSync(path.join(checkout, 'dev/html', `${fileId}.html.gz`));
      fs.writeFileSync(path.join(dev, 'pages', `${id}.html.gz`), gz);
      const headline = titledHeadline(zlib.gunzipSync(gz).toString('utf8'));
      const body = plainBody(truth.ground_truth.main_content!);
      const text = withHeadline(body, headline);
      writeGz(path.join(dev, 'truth', `${id}.txt.gz`), `${text}\n`);
      pages.push({
        id,
        group,
        source: WCXB_SOURCE,
        sourcePath: `dev/html/${fileId}.html.gz`,
        url,
        html: `pages/${id}.html.gz`,
        truth: `truth/${id}.txt.gz`,
        licence:
          'WCXB is CC-BY-4.0 (its LICENSE and metadata.json; © 2026 Murrough Foley); the page itself is the publisher’s, kept as WCXB keeps it, for evaluation',
        method: `WCXB ground truth main_content (drafted by a language model, reviewed by hand in four passes, per WCXB's README) as it is${text === body ? '' : ", the page's first h1 put first"}; WCXB page type "${type}"`,
        review: 'not reviewed by hand here: a development set for tuning, scored by `EXTRACT_QUALITY_SET=dev`',
      });
    }
  }
  return pages;
}
