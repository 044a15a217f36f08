/**
 * Extraction quality: how much of a page's content extractPage keeps (recall) and how much of what it keeps is
 * content (precision), word by word, against truth made by hand for documentation pages and news articles
 * (bench/extract-truth: what each truth is and how it was made is in its manifest.json and build-truth.ts), beside
 * Mozilla Readability on the same pages in the same run.
 *
 * Both outputs and the truth become bags of lower-cased words (runs of letters and digits): Docshelf's Markdown with
 * its syntax dropped (fences, images, link destinations, `#`, `|`, backticks, `*`), Readability's article as text.
 * Precision and recall are over the multiset intersection. A page an extractor refuses (Docshelf: empty Markdown or
 * a throw; Readability: null) scores 0 and is counted apart. Per-page scores go to .cache/extract-quality.json, so
 * two runs can be diffed.
 *
 * `npm run bench -- extract-quality`, or alone: `npx tsx --conditions=@docshelf/source bench/extract-quality.bench.ts`.
 * That is the test set. `EXTRACT_QUALITY_SET=dev` scores the development set instead (bench/extract-truth/dev: the
 * scrapinghub benchmark's other article pages and a sample of WCXB's articles, listings and documentation pages, what
 * extraction is tuned on), to .cache/extract-quality-dev.json;
 * `EXTRACT_QUALITY_READABILITY=0` leaves Readability out (its figures then read 0), for quick runs while tuning.
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { Readability } from '@mozilla/readability';
import { extractPage } from '@docshelf/crawler';
import { load } from 'cheerio';
import { markdownText, nodeText, scoreWords, tokenize, type WordScore } from './extract-quality-text';

/**
 * jsdom rather than linkedom: Readability's own test suite runs on jsdom, so its output here is the one Mozilla
 * checks; linkedom is faster but differs from a browser DOM where Readability looks (textContent, innerHTML
 * round-trips, element geometry it leaves undefined alike), and this benchmark is about quality, not speed. Loaded
 * untyped, with the little used here declared: @types/jsdom would bring the DOM library into the whole project's
 * type check (its global `fetch` and `Response` would shadow Node's).
 */
