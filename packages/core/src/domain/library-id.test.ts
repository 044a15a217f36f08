import { libraryIdSchema, parseLibraryId, versionedLibraryId, versionOfLibraryId } from './library-id';

describe('libraryIdSchema', () => {
  it.each([
    'react',
    'vercel/next.js',
    'a_b-c.d/e/f',
    'x'.repeat(128),
    'v1.2.3',
    'python/stdlib@3.11',
    'demo/lib@1.0.0-rc.1+build.5',
    'react@v19_canary',
    `a@${'1'.repeat(64)}`,
  ])('accepts %s', (id) => {
    expect(libraryIdSchema.safeParse(id).success).toBe(true);
  });

  it.each([
    '',
    '/lead',
    'trail/',
    'a//b',
    '..',
    'a/../b',
    './a',
    'sp ace',
    'ü',
    'a?b',
    'x'.repeat(129),
    'a%2Fb',
    'a+b',
    'lib@',
    '@1.0',
    'lib@1@2',
    'org@1/lib',
    'lib@1.0/x',
    'lib@1 0',
    'lib@1%2B0',
    `a@${'1'.repeat(65)}`,
    `${'x'.repeat(120)}@1.2.3.4.5`,
    '/lib@1',
  ])('rejects %j', (id) => {
    expect(libraryIdSchema.safeParse(id).success).toBe(false);
  });

  it('says what is wrong with a version', () => {
    const parsed = libraryIdSchema.safeParse('demo/lib@1.0!');
    expect(parsed.error?.issues.map((issue) => issue.message)).toEqual([
      'the version after "@" may contain only letters, digits, ".", "_", "-" and "+"',
    ]);
  });
});

describe('parseLibraryId', () => {
  it('splits a versioned id at its "@"', () => {
    expect(parseLibraryId('python/stdlib@3.11')).toEqual({ baseId: 'python/stdlib', version: '3.11' });
    expect(versionOfLibraryId('python/stdlib@3.11')).toBe('3.11');
  });

  it('leaves an id without a version whole', () => {
    expect(parseLibraryId('vercel/next.js')).toEqual({ baseId: 'vercel/next.js' });
    expect(versionOfLibraryId('vercel/next.js')).toBeUndefined();
  });

  it('joins what it splits', () => {
    const { baseId, version } = parseLibraryId('demo/lib@1.10.0');
    expect(versionedLibraryId(baseId, version!)).toBe('demo/lib@1.10.0');
  });
});
