import { buildZip, type ArchiveTree } from '@docshelf/testing/targets/build-archive';
import { ArchiveSiteSource } from './archive-site.source';

const BASE = 'https://docs.example.com/widget/';
const page = (title: string, body: string) =>
  `<!doctype html><title>${title}</title><main><h1>${title}</h1>${body}</main>`;

async function open(tree: ArchiveTree) {
  return new ArchiveSiteSource().open(await buildZip(tree), { baseUrl: BASE });
}

describe('ArchiveSiteSource', () => {
  it('serves the folder of the shallowest index.html under the base URL, as a static server serves a build', async () => {
    const { site, files } = await open({
      'build/html/index.html': page(
        'Home',
        '<p><a href="guide/">Guide</a> <a href="my%20page.html?x=1#top">Mine</a></p>',
      ),
      'build/html/guide/index.html': page('Guide', '<p>Read <a href="../index.html">home</a>.</p>'),
      'build/html/my page.html': page('Mine', '<p>A page whose name has a space.</p>'),
      'build/html/_static/nested/index.html': page('Theme', '<p>A theme file.</p>'),
      'build/other.html': page('Elsewhere', '<p>Outside the root page’s folder.</p>'),
      'build/README.md': '# Sources\n',
    });
    expect(site!.seeds).toEqual([`${BASE}index.html`]);
    expect(site!.pages).toEqual([
      `${BASE}_static/nested/index.html`,
      `${BASE}guide/index.html`,
      `${BASE}index.html`,
      `${BASE}my%20page.html`,
    ]);
    const home = await site!.load(`${BASE}index.html`);
    expect(home).toMatchObject({ url: `${BASE}index.html`, status: 200, renderedWith: 'http', title: 'Home' });
    // A folder's link is its index.html, a query and a fragment name the same file, an encoded name its file.
    for (const link of home!.links) expect(site!.has(link)).toBe(true);
    expect(site!.has(`${BASE}guide/`)).toBe(true);
    expect(site!.has(`${BASE}my page.html`)).toBe(true);
    expect(site!.has(`${BASE}other.html`)).toBe(false);
    expect(site!.has('https://elsewhere.example.com/widget/index.html')).toBe(false);
    expect((await site!.load(`${BASE}my%20page.html`))?.markdown).toContain('A page whose name has a space.');
    expect(await site!.load(`${BASE}missing.html`)).toBeNull();
    expect(files.map((file) => file.path)).toEqual(['build/README.md']);
  });

  it('follows an immediate meta refresh inside the archive, as a crawl follows it over HTTP', async () => {
    const { site } = await open({
      'index.html': '<meta http-equiv="refresh" content="0; url=latest/index.html">',
      'latest/index.html': page('Latest', '<p>The current docs.</p>'),
    });
    const loaded = await site!.load(`${BASE}index.html`);
    expect(loaded).toMatchObject({ url: `${BASE}latest/index.html`, title: 'Latest' });
    expect(loaded!.markdown).toContain('The current docs.');
  });

  it('takes every page as a seed when there is no index.html, and no site at all without pages', async () => {
    const { site } = await open({ 'b.html': page('B', '<p>b</p>'), 'a.htm': page('A', '<p>a</p>') });
    expect(site!.seeds).toEqual([`${BASE}a.htm`, `${BASE}b.html`]);
    const markdown = await open({ 'docs/guide.md': '# Guide\n\nText.\n' });
    expect(markdown.site).toBeNull();
    expect(markdown.files).toEqual([expect.objectContaining({ path: 'docs/guide.md', title: 'Guide' })]);
  });
});