interface JsdomModule {
  JSDOM: new (
    html: string,
    options: { url: string; virtualConsole: unknown },
  ) => { window: { document: unknown; close(): void } };
  VirtualConsole: new () => unknown;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { JSDOM, VirtualConsole } = require('jsdom') as JsdomModule;

const REPO = path.resolve(__dirname, '..');
const DEV = process.env.EXTRACT_QUALITY_SET === 'dev';
const WITH_READABILITY = process.env.EXTRACT_QUALITY_READABILITY !== '0';
const TRUTH_DIR = path.join(__dirname, DEV ? 'extract-truth/dev' : 'extract-truth');
const OUTPUT = path.join(REPO, DEV ? '.cache/extract-quality-dev.json' : '.cache/extract-quality.json');
const COMMAND = `${DEV ? 'EXTRACT_QUALITY_SET=dev ' : ''}npm run bench -- extract-quality`;
const GROUPS = ['documentation', 'articles', 'listings'] as const;

type Group = (typeof GROUPS)[number];

interface ManifestPage {
  id: string;
  group: Group;
  url: string;
  html: string;
  truth: string;
}

interface Outcome {
  refused: boolean;
  /** Why it refused: the error's message, or what came back. */
  reason?: string;
  ms: number;
  score: WordScore;
}

interface PageResult {
  id: string;
  group: Group;
  url: string;
  truthWords: number;
  docshelf: Outcome;
  readability: Outcome;
}

const EXTRACTORS = ['docshelf', 'readability'] as const;
type Extractor = (typeof EXTRACTORS)[number];

function runDocshelf(html: string, url: string): { text: string | null; reason?: string } {
  try {
    const { markdown } = extractPage(html, url);
    return markdown.trim() ? { text: markdownText(markdown) } : { text: null, reason: 'empty markdown' };
  } catch (error) {
    return { text: null, reason: `threw: ${(error as Error).message}` };
  }
}

function runReadability(html: string, url: string): { text: string | null; reason?: string } {
  if (!WITH_READABILITY) return { text: null, reason: 'not run' };
  // Pages' CSS and markup errors are jsdom's to note, not this report's.
  let dom: InstanceType<JsdomModule['JSDOM']>;
  try {
    dom = new JSDOM(html, { url, virtualConsole: new VirtualConsole() });
  } catch (error) {
    // jsdom's CSS parser throws on some pages' stylesheets (a Sass expression left in a `calc()`).
    return { text: null, reason: `jsdom threw: ${(error as Error).message.split('\n')[0]}` };
  }
  try {
    const article = new Readability(dom.window.document).parse();
    if (!article) return { text: null, reason: 'null' };
    // The text of the article's HTML read as the truth is (nodeText), not its `textContent`: textContent joins the
    // text of adjacent blocks and table cells with no space where the page had none (`<td>a</td><td>b</td>` is one
    // word "ab"), which would count words Readability kept as lost (half a point to 18 points of recall, on 19 of
    // these pages).
    const $ = load(article.content ?? '');
    return { text: nodeText($, $.root().get(0)!) };
  } catch (error) {
    return { text: null, reason: `threw: ${(error as Error).message}` };
  } finally {
    dom.window.close();
  }
}

function measure(run: () => { text: string | null; reason?: string }, truth: string[]): Outcome {
  const started = process.hrtime.bigint();
  const { text, reason } = run();
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (text === null) return { refused: true, reason, ms, score: scoreWords([], truth) };
  return { refused: false, ms, score: scoreWords(tokenize(text), truth) };
}

const mean = (values: number[]) => (values.length ? values.reduce((a, b) => a + b, 0) / values.length : 0);
const pct = (value: number) => (value * 100).toFixed(1).padStart(5);
const words = (list: Array<[string, number]>, count: number) =>
  list
    .slice(0, count)
    .map(([word, n]) => (n > 1 ? `${word}×${n}` : word))
    .join(' ');

function groupLine(results: PageResult[], extractor: Extractor): string {
  const outcomes = results.map((r) => r[extractor]);
  const p = mean(outcomes.map((o) => o.score.precision));
  const r = mean(outcomes.map((o) => o.score.recall));
  const f = mean(outcomes.map((o) => o.score.f1));
  const refused = outcomes.filter((o) => o.refused).length;
  const low = outcomes.filter((o) => o.score.recall < 0.1).length;
  return `P ${pct(p)} R ${pct(r)} F1 ${pct(f)}  refused ${String(refused).padStart(2)}  R<0.1 ${String(low).padStart(2)}`;
}

export function benchExtractQuality(): void {
  const manifest = JSON.parse(fs.readFileSync(path.join(TRUTH_DIR, 'manifest.json'), 'utf8')) as {
    pages: ManifestPage[];
  };
  const started = Date.now();
  const results: PageResult[] = manifest.pages.map((page) => {
    const html = zlib.gunzipSync(fs.readFileSync(path.join(TRUTH_DIR, page.html))).toString('utf8');
    const truthFile = fs.readFileSync(path.join(TRUTH_DIR, page.truth));
    const truth = tokenize((page.truth.endsWith('.gz') ? zlib.gunzipSync(truthFile) : truthFile).toString('utf8'));
    return {
      id: page.id,
      group: page.group,
      url: page.url,
      truthWords: truth.length,
      docshelf: measure(() => runDocshelf(html, page.url), truth),
      readability: measure(() => runReadability(html, page.url), truth),
    };
  });
  const seconds = (Date.now() - started) / 1000;

  const counts = GROUPS.map((g) => `${results.filter((r) => r.group === g).length} ${g}`).join(', ');
  console.log(
    `extraction quality: ${results.length} pages (${counts}) against ${DEV ? "the sources' own truth in bench/extract-truth/dev" : 'hand-checked truth in bench/extract-truth'}; ` +
      `word-level bag-of-words precision/recall, means over pages (a refused page scores 0)` +
      (DEV ? ' -- DEVELOPMENT set' : ''),
  );
  console.log(`command: ${COMMAND}   (${seconds.toFixed(0)} s)`);
  console.log(
    `${'group'.padEnd(14)} ${'pages'.padStart(5)} | ${'Docshelf extractPage'.padEnd(51)} | Readability (jsdom)`,
  );
  for (const group of GROUPS) {
    const inGroup = results.filter((r) => r.group === group);
    console.log(
      `${group.padEnd(14)} ${String(inGroup.length).padStart(5)} | ${groupLine(inGroup, 'docshelf')} | ${groupLine(inGroup, 'readability')}`,
    );
  }
  console.log(
    `${'all'.padEnd(14)} ${String(results.length).padStart(5)} | ${groupLine(results, 'docshelf')} | ${groupLine(results, 'readability')}`,
  );
  const ms = (extractor: Extractor) => results.reduce((sum, r) => sum + r[extractor].ms, 0);
  console.log(
    `time: Docshelf ${ms('docshelf').toFixed(0)} ms, Readability (with jsdom's parse) ${ms('readability').toFixed(0)} ms`,
  );

  for (const extractor of WITH_READABILITY ? EXTRACTORS : (['docshelf'] as const)) {
    const refused = results.filter((r) => r[extractor].refused);
    if (refused.length)
      console.log(`${extractor} refused: ${refused.map((r) => `${r.id} (${r[extractor].reason})`).join(', ')}`);
  }

  const pageLine = (r: PageResult) => {
    const d = r.docshelf.score;
    const o = r.readability.score;
    return (
      `  ${r.id.padEnd(48)} ${String(r.truthWords).padStart(6)} w | Docshelf P ${pct(d.precision)} R ${pct(d.recall)}` +
      `${r.docshelf.refused ? ' refused' : ''} | Readability P ${pct(o.precision)} R ${pct(o.recall)}${r.readability.refused ? ' refused' : ''}`
    );
  };
  console.log('\nDocshelf: the 10 pages with the lowest recall (missing: truth words it lacks, most first)');
  for (const r of [...results].sort((a, b) => a.docshelf.score.recall - b.docshelf.score.recall).slice(0, 10)) {
    console.log(pageLine(r));
    console.log(`      missing: ${words(r.docshelf.score.missing, 10)}`);
  }
  console.log('\nDocshelf: the 10 pages with the lowest precision (extra: words it has beyond the truth, most first)');
  const kept = results.filter((r) => !r.docshelf.refused);
  for (const r of kept.sort((a, b) => a.docshelf.score.precision - b.docshelf.score.precision).slice(0, 10)) {
    console.log(pageLine(r));
    console.log(`      extra: ${words(r.docshelf.score.extra, 10)}`);
  }

  fs.mkdirSync(path.dirname(OUTPUT), { recursive: true });
  const summary = Object.fromEntries(
    [...GROUPS, 'all'].map((group) => {
      const inGroup = results.filter((r) => group === 'all' || r.group === group);
      return [
        group,
        Object.fromEntries(
          EXTRACTORS.map((e) => [
            e,
            {
              pages: inGroup.length,
              precision: mean(inGroup.map((r) => r[e].score.precision)),
              recall: mean(inGroup.map((r) => r[e].score.recall)),
              f1: mean(inGroup.map((r) => r[e].score.f1)),
              refused: inGroup.filter((r) => r[e].refused).length,
              recallBelow10: inGroup.filter((r) => r[e].score.recall < 0.1).length,
            },
          ]),
        ),
      ];
    }),
  );
  fs.writeFileSync(
    OUTPUT,
    `${JSON.stringify({ command: COMMAND, ranAt: new Date().toISOString(), summary, pages: results }, null, 2)}\n`,
  );
  console.log(`\nper-page scores: ${path.relative(REPO, OUTPUT)}`);
}

if (require.main === module) benchExtractQuality();
