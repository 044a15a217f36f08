import { extractPage } from './extract-page';

const extract = (body: string): string =>
  extractPage(
    `<html><head><title>Pruning roses</title></head><body><main>${body}</main></body></html>`,
    'https://example.com/roses',
  ).markdown;

const PROSE = '<p>Cut each cane back to an outward-facing bud, a quarter of an inch above it, at an angle.</p>';

describe('images as their alt text', () => {
  it('keeps an alt text that describes its own image', () => {
    const markdown = extract(`${PROSE}<p><img src="a.png" alt="Where to cut: above the bud"></p>`);
    expect(markdown).toContain('Where to cut: above the bud');
  });

  it('drops an alt text that several images share: a label, not a description', () => {
    const markdown = extract(
      `${PROSE}<p><img src="1.jpg" alt="Garden blog | Pruning roses in winter"></p>${PROSE}` +
        `<p><img src="2.jpg" alt="Garden blog | Pruning roses in winter"></p>`,
    );
    expect(markdown).not.toContain('Garden blog');
  });

  it("drops an alt text that its figure's caption repeats, and keeps the caption", () => {
    const markdown = extract(
      `${PROSE}<figure><img src="c.jpg" alt="A pruned bush in March"><figcaption>A pruned bush in March. Credit: J. Doe</figcaption></figure>`,
    );
    expect(markdown.match(/A pruned bush in March/g)).toHaveLength(1);
    expect(markdown).toContain('Credit: J. Doe');
  });

  it('drops an alt text that the caption standing beside its image repeats, outside a <figure>', () => {
    // WordPress's `wp-caption`: the picture and a paragraph saying what its alt text says.
    const markdown = extract(
      `${PROSE}<div class="wp-caption"><img src="c.jpg" alt="A pruned bush in March (Photo: J. Doe)">` +
        '<p class="wp-caption-text">A pruned bush in March (Photo: J. Doe)</p></div>',
    );
    expect(markdown.match(/A pruned bush in March/g)).toHaveLength(1);
  });

  it("drops the alt text of a picture inside a link: a thumbnail is the link's", () => {
    const markdown = extract(
      `${PROSE}<p><a href="/climbing-roses"><img src="t.jpg" alt="Climbing roses on an old brick wall"></a></p>${PROSE}`,
    );
    expect(markdown).not.toContain('Climbing roses on an old brick wall');
    expect(markdown).toContain('outward-facing bud');
  });
});

describe('captions of images', () => {
  it('drops a caption said of several images, by aria-describedby or <figcaption>, and keeps one said of one', () => {
    // WordPress's captioned images: each caption a `wp-caption-text` the image names as its description.
    const photo = (i: number, caption: string) =>
      `<div class="wp-caption"><img src="${i}.jpg" alt="" aria-describedby="caption-${i}">` +
      `<p id="caption-${i}" class="wp-caption-text">${caption}</p></div>`;
    const markdown = extract(
      `${PROSE}${photo(1, 'Rose Week 2024 at the Town Garden')}${PROSE}${photo(2, 'Rose Week 2024 at the Town Garden')}` +
        `<figure><img src="3.jpg" alt=""><figcaption>Rose Week 2024 at the Town Garden</figcaption></figure>` +
        `${photo(4, 'The bud to cut above, on a two-year-old cane')}`,
    );
    expect(markdown).not.toContain('Rose Week');
    expect(markdown).toContain('The bud to cut above, on a two-year-old cane');
  });
});

describe('images as their alt text in documentation', () => {
  it('keeps every alt text and caption, repeated or not, where the content holds code', () => {
    const diagram = '<p><img src="d.png" alt="Class diagram of the Scheduler"></p>';
    const markdown = extract(
      `${PROSE}<pre><code>scheduler.run()</code></pre>${diagram}${diagram}` +
        '<figure><img src="e.png" alt="The job states"><figcaption>The job states</figcaption></figure>' +
        '<figure><img src="f.png" alt=""><figcaption>Figure: the queue</figcaption></figure>' +
        '<figure><img src="g.png" alt=""><figcaption>Figure: the queue</figcaption></figure>',
    );
    expect(markdown.match(/Class diagram of the Scheduler/g)).toHaveLength(2);
    expect(markdown.match(/The job states/g)).toHaveLength(2);
    expect(markdown.match(/Figure: the queue/g)).toHaveLength(2);
  });
});
