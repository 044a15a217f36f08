import { libraryIdSchema } from './library-id';

describe('libraryIdSchema', () => {
  it.each(['react', 'vercel/next.js', 'a_b-c.d/e/f', 'x'.repeat(128), 'v1.2.3'])('accepts %s', (id) => {
    expect(libraryIdSchema.safeParse(id).success).toBe(true);
  });

  it.each(['', '/lead', 'trail/', 'a//b', '..', 'a/../b', './a', 'sp ace', 'ü', 'a?b', 'x'.repeat(129), 'a%2Fb'])(
    'rejects %j',
    (id) => {
      expect(libraryIdSchema.safeParse(id).success).toBe(false);
    },
  );
});
