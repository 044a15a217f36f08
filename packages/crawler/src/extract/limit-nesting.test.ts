import { load } from 'cheerio';
import { extractPage } from './extract-page';
import { limitNesting, MAX_NESTING } from './limit-nesting';

const depthOf = (html: string) => {
  const $ = load(html);
  let deepest = 0;
  $('*').each((_, element) => {
    let depth = 0;
    for (let node = element.parent; node; node = node.parent) depth += 1;
    deepest = Math.max(deepest, depth);
  });
  return deepest;
};

describe('limitNesting', () => {
  it('leaves a page nesting no deeper than the limit as it is', () => {
    const html =
      '<html><body><main><div><p>Text <b>bold</b><br>more</p><!-- <div> --><script>if (a<b) x("<div>")</script></div></main></body></html>';
    expect(limitNesting(html)).toBe(html);
  });

  it('flattens elements nested deeper than the limit, keeping their text in order', () => {
    const n = 20_000;
    const html = `<html><body><main><h1>Deep</h1>${'<div>'.repeat(n)}inner text${'</div>'.repeat(n)}<p>after</p></main></body></html>`;
    const limited = limitNesting(html);
    expect(depthOf(limited)).toBeLessThanOrEqual(MAX_NESTING + 2);
    expect(load(limited)('main').text()).toBe('Deepinner textafter');
  });

  it('lets extraction take a page of 100,000 nested elements whole, without overflowing the stack', () => {
    const n = 100_000;
    const html = `<html><head><title>Deep</title></head><body><main><h1>Deep</h1><p>${'Real text. '.repeat(10)}</p>${'<div>'.repeat(n)}the innermost words${'</div>'.repeat(n)}</main></body></html>`;
    const page = extractPage(html, 'https://x.test/deep');
    expect(page.markdown).toContain('# Deep');
    expect(page.markdown).toContain('the innermost words');
  });
});
