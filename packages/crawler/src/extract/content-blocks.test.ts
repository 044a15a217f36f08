import { load } from 'cheerio';
import type { Element } from 'domhandler';
import { selectContentBlock } from './content-blocks';

const prose = (topic: string, n = 4): string =>
  Array.from(
    { length: n },
    (_, i) =>
      `<p>The ${topic} report, paragraph ${i + 1}, says that the council met on Tuesday, heard the residents, ` +
      `weighed the costs, and voted, after a long debate, to go ahead with the plan for the ${topic}.</p>`,
  ).join('\n');

const teasers = Array.from(
  { length: 6 },
  (_, i) => `<li><a href="/story/${i}">Another story number ${i} that readers also clicked on today</a></li>`,
).join('');

function contentOf(html: string): { text: string; root: Element } {
  const $ = load(html);
  const root = selectContentBlock($, $('body'));
  return { text: root.text().replace(/\s+/g, ' '), root: root[0]! };
}

describe('selectContentBlock', () => {
  const article = `<html><body>
    <div class="masthead"><a href="/">The Daily</a><span>Tuesday edition of the paper, all the news</span></div>
    <div class="page">
      <h1>Council approves the bridge</h1>
      <div class="byline">By A. Writer, 2 hours ago</div>
      <p class="standfirst">After months of argument, the town will get its new bridge over the river, and soon.</p>
      <figure><img src="bridge.jpg"><figcaption>The old bridge, seen from the east bank</figcaption></figure>
      <div class="share"><a href="/share/fb">Share</a> <a href="/share/tw">Tweet</a></div>
      <div class="story-body">${prose('bridge', 6)}</div>
      <div class="related"><h3>More stories</h3><ul>${teasers}</ul></div>
    </div>
    <div class="comments-area">${prose('comment', 8)}</div>
  </body></html>`;

  it('keeps the article body, its headline and its standfirst', () => {
    const { text } = contentOf(article);
    expect(text).toContain('Council approves the bridge');
    expect(text).toContain('After months of argument');
    expect(text).toContain('The bridge report, paragraph 6');
  });

  it.each([
    ['the masthead', 'Tuesday edition'],
    ['the byline', 'By A. Writer'],
    ['the image caption', 'The old bridge, seen'],
    ['the share bar', 'Tweet'],
    ['the related stories', 'Another story number'],
    ['the comments', 'The comment report'],
  ])('drops %s', (_, words) => {
    expect(contentOf(article).text).not.toContain(words);
  });

  it('widens the block to hold most of the prose when a caption wins on commas', () => {
    const { text } = contentOf(`<html><body><div class="story">
      <div class="image"><p>In this file photo, made available by NASA, astronaut A, left, and astronaut B, right, work, outside, on the station.</p></div>
      <div class="wrap"><div class="text">${prose('space', 3).replace(/,/g, '')}</div></div>
    </div><div class="teasers"><ul>${teasers}</ul></div></body></html>`);
    expect(text).toContain('The space report paragraph 3');
    expect(text).not.toContain('Another story number');
  });

  it('leaves a page holding code as it is', () => {
    const html = `<html><body><nav><a href="/a">A</a></nav><div class="doc">${prose('api', 5)}</div>
      <h2>Example</h2><pre><code>run(1)</code></pre><table><tr><td>option</td><td>value</td></tr></table></body></html>`;
    const $ = load(html);
    const body = $('body') as never;
    expect(selectContentBlock($, body)).toBe(body);
    expect($('pre').length).toBe(1);
  });

  it("narrows an article whose only <pre> is empty (a video embed's placeholder): that is no code", () => {
    const { text } = contentOf(`<html><body><div class="cities"><ul>${teasers}</ul></div>
      <div class="post">${prose('waste', 3)}<div class="embed"><pre></pre></div>${prose('bin', 3)}</div>
      </body></html>`);
    expect(text).toContain('The bin report, paragraph 3');
    expect(text).not.toContain('Another story number');
  });

  it('leaves a page without prose as it is', () => {
    const $ = load(`<html><body><ul>${teasers}</ul></body></html>`);
    const body = $('body') as never;
    expect(selectContentBlock($, body)).toBe(body);
  });

  it("does not take a footer's or a dialog's prose for the content of a page with none (a 404 page)", () => {
    const $ = load(`<html><body><div class="navbar"><a href="/">Docs</a></div>
      <div class="container"><h1>404</h1><p><strong>Page not found</strong></p></div>
      <footer><p>Copyright © 2014 A. Writer, maintained by the documentation team.</p></footer>
      <div class="modal" role="dialog"><p>From here you can search these documents. Enter your search terms below.</p></div>
      </body></html>`);
    const body = $('body') as never;
    expect(selectContentBlock($, body)).toBe(body);
    expect($('body').text()).toContain('Page not found');
  });

  it('keeps siblings of the block that are prose too', () => {
    const { text } = contentOf(`<html><body><div class="main">
      <div class="part">${prose('first', 5)}</div>
      <div class="part">${prose('second', 5)}</div>
    </div><footer>${prose('legal', 1)}</footer></body></html>`);
    expect(text).toContain('The first report, paragraph 5');
    expect(text).toContain('The second report, paragraph 5');
  });

  it("takes the headline that says the document's title, not a section's <h1> between it and the block", () => {
    const { text } = contentOf(`<html><head><title>Refinishing an old dresser | Home Blog</title></head><body>
      <div class="post"><h1>Refinishing an old dresser</h1><div class="date">May 2, 2025</div>
      <div class="entry">
        <p class="intro">An old dresser from a yard sale, a weekend, and a few tools were all it took to give it a new life.</p>
        <h1>Supplies</h1>
        <p>Most of the supplies came from the hardware store in town, and they cost less than the dresser did.</p>
        <h1>Directions</h1>
        <div class="steps">${prose('dresser', 6)}</div>
      </div></div>
      <div class="related"><ul>${teasers}</ul></div></body></html>`);
    expect(text).toContain('Refinishing an old dresser');
    expect(text).toContain('An old dresser from a yard sale');
    expect(text).toContain('Most of the supplies came from the hardware store');
    expect(text).toContain('The dresser report, paragraph 6');
    expect(text).not.toContain('Another story number');
  });
});
