import { load, type Cheerio, type CheerioAPI } from 'cheerio';
import type { Element } from 'domhandler';
import { convertContentToMarkdown, convertHtmlToMarkdown } from './html-to-markdown';
import { buildMarkdownDom } from './markdown-dom';

/** The Markdown of the root converted in place, beside that of its HTML parsed again (what extraction did before). */
function bothWays($: CheerioAPI, root: Cheerio<Element>): { inPlace: string; reparsed: string } {
  const reparsed = convertHtmlToMarkdown($.html(root));
  return { inPlace: convertContentToMarkdown($, root), reparsed };
}

const PAGES: Array<[string, string, ($: CheerioAPI) => void]> = [
  [
    'inline whitespace and escapes',
    '<main><p>  Some <b>bold</b>  and <i> italic </i>text, 2. not a list, [brackets] *stars* _under_ </p></main>',
    () => {},
  ],
  [
    'texts made adjacent by cleaning',
    '<main><p>Line one <span>x</span>- not a bullet <img alt="i">+ 1. item</p><p>a<b>b</b>c</p></main>',
    ($) => {
      $('span').replaceWith('\n');
      $('img').replaceWith('');
      $('b').replaceWith($('b').contents());
    },
  ],
  ['a pre with leading newlines', '<main><pre>\n\nfirst line\n  indented</pre><listing>\nx</listing></main>', () => {}],
  ['a pre emptied to one newline', '<main><pre>x</pre></main>', ($) => $('pre').text('\n')],
  [
    'lists',
    '<main><ol start="3"><li>three<ul><li>nested</li></ul></li><li><p>four</p><p>para</p></li></ol>' +
      '<ul><li><input type="checkbox" checked> done</li><li><input type="CHECKBOX"> todo</li></ul></main>',
    () => {},
  ],
  [
    'tables, with and without a heading row',
    '<main><table><thead><tr><th>a</th><th align="right">b|c</th></tr></thead><tbody><tr><td>1</td><td>2\n3</td></tr></tbody></table>' +
      '<table><tbody><tr><td>x</td><td>y</td></tr><tr><td>z</td><td>w</td></tr></tbody></table></main>',
    () => {},
  ],
  [
    'code, comments and blank elements',
    '<main><p>Use <code>a`b</code> or <code> `x` </code>.</p><pre><code class="language-js">let a = 1; <!-- kept -->\n</code></pre>' +
      '<!-- gone --><div>  </div><p><a href="/x"> </a><img src="i.png"></p><p>a<br>b&nbsp;c</p><del>old</del></main>',
    () => {},
  ],
  [
    'a body root',
    '<body class="x">\n<h1>Title</h1>\n<p>text</p>\n<blockquote><p>quote</p></blockquote><hr></body>',
    () => {},
  ],
];

describe('convertContentToMarkdown', () => {
  it.each(PAGES)('gives what parsing the HTML again gives: %s', (_, html, clean) => {
    const $ = load(html);
    clean($);
    const root: Cheerio<Element> = $('main').length > 0 ? $('main') : $('body');
    expect(buildMarkdownDom(root[0]!)).not.toBeNull();
    const { inPlace, reparsed } = bothWays($, root);
    expect(inPlace).toBe(reparsed);
  });

  it.each<[string, string, ($: CheerioAPI) => void]>([
    [
      'a <div> left inside a <p>',
      '<main><p>a <span>b</span> c</p></main>',
      ($) => $('span').replaceWith('<div>d</div>'),
    ],
    [
      'an <li> left inside an <li>',
      '<main><ul><li>a<div><span>b</span></div></li></ul></main>',
      ($) => $('span').replaceWith('<li>c</li>'),
    ],
    [
      'a link inside a link',
      '<main><a href="/a">a <span>b</span></a></main>',
      ($) => $('span').replaceWith('<a>c</a>'),
    ],
    [
      'a cell outside a row',
      '<main><table><tbody><tr><td>a</td></tr></tbody></table></main>',
      ($) => $('tr').replaceWith('<td>b</td>'),
    ],
    [
      'text directly in a row',
      '<main><table><tbody><tr><td>a</td></tr></tbody></table></main>',
      ($) => $('td').replaceWith('b'),
    ],
    ['foreign content', '<main><p>x<math><mi>y</mi></math></p></main>', () => {}],
  ])('falls back to the HTML where a parser would rearrange it: %s', (_, html, clean) => {
    const $ = load(html);
    clean($);
    const root = $<Element, string>('main');
    expect(buildMarkdownDom(root[0]!)).toBeNull();
    const { inPlace, reparsed } = bothWays($, root);
    expect(inPlace).toBe(reparsed);
  });
});
