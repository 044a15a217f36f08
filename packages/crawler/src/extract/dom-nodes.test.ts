import { load } from 'cheerio';
import { pushAll, removeNodes, replaceNodes } from './dom-nodes';

describe('replacing and removing nodes in one pass per parent', () => {
  it('removes many siblings and keeps the others linked in order', () => {
    const $ = load(
      `<main>${Array.from({ length: 1_000 }, (_, i) => `<a href="/${i}">${i % 3 === 0 ? '' : i}</a>`).join('')}</main>`,
    );
    removeNodes(
      $('a')
        .filter((_, a) => $(a).text() === '')
        .toArray(),
    );
    const links = $('main').children().toArray();
    expect(links).toHaveLength(666);
    expect($('main').text()).toBe(Array.from({ length: 1_000 }, (_, i) => (i % 3 === 0 ? '' : String(i))).join(''));
    links.forEach((link, i) => {
      expect(link.prev).toBe(links[i - 1] ?? null);
      expect(link.next).toBe(links[i + 1] ?? null);
      expect(link.parent).toBe($('main')[0]);
    });
  });

  it('replaces a link by its own children, and a node by new ones, as replaceWith would', () => {
    const $ = load(
      '<h2><a href="#x">Title <code>x</code></a><a class="headerlink" href="#x">¶</a></h2><p><img alt="A cat"></p>',
    );
    const [self, mark] = $('h2 a').toArray();
    replaceNodes(
      new Map([
        [self!, [...self!.children]],
        [mark!, []],
        [$('img')[0]!, [$('<span>A cat</span>')[0]!]],
      ]),
    );
    expect($('body').html()).toBe('<h2>Title <code>x</code></h2><p><span>A cat</span></p>');
    expect($('h2 code')[0]!.parent).toBe($('h2')[0]);
  });
});

describe('pushAll', () => {
  it('appends more items than a spread call can pass', () => {
    const many = Array.from({ length: 1_000_000 }, (_, i) => i);
    expect(() => [0].push(...many)).toThrow(RangeError);
    const target = [-1];
    pushAll(target, many);
    expect(target).toHaveLength(1_000_001);
    expect(target[1_000_000]).toBe(999_999);
  });
});
