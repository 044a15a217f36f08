import fs from 'node:fs';
import path from 'node:path';
import { ARTICLE_FIXES, ARTICLE_RULES } from './article-rules';
import { DOC_RULES, LICENCES, docId, docUrl } from './doc-rules';
import type { Group, ManifestPage } from './truth-files';

/** manifest.json and article-urls.json are beside this file. */
const HERE = __dirname;

/** Writes manifest.json: every page, where it comes from, how its truth was made and what its review found. */
export function writeManifest(reviews: (id: string, group: Group) => string) {
  const urls = JSON.parse(fs.readFileSync(path.join(HERE, 'article-urls.json'), 'utf8')) as Record<string, string>;
  const pages: ManifestPage[] = [
    ...DOC_RULES.map((rule): ManifestPage => {
      const id = docId(rule);
      return {
        id,
        group: 'documentation',
        source: `Debian package ${rule.debianPackage}`,
        sourcePath: `/usr/share/doc/${rule.siteDir}/${rule.path}`,
        url: docUrl(rule),
        html: `pages/${id}.html.gz`,
        truth: `truth/${id}.txt`,
        licence: LICENCES[rule.debianPackage]!,
        method: `cheerio rule: content ${JSON.stringify(rule.content)}${rule.remove.length ? `, removed ${rule.remove.map((s) => JSON.stringify(s)).join(' ')}` : ''}; text by nodeText (bench/extract-quality-text.ts)`,
        review: reviews(id, 'documentation'),
      };
    }),
    ...ARTICLE_RULES.map((rule): ManifestPage => {
      const id = Object.keys(urls).find((k) => k.endsWith(`-${rule.hash}`))!;
      return {
        id,
        group: 'articles',
        source: 'scrapinghub/article-extraction-benchmark',
        sourcePath: `html/${rule.hash}….html.gz`,
        url: urls[id]!,
        html: `pages/${id}.html.gz`,
        truth: `truth/${id}.txt`,
        licence:
          'the benchmark repository is MIT-licensed; the page itself is the publisher’s, kept as that benchmark keeps it, for evaluation',
        method: `scrapinghub ground truth articleBody, headline (${JSON.stringify(rule.headline ?? 'h1')}) put first${ARTICLE_FIXES[id] ? `; hand fixes: ${ARTICLE_FIXES[id]}` : ''}`,
        review: reviews(id, 'articles'),
      };
    }),
  ];
  const manifest = {
    description:
      'Extraction-quality truth: per page, the text a reader would call its content. See build-truth.ts for how each ' +
      "was made. Readability's own test pages (mozilla/readability test/test-pages) were not used: Readability is " +
      'tuned on them, which would favour it here.',
    pages,
  };
  fs.writeFileSync(path.join(HERE, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  console.log(`${pages.length} pages in manifest.json`);
}

const DOC_REVIEW =
  'reviewed: truth file read against the page (beginning, end, headings, tables, code blocks), and grepped for ' +
  'leftover chrome (¶, §, source, Expand description, Run, Read more, edit/next/previous, Last updated): none left';
const ARTICLE_REVIEW =
  'reviewed: headline checked against the page; every truth paragraph found in the page text (`check`); the page ' +
  'text outside the truth listed and read: captions, standfirsts, author bios, related links, ads, cookie and ' +
  'copyright notices, comments, none of them article text';

/** What reading each truth file against its page found, beyond the group's note (id → note). */
export const REVIEW_NOTES: Record<string, string> = {
  'git-doc--git-remote-helpers': 'a stub page that points to gitremote-helpers(7): kept as the short-page case',
  'git-doc--user-manual': "the book's table of contents (div.toc) is navigation and left out",
  'libjs-underscore--index':
    'function names (b.header) and the change log\'s version numbers are kept; the "DocumentCloud Project" credit is not',
  'rust-doc--std-option-enum.Option':
    'trait implementations (collapsed by default) are kept with their docs; "Read more" links are not',
  'sphinx-doc--usage-restructuredtext-directives':
    'its section "Table of contents" documents the toctree directive: content, not navigation',
  'sphinx-doc--usage-quickstart': 'the sidebar box "reStructuredText directives" and the footnote are content',
  'article--thehill_com-156770d676':
    'the page shows a hover card ("MORE") inside the governor\'s name; the truth reads the name plainly',
  'article--entermedia_co_kr-9da36ae471': 'the ground truth already starts with the headline; none added',
  'article--digg_com-680c2848e9':
    "an aggregated story: the headline is the story's h2, not the first h1 (another story)",
  'article--cnbc_com-374ac9a59a': 'the "Key Points" bullets are a standfirst and left out, as the source truth does',
};

export const REVIEWS = (id: string, group: Group) =>
  [group === 'documentation' ? DOC_REVIEW : ARTICLE_REVIEW, REVIEW_NOTES[id]].filter(Boolean).join('; ');
