import { extractPage } from './extract-page';

/**
 * A story followed by teasers of other stories, each the shape of a real page reduced to what decided its fate: the
 * teasers are prose too, so neither paragraph scores nor link density tell them from the story.
 */
const extract = (html: string) => extractPage(html, 'https://news.test/harbour');

const paragraph = (text: string) =>
  `<p>${text} ${'It goes on about the harbour, the ships, the town and the people who work there. '.repeat(3)}</p>`;

describe('extractPage on a story followed by teasers of other stories', () => {
  it('takes the <article> holding the headline among several, as a blog template marks its teasers', () => {
    // A WordPress theme's "You may like" box: an <article> of <article>s, each a picture and a long excerpt.
    const teaser = (i: number) =>
      `<article class="postbox post-${i}"><a href="/story-${i}"><img src="/${i}.jpg" alt=""></a>` +
      paragraph(`Teaser ${i} tells, at length, of another day, another town, another ship.`) +
      '</article>';
    const html =
      '<head><title>Harbour reopens after storm – Example News</title></head><body>' +
      '<div id="primary"><article class="articlebox post-1"><h1>Harbour reopens after storm</h1>' +
      paragraph('The harbour of Portville reopened on Wednesday, three days after the storm.') +
      '<p><a href="/harbours">Harbours</a>, <a href="/storms">Storms</a></p></article>' +
      `<article class="postbox post-1"><h3>You may like...</h3>${[2, 3, 4, 5].map(teaser).join('')}</article>` +
      '</div></body>';
    const { markdown } = extract(html);
    expect(markdown).toContain('# Harbour reopens after storm');
    expect(markdown).toContain('The harbour of Portville reopened on Wednesday');
    expect(markdown).not.toContain('Teaser 3 tells');
    expect(markdown).not.toContain('You may like');
  });

  it('keeps every article of a page whose headline none of them holds (a listing)', () => {
    const post = (i: number) => `<article><h2>Post ${i}</h2>${paragraph(`Post ${i} says what it says.`)}</article>`;
    const html =
      '<head><title>Harbour news – Example News</title></head><body><main><h1>Harbour news</h1>' +
      [1, 2, 3].map(post).join('') +
      '</main></body>';
    const { markdown } = extract(html);
    for (const i of [1, 2, 3]) expect(markdown).toContain(`Post ${i} says what it says.`);
  });
});
