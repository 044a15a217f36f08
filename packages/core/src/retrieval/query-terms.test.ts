import { identifierParts, queryTerms, searchableText, withoutLinkTargets } from './query-terms';

describe('queryTerms', () => {
  it('keeps the words that carry the question and drops filler', () => {
    expect(queryTerms('How do I delete a folder and everything inside it?')).toEqual([
      'delete',
      'folder',
      'directory',
      'everything',
      'inside',
    ]);
    expect(queryTerms("what's the difference between git reset and git revert")).toEqual([
      'difference',
      'between',
      'git',
      'reset',
      'revert',
    ]);
  });

  it('splits identifiers and spells out developer abbreviations, keeping the original form', () => {
    expect(queryTerms('fs.readFileSync in my app')).toEqual([
      'fs',
      'readfilesync',
      'read',
      'file',
      'sync',
      'synchronous',
      'app',
      'application',
    ]);
  });

  it('still searches for something when every word is a stop word', () => {
    expect(queryTerms('how do I')).toEqual(['how', 'do', 'i']);
    expect(queryTerms('   ')).toEqual([]);
  });
});

describe('searchable text', () => {
  it('reduces links to their text and appends the parts of camelCase identifiers', () => {
    expect(
      withoutLinkTargets(
        'See [the guide](https://x.test/a_(b)) and ![logo](l.png "Logo") or <https://x.test> https://y.test/z.',
      ),
    ).toBe('See the guide and logo or    .');
    expect(searchableText('Call readFileSync, then readFileSync again')).toBe(
      'Call readFileSync, then readFileSync again\nread file sync',
    );
    expect(searchableText(null)).toBe('');
    expect(identifierParts('HTTPServer')).toEqual(['http', 'server']);
    expect(identifierParts('plain')).toEqual([]);
  });
});
