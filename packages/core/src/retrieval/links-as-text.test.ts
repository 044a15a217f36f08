import { linksAsText } from './links-as-text';

describe('linksAsText', () => {
  it('writes links as their text and images as their alt text, titles and nested parentheses included', () => {
    expect(
      linksAsText(
        'See [the fs module](https://nodejs.org/api/fs.html#fs_file_system "File system") and ' +
          '[`fs.stat()`](fs.html#fsstatpath-options-callback), ![a diagram of the flow](img/flow.png) ' +
          '![](logo.svg)or [Wikipedia](https://en.wikipedia.org/wiki/Bash_(Unix_shell)).',
      ),
    ).toBe('See the fs module and `fs.stat()`, a diagram of the flow or Wikipedia.');
  });

  it('leaves code alone: fenced blocks and inline spans that look like links', () => {
    const code = '```js\nconst first = handlers[0](event);\nconst [a](b) = c;\n```';
    expect(linksAsText(`${code}\nCall \`fns[0](x)\` or read [the guide](guide.html).`)).toBe(
      `${code}\nCall \`fns[0](x)\` or read the guide.`,
    );
  });

  it('keeps brackets that are not links', () => {
    const text = 'Arrays like [1, 2, 3] and options [--force] (see below) stay.';
    expect(linksAsText(text)).toBe(text);
  });
});
