import { eng } from 'stopword';
import { chunkHeadings } from './page-leads';

/** Words of English stop lists that carry meaning in developer questions ("get a header", "set up", "before a commit"). */
const KEPT = new Set([
  'get',
  'make',
  'take',
  'up',
  'out',
  'over',
  'under',
  'before',
  'after',
  'between',
  'same',
  'first',
  'never',
  'all',
]);
/** Conversational filler of questions, on top of the English stop list. */
const FILLER = [
  'does',
  'doing',
  'done',
  'want',
  'wants',
  'need',
  'needs',
  'way',
  'ways',
  'possible',
  'something',
  'anything',
  'thing',
  'things',
  'im',
  'ive',
  'know',
  'tell',
  'please',
  'vs',
  'versus',
  'whats',
  'hows',
  'isnt',
  'doesnt',
  'dont',
  'cant',
  'wont',
  'why',
  'when',
  'ok',
  'okay',
  'someone',
  'us',
  'its',
  'am',
  'will',
  'shall',
];
/** Abbreviations developers type for words docs spell out; the query keeps both forms. */
const ABBREVIATIONS: Record<string, string[]> = {
  app: ['application'],
  apps: ['applications'],
  repo: ['repository'],
  repos: ['repositories'],
  dir: ['directory'],
  dirs: ['directories'],
  config: ['configuration'],
  env: ['environment'],
  args: ['arguments'],
  arg: ['argument'],
  params: ['parameters'],
  param: ['parameter'],
  auth: ['authentication'],
  db: ['database'],
  lib: ['library'],
  libs: ['libraries'],
  pkg: ['package'],
  msg: ['message'],
  info: ['information'],
  docs: ['documentation'],
  deps: ['dependencies'],
  dep: ['dependency'],
  func: ['function'],
  fn: ['function'],
  var: ['variable'],
  vars: ['variables'],
  init: ['initialize'],
  perf: ['performance'],
  proc: ['process'],
  async: ['asynchronous'],
  sync: ['synchronous'],
  cert: ['certificate'],
  certs: ['certificates'],
  tmp: ['temporary'],
  temp: ['temporary'],
  ms: ['milliseconds'],
  sec: ['seconds'],
  max: ['maximum'],
  min: ['minimum'],
  impl: ['implementation'],
  folder: ['directory'],
  folders: ['directories'],
  prod: ['production'],
  dev: ['development'],
};
const STOP_WORDS = new Set([...eng.filter((word) => !KEPT.has(word)), ...FILLER]);

const WORD = /[\p{L}\p{N}]+/gu;
const MAX_TERMS = 32;

/**
 * The searchable terms of a question: lowercased words, stop words and conversational filler dropped, identifiers
 * also split into their parts (`readFileSync` → readfilesync, read, file, sync), first occurrence order, deduplicated.
 * Stemming is left to the engine, which applies the same stemmer to the index.
 */
export function queryTerms(text: string): string[] {
  const terms = new Set<string>();
  for (const raw of text.replace(/[’']/g, '').match(WORD) ?? []) {
    const word = raw.toLowerCase();
    if (!STOP_WORDS.has(word)) terms.add(word);
    for (const full of ABBREVIATIONS[word] ?? []) terms.add(full);
    for (const part of identifierParts(raw)) {
      if (STOP_WORDS.has(part)) continue;
      terms.add(part);
      for (const full of ABBREVIATIONS[part] ?? []) terms.add(full);
    }
  }
  if (terms.size === 0) {
    // A question made only of stop words ("how do I") still searches for what it says.
    for (const raw of text.match(WORD) ?? []) terms.add(raw.toLowerCase());
  }
  return [...terms].slice(0, MAX_TERMS);
}

/** `readFileSync` → read, file, sync; `HTTPServer` → http, server; plain words have no parts. */
export function identifierParts(word: string): string[] {
  const parts = word
    .replace(/([a-z\d])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(' ');
  return parts.length > 1 ? parts.filter((part) => part.length > 1) : [];
}

/**
 * Text for a keyword index: the text without link targets, followed by the parts of its camelCase identifiers, so
 * that "read file" finds `readFile` while `readfile` still finds it too.
 */
export function searchableText(text: string | null | undefined): string {
  if (!text) return '';
  text = withoutLinkTargets(text);
  const parts: string[] = [];
  const seen = new Set<string>();
  for (const word of text.match(/[\p{L}\p{N}]*[a-z\d][A-Z][\p{L}\p{N}]*/gu) ?? []) {
    if (seen.has(word)) continue;
    seen.add(word);
    parts.push(...identifierParts(word));
  }
  return parts.length === 0 ? text : `${text}\n${parts.join(' ')}`;
}

/**
 * The title side of a chunk for a keyword index: its title, its page's lead and every heading inside it, so a chunk
 * that holds several short sections is found by each of their headings with a title's weight.
 */
export function searchableTitle(
  title: string | null | undefined,
  pageLead: string | null | undefined,
  content: string,
): string {
  return searchableText([title, pageLead, ...chunkHeadings(content)].filter(Boolean).join('\n'));
}

/**
 * Markdown links and images reduced to their text, autolinks and bare URLs dropped: the addresses a page links to
 * say little about it, and in reference docs they would outnumber its words.
 */
export function withoutLinkTargets(text: string): string {
  return text
    .replace(/!?\[([^\]\n]*)\]\((?:[^()\s]|\([^()\s]*\))*(?:\s+"[^"\n]*")?\)/g, '$1')
    .replace(/<(?:https?|mailto):[^>\s]+>/g, ' ')
    .replace(/\bhttps?:\/\/[^\s)\]>"']*[^\s)\]>"'.,;:!?]/g, ' ');
}
