import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'cheerio';
import { collectPageLinks, isAssetUrl, normalizePageUrl } from './page-links';

const fixture = (name: string): string => readFileSync(join(__dirname, 'fixtures', name), 'utf8');

describe('normalizePageUrl', () => {
  it('resolves relative links against the base', () => {
    expect(normalizePageUrl('../api/fs.html', 'https://nodejs.org/docs/latest/guide/intro.html')).toBe(
      'https://nodejs.org/docs/latest/api/fs.html',
    );
  });

  it('drops the fragment, the default port and an empty query, and lower-cases the host', () => {
    expect(normalizePageUrl('HTTPS://Docs.Example.COM:443/a/b?#frag', 'https://x.test/')).toBe(
      'https://docs.example.com/a/b',
    );
    expect(normalizePageUrl('http://example.com:80/', 'https://x.test/')).toBe('http://example.com/');
  });

  it('keeps a non-default port and a real query', () => {
    expect(normalizePageUrl('/search?q=a#r', 'http://localhost:8080/docs/')).toBe('http://localhost:8080/search?q=a');
    expect(normalizePageUrl('/p?a=b%20c&d', 'http://x.test/')).toBe('http://x.test/p?a=b%20c&d');
  });

  it('drops search-word highlighting and campaign tags, which name the same page', () => {
    const base = 'https://doc.rust-lang.org/std/keyword.pub.html';
    expect(normalizePageUrl('../reference/visibility-and-privacy.html?highlight=pub#visibility', base)).toBe(
      'https://doc.rust-lang.org/reference/visibility-and-privacy.html',
    );
    expect(normalizePageUrl('/guide?utm_source=news&page=2&fbclid=x', base)).toBe(
      'https://doc.rust-lang.org/guide?page=2',
    );
  });

  it('returns null for non-http(s) schemes and unparsable input', () => {
    expect(normalizePageUrl('mailto:a@b.c', 'https://x.test/')).toBeNull();
    expect(normalizePageUrl('ftp://x.test/file', 'https://x.test/')).toBeNull();
    expect(normalizePageUrl('javascript:void(0)', 'https://x.test/')).toBeNull();
    expect(normalizePageUrl('http://[bad', 'https://x.test/')).toBeNull();
  });
});

describe('isAssetUrl', () => {
  it('recognises assets by extension, case-insensitively, and leaves pages alone', () => {
    expect(isAssetUrl('https://x.test/img/logo.SVG')).toBe(true);
    expect(isAssetUrl('https://x.test/release.tar.gz')).toBe(true);
    expect(isAssetUrl('https://x.test/docs/fs.html')).toBe(false);
    expect(isAssetUrl('https://x.test/docs/v1.2/')).toBe(false);
    expect(isAssetUrl('https://x.test/docs/intro')).toBe(false);
  });
});

describe('collectPageLinks', () => {
  const pageUrl = 'https://docs.example.com/guide/v2/chapter-2.html';

  it('keeps same-origin pages in document order, honouring <base href>, without assets, fragments, other schemes, other origins, duplicates or the page itself', () => {
    expect(collectPageLinks(fixture('links-page.html'), pageUrl)).toEqual([
      'https://docs.example.com/guide/v2/chapter-3.html',
      'https://docs.example.com/',
      'https://docs.example.com/guide/v2/intro.html',
      'https://docs.example.com/guide/v2/install.html',
      'https://docs.example.com/guide/v1/install.html',
      'https://docs.example.com/guide/v2/search.html?q=worker',
      'https://docs.example.com/reference/',
      'https://docs.example.com/faq',
    ]);
  });

  it('accepts an already loaded document', () => {
    const $ = load('<a href="b.html">b</a><a href="b.html#x">b again</a><a href="https://other.test/">other</a>');
    expect(collectPageLinks($, 'https://site.test/a.html')).toEqual(['https://site.test/b.html']);
  });

  it('resolves against the page URL when there is no <base>', () => {
    const html = '<a href="next/">next</a><a href="/root.html">root</a><a href="./">self dir</a>';
    expect(collectPageLinks(html, 'https://site.test/docs/page')).toEqual([
      'https://site.test/docs/next/',
      'https://site.test/root.html',
      'https://site.test/docs/',
    ]);
  });

  it('treats the page URL with a fragment as the page itself', () => {
    expect(collectPageLinks('<a href="page.html">me</a>', 'https://site.test/page.html#intro')).toEqual([]);
  });
});
