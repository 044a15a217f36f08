import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseLlmsTxt } from './parse-llms-txt';

const example = readFileSync(join(__dirname, 'fixtures', 'example-llms.txt'), 'utf8');

describe('parseLlmsTxt', () => {
  const doc = parseLlmsTxt(example);

  it('reads the H1 title and the blockquote summary', () => {
    expect(doc.title).toBe('FastHTML');
    expect(doc.summary).toBe(
      'FastHTML is a python library which brings together Starlette, Uvicorn, HTMX, and fastcore\'s `FT` "FastTags" into a library for creating server-rendered hypermedia applications.',
    );
  });

  it('keeps the free Markdown before the first H2 as details, code fence included', () => {
    expect(doc.details).toMatch(/^Remember:\n\n- Use `serve\(\)` for running uvicorn/);
    expect(doc.details).toContain('## not a section: this line is inside a code fence\n```');
  });

  it('finds the H2 sections in order, ignoring "##" inside code and keeping H3 in the body', () => {
    expect(doc.sections.map((s) => [s.heading, s.optional])).toEqual([
      ['Docs', false],
      ['Examples', false],
      ['Optional', true],
    ]);
    expect(doc.sections[1]!.body).toContain('### Notes on examples\n\nThe examples target FastHTML 0.6 and later.');
  });

  it('parses link lines with and without notes, including URLs holding parentheses', () => {
    expect(doc.sections[0]!.links).toEqual([
      {
        title: 'FastHTML quick start',
        url: 'https://fastht.ml/docs/tutorials/quickstart_for_web_devs.html.md',
        notes: 'A brief overview of many FastHTML features',
      },
      {
        title: 'HTMX reference',
        url: 'https://raw.githubusercontent.com/bigskysoftware/htmx/master/www/content/reference.md',
        notes:
          'Brief description of all HTMX attributes, CSS classes, headers, events, extensions, js lib methods, and config options',
      },
      {
        title: 'Starlette quick guide',
        url: 'https://gist.githubusercontent.com/jph00/e91192e9bdc1640f5421ce3c904f2efb/raw/61a2774912414029edaf1a55b506f0e283b93c46/starlette-quick.md',
      },
    ]);
    expect(doc.sections[1]!.links[1]).toEqual({
      title: 'Wikipedia style',
      url: 'https://en.wikipedia.org/wiki/Hypermedia_(disambiguation)',
      notes: 'A URL holding parentheses',
    });
  });

  it('keeps each section body as raw Markdown without its heading', () => {
    expect(doc.sections[2]!.body).toBe(
      '- [Starlette full documentation](https://gist.githubusercontent.com/jph00/809e4a4808d4510be0e3dc9565e9cbd3/raw/9b717589ca44cedc8aaf00b2b8cacef922964c0f/starlette-sml.md): A subset of the Starlette documentation useful for FastHTML development.',
    );
  });

  it('accepts a file with only a title, CRLF line ends and a multi-line summary', () => {
    expect(parseLlmsTxt('# Tiny\n')).toEqual({ title: 'Tiny', sections: [] });
    expect(parseLlmsTxt('\uFEFF# Tiny\r\n\r\n> One\r\n> two\r\n')).toEqual({
      title: 'Tiny',
      summary: 'One\ntwo',
      sections: [],
    });
  });

  it('recognises "optional" in any case', () => {
    expect(parseLlmsTxt('# T\n\n## OPTIONAL\n\n- [a](https://a.test/)').sections[0]!.optional).toBe(true);
  });

  it('throws a clear error when the H1 is missing or comes after a section', () => {
    expect(() => parseLlmsTxt('')).toThrow(/H1 title/);
    expect(() => parseLlmsTxt('> summary only\n\n## Docs\n\n- [a](https://a.test/)')).toThrow(/must start with an H1/);
    expect(() => parseLlmsTxt('## Docs\n\n# Late title')).toThrow(/H1/);
    expect(() => parseLlmsTxt('```\n# in code\n```')).toThrow(/H1/);
  });
});
