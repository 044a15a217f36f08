import type { Library } from '../domain/types';
import { rankLibraries } from './rank-libraries';

const library = (id: string, name: string, description?: string): Library => ({
  id,
  name,
  ...(description ? { description } : {}),
  sourceType: 'llms_txt',
  chunkCount: 1,
  ownerId: 'o',
  createdAt: 't',
  updatedAt: 't',
});
const all = [
  library('vercel/next.js', 'Next.js', 'The React framework'),
  library('facebook/react', 'React', 'A library for web user interfaces'),
  library('debian/git', 'Git manual', 'Distributed version control'),
  library('acme/nextgen', 'NextGen tools'),
];
const ids = (q: string) => rankLibraries(all, q).map((l) => l.id);

describe('rankLibraries', () => {
  it('finds a library by its name as people type it, exact matches first', () => {
    expect(ids('next.js')[0]).toBe('vercel/next.js');
    expect(ids('nextjs')[0]).toBe('vercel/next.js');
    expect(ids('react')).toEqual(['facebook/react', 'vercel/next.js']);
    expect(ids('version control')).toEqual(['debian/git']);
    expect(ids('next')).toEqual(['vercel/next.js', 'acme/nextgen']);
  });

  it('leaves out what matches nothing', () => {
    expect(ids('kubernetes')).toEqual([]);
  });
});
