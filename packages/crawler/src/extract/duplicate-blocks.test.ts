import { extractPage } from './extract-page';

const prose = (topic: string) =>
  Array.from(
    { length: 12 },
    (_, i) =>
      `<p>Paragraph ${i + 1} on ${topic}: what it costs, how long it takes and who does the work, in detail.</p>`,
  ).join('');

describe('a page builder’s copies of the content, one per screen size', () => {
  it('keeps the first copy of the text and drops the hidden others', () => {
    const variant = (hidden: string) =>
      `<div class="ssr-variant ${hidden}"><div data-framer-component-type="RichTextContainer"><h2>Costs</h2>` +
      `${prose('remodelling')}</div></div>`;
    const html =
      '<html><head><title>Remodel costs</title></head><body><main><h1>Remodel costs</h1>' +
      variant('hidden-desktop') +
      variant('hidden-tablet') +
      variant('hidden-phone') +
      '<p>Contact us for a quote.</p></main></body></html>';
    const { markdown } = extractPage(html, 'https://builder.example.com/costs');
    expect(markdown.match(/Paragraph 3 on remodelling/g)).toHaveLength(1);
    expect(markdown.match(/## Costs/g)).toHaveLength(1);
    expect(markdown).toContain('Contact us for a quote.');
  });

  it('keeps a long block that documentation repeats under two headings, which nothing names as a copy', () => {
    const option = `<dd><div class="openblock">${prose('the --stat option')}</div></dd>`;
    const html =
      '<html><head><title>git-diff</title></head><body><main><h1>git-diff</h1>' +
      `<h2>diff</h2><dl><dt>--stat</dt>${option}</dl><h2>diff --cached</h2><dl><dt>--stat</dt>${option}</dl>` +
      '</main></body></html>';
    const { markdown } = extractPage(html, 'https://docs.example.com/git-diff');
    expect(markdown.match(/Paragraph 12 on the --stat option/g)).toHaveLength(2);
  });

  it('keeps text a page repeats in short blocks, and long blocks that differ', () => {
    const note = '<div class="note"><p>Note: this function is deprecated; use the newer one.</p></div>';
    const html =
      '<html><head><title>API</title></head><body><main><h1>API</h1>' +
      `<h2>read()</h2>${note}${prose('reading')}<h2>write()</h2>${note}${prose('writing')}` +
      '</main></body></html>';
    const { markdown } = extractPage(html, 'https://docs.example.com/api');
    expect(markdown.match(/this function is deprecated/g)).toHaveLength(2);
    expect(markdown).toContain('Paragraph 12 on reading');
    expect(markdown).toContain('Paragraph 12 on writing');
  });
});
