import porterStemmer from '@stdlib/nlp-porter-stemmer';
import { identifierParts, withoutLinkTargets } from '@docshelf/core';
import { eng } from 'stopword';

const STOP_WORDS = new Set(eng);
const WORD = /[\p{L}\p{N}]+/gu;
const stems = new Map<string, string>();
/** Stemming dominates term extraction and docs repeat their words: remember them, within reason. */
const MAX_REMEMBERED_STEMS = 200_000;

function stem(word: string): string {
  let stemmed = stems.get(word);
  if (stemmed === undefined) {
    stemmed = porterStemmer(word);
    if (stems.size < MAX_REMEMBERED_STEMS) stems.set(word, stemmed);
  }
  return stemmed;
}

/**
 * The terms a text is made of for latent semantic indexing: words of two or more characters, lowercased, without
 * link targets, English stop words or bare numbers, camelCase identifiers also by their parts, Porter-stemmed.
 */
export function lsiTerms(text: string): string[] {
  const terms: string[] = [];
  for (const raw of withoutLinkTargets(text).match(WORD) ?? []) {
    addTerm(terms, raw.toLowerCase());
    if (CAMEL_CASE.test(raw)) for (const part of identifierParts(raw)) addTerm(terms, part);
  }
  return terms;
}

const CAMEL_CASE = /[a-z\d][A-Z]/;

function addTerm(terms: string[], word: string): void {
  if (word.length < 2 || STOP_WORDS.has(word) || /^\d+$/.test(word)) return;
  const stemmed = stem(word);
  // "its" stems to "it": a stop word by another road.
  if (!STOP_WORDS.has(stemmed)) terms.push(stemmed);
}
