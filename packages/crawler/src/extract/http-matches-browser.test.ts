import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BrowserPool } from '../browser/browser-pool';
import { findChromium } from '../browser/find-chromium';
import { ChromiumPageLoader } from '../crawl/chromium.page-loader';
import { createAddressPolicy } from '../fetch/address-policy';
import { startFixtureServer, type FixtureServer } from '@docshelf/testing/targets/fixture-server';

// `auto` extracts what it fetched over HTTP; it must read each page as Chromium reads it.
const chromiumPath = findChromium(process.env.CHROMIUM_PATH);
if (!chromiumPath)
  console.warn(
    'Skipping HTTP-against-browser extraction tests: no Chromium found (set CHROMIUM_PATH or install chromium).',
  );
const describeWithChromium = chromiumPath ? describe : describe.skip;

// Debian's git-doc, when scripts/fetch-debian-docs.sh has run: asciidoc's script moves footnotes in the browser.
const GIT_DOC = join(__dirname, '../../../../.cache/debian-docs/usr/share/doc/git-doc');
const ASCIIDOC_PAGES = ['git-notes.html', 'SubmittingPatches.html'].filter((file) => existsSync(join(GIT_DOC, file)));
if (ASCIIDOC_PAGES.length === 0)
  console.warn(`Skipping the asciidoc footnote pages: ${GIT_DOC} is missing (run bash scripts/fetch-debian-docs.sh)`);

const PROSE = 'Le café du théâtre ouvre à sept heures; “déjà vu” — naïve façade, Größe, ½ €.';

/** A page and how it is sent: its bytes in one encoding, labelled (or not) by header, <meta> or byte order mark. */
const PAGES: Record<string, { contentType: string; body: Buffer }> = {
  '/latin1-meta': {
    contentType: 'text/html',
    body: Buffer.from(
      `<!doctype html><html><head><meta charset="iso-8859-1"><title>Café</title></head><body><main><h1>Café</h1><p>${PROSE.replace(/[“”—½€]/g, '')}</p></main></body></html>`,
      'latin1',
    ),
  },
  '/windows-1252-header': {
    contentType: 'text/html; charset=windows-1252',
    // “ ” — € are single bytes in windows-1252 (0x93 0x94 0x97 0x80), not in Latin-1.
    body: Buffer.from(
      Buffer.from(
        `<!doctype html><html><head><title>Café</title></head><body><main><h1>Café</h1><p>${PROSE.replace(/½ /g, '')}</p></main></body></html>`,
      )
        .toString()
        .replace(/[“”—€]/g, (c) => ({ '“': '\x93', '”': '\x94', '—': '\x97', '€': '\x80' })[c]!),
      'latin1',
    ),
  },
  '/utf8-bom': {
    contentType: 'text/html',
    body: Buffer.concat([
      Buffer.from([0xef, 0xbb, 0xbf]),
      Buffer.from(
        `<!doctype html><html><head><title>Café</title></head><body><main><h1>Café</h1><p>${PROSE}</p></main></body></html>`,
      ),
    ]),
  },
  '/header-beats-meta': {
    contentType: 'text/html; charset=utf-8',
    body: Buffer.from(
      `<!doctype html><html><head><meta charset="iso-8859-1"><title>Café</title></head><body><main><h1>Café</h1><p>${PROSE}</p></main></body></html>`,
    ),
  },
};

describeWithChromium('HTTP extraction reads a page as the browser does (real Chromium, pages on 127.0.0.1)', () => {
  let site: FixtureServer;
  let pool: BrowserPool;
  let loader: ChromiumPageLoader;

  beforeAll(async () => {
    site = await startFixtureServer('127.0.0.1', (request, response) => {
      const path = new URL(request.url ?? '/', 'http://fixture').pathname;
      if (ASCIIDOC_PAGES.includes(path.slice(1))) {
        return void response
          .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
          .end(readFileSync(join(GIT_DOC, path)));
      }
      const page = PAGES[path];
      if (!page) return void response.writeHead(404).end();
      response.writeHead(200, { 'content-type': page.contentType }).end(page.body);
    });
    const policy = createAddressPolicy({ allowlist: ['127.0.0.1'] });
    pool = new BrowserPool({ chromiumPath: chromiumPath!, maxPages: 2, policy });
    loader = new ChromiumPageLoader({ policy, browser: () => pool, timeoutMs: 30_000 });
  });
  afterAll(async () => {
    await pool?.close();
    await site?.close();
  });

  it.each(Object.keys(PAGES))('decodes %s to the same text over HTTP and in Chromium', async (path) => {
    const overHttp = await loader.load(`${site.origin}${path}`, { renderer: 'http' });
    const rendered = await loader.load(`${site.origin}${path}`, { renderer: 'browser' });
    expect(rendered.renderedWith).toBe('browser');
    expect(overHttp.markdown).toBe(rendered.markdown);
    expect(overHttp.title).toBe(rendered.title);
    expect(overHttp.markdown).toContain('Le café du théâtre');
    expect(overHttp.markdown).not.toContain('\ufffd');
  });

  it.each(ASCIIDOC_PAGES)("moves the footnotes of git-doc %s as asciidoc's script does in Chromium", async (file) => {
    const overHttp = await loader.load(`${site.origin}/${file}`, { renderer: 'http' });
    const rendered = await loader.load(`${site.origin}/${file}`, { renderer: 'browser' });
    expect(overHttp.markdown).toBe(rendered.markdown);
    expect(overHttp.markdown).toMatch(/\\\[\[1\]\([^)]*#_footnote_1 "View footnote"\)\\\]/);
    expect(overHttp.markdown).toMatch(/\[1\]\([^)]*#_footnoteref_1 "Return to text"\)\. \S/);
  });
});
