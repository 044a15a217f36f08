/**
 * Every HTML page the extractor can be checked against, grouped by site: the fixtures under test/ and the crawler's
 * own, the generated site, the Debian documentation unpacked by scripts/fetch-debian-docs.sh, and the same pages as
 * Chromium rendered them (stored by `bench/extract-snapshot.ts render`). Each page gets a stable URL, so its
 * extraction gives the same links from run to run.
 */
import fs from 'node:fs';
import path from 'node:path';
import { generateDocsSite } from '../test/fixtures/generated-docs-site';

export interface HtmlPage {
  site: string;
  /** Path inside the site, the key a snapshot is stored under (with the site). */
  path: string;
  url: string;
  html: string;
}

const REPO = path.resolve(__dirname, '..');
export const DEBIAN_DOCS = path.join(REPO, '.cache/debian-docs/usr/share/doc');
/** Chromium's rendering of the file sites, one HTML file per page (see extract-snapshot.ts `render`). */
export const RENDERED_DIR = path.join(REPO, '.cache/rendered-pages');

/** The file sites: fixtures and Debian's packages (a package linking to another's files is listed once). */
export const FILE_SITES: Record<string, string> = {
  'test-fixtures': path.join(REPO, 'test/fixtures'),
  'crawler-fixtures': path.join(REPO, 'packages/crawler/src/extract/fixtures'),
  'nodejs-doc': path.join(DEBIAN_DOCS, 'nodejs/api'),
  'git-doc': path.join(DEBIAN_DOCS, 'git-doc'),
  'sphinx-doc': path.join(DEBIAN_DOCS, 'sphinx-doc/html'),
  'libjs-underscore': path.join(DEBIAN_DOCS, 'libjs-underscore'),
};

function htmlFilesUnder(root: string): string[] {
  if (!fs.existsSync(root)) return [];
  const found: string[] = [];
  const visit = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) visit(full);
      else if (/\.html?$/.test(entry.name) && fs.statSync(full).isFile()) found.push(full);
    }
  };
  visit(root);
  return found;
}

const urlOf = (site: string, pagePath: string) => `http://${site}.docs.test/${pagePath}`;

/** The pages of one file site (its files as served), or of the generated site. */
export function sitePages(site: string): HtmlPage[] {
  if (site === 'generated') {
    const generated = generateDocsSite();
    return generated.paths.map((pagePath) => ({
      site,
      path: pagePath.replace(/^\//, ''),
      url: `http://generated.docs.test${pagePath}`,
      html: generated.page(pagePath)!,
    }));
  }
  const rendered = site.endsWith('@rendered');
  const name = rendered ? site.slice(0, -'@rendered'.length) : site;
  const root = rendered ? path.join(RENDERED_DIR, name) : FILE_SITES[name];
  if (!root) throw new Error(`unknown site ${site}`);
  return htmlFilesUnder(root).map((file) => {
    const pagePath = path.relative(root, file).split(path.sep).join('/');
    return { site, path: pagePath, url: urlOf(name, pagePath), html: fs.readFileSync(file, 'utf8') };
  });
}

/** Every site with pages here: the file sites, the generated one, and the rendered copies stored so far. */
export function allSites(): string[] {
  const rendered = fs.existsSync(RENDERED_DIR)
    ? fs
        .readdirSync(RENDERED_DIR)
        .sort()
        .map((name) => `${name}@rendered`)
    : [];
  return [...Object.keys(FILE_SITES).filter((site) => fs.existsSync(FILE_SITES[site]!)), 'generated', ...rendered];
}
