import type { Library } from '../domain/types';
import { queryTerms } from './query-terms';

const compact = (text: string) => text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
const words = (text: string) => new Set(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);

/**
 * Libraries matching a name or id as people type it ("next.js", "nextjs", "vercel next", "git docs"), best first:
 * exact id or name, then the id's last segment, then prefixes, then whole words found in id, name and description.
 * Libraries matching nothing are left out.
 */
export function rankLibraries(libraries: Library[], query: string): Library[] {
  const whole = compact(query);
  const terms = queryTerms(query);
  const scored = libraries.map((library) => ({ library, score: scoreLibrary(library, whole, terms) }));
  return scored
    .filter((entry) => entry.score > 0)
    .sort((a, b) => b.score - a.score || a.library.id.localeCompare(b.library.id))
    .map((entry) => entry.library);
}

function scoreLibrary(library: Library, whole: string, terms: string[]): number {
  const id = compact(library.id);
  const name = compact(library.name);
  const lastSegment = compact(library.id.split('/').at(-1)!);
  let score = 0;
  if (whole !== '') {
    if (whole === id || whole === name) score += 100;
    else if (whole === lastSegment) score += 90;
    else if (id.startsWith(whole) || name.startsWith(whole) || lastSegment.startsWith(whole)) score += 60;
    else if (id.includes(whole) || name.includes(whole)) score += 40;
  }
  const named = new Set([...words(library.id), ...words(library.name)]);
  const described = words(library.description ?? '');
  for (const term of terms) {
    if (named.has(term)) score += 10;
    else if ([...named].some((word) => word.startsWith(term) && term.length >= 3)) score += 5;
    else if (described.has(term)) score += 3;
  }
  return score;
}
