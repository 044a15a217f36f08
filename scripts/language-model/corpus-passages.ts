import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';

/** How a file of an unpacked documentation package is read, or null for what holds no prose (scripts, images…). */
type Kind = 'html' | 'roff' | 'text' | 'wordnet';

/** Files past this size are generated indexes and API dumps more than prose. */
const MAX_FILE_BYTES = 4_000_000;
/** Translated manuals (the kernel's, the Debian handbook's, man pages') teach no English. */
const TRANSLATION =
  /\/(translations|help\/(.+\/)?(?!C\/|en(-US)?\/)([a-z]{2,3}([-_][A-Za-z]{2,4})?(@\w+)?)|man\/[a-z]{2}(_[A-Z]{2})?(\.[\w-]+)?|html\/(?!en-US\/)[a-z]{2}(-[A-Z]{2})?)\//;

/** Sphinx's page sources and highlighted modules repeat its pages; example galleries repeat their download links. */
const DUPLICATES = /\/(_sources|_modules|_downloads|auto_examples)\//;

/** The files of one unpacked package worth reading, sorted (the same corpus gives the same model). */
export function corpusFiles(packageRoot: string): { file: string; kind: Kind }[] {
  const found: { file: string; kind: Kind }[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(file);
      else if (entry.isFile()) {
        const kind = kindOf(file);
        if (kind && !TRANSLATION.test(file) && !DUPLICATES.test(file) && statSync(file).size <= MAX_FILE_BYTES)
          found.push({ file, kind });
      }
    }
  };
  walk(packageRoot);
  return found;
}

function kindOf(file: string): Kind | null {
  const name = path.basename(file).replace(/\.gz$/, '');
  if (/\/wordnet\/data\.(noun|verb|adj|adv)$/.test(file)) return 'wordnet';
  // Mallard pages and DocBook (GNOME's help) are XML whose text reads as HTML's does.
  if (/\.(html?|xhtml|page)$/.test(name) || (/\/help\//.test(file) && name.endsWith('.xml'))) return 'html';
  if (/\/man\/man\d[^/]*\//.test(file) || /\.\d[a-z]*$/.test(name)) return 'roff';
  if (/\/info\//.test(file) && /\.info(-\d+)?$/.test(name)) return 'text';
  if (/\.(txt|text|pod|rst|md)$/.test(name) || /\.dict(\.dz)?$/.test(path.basename(file))) return 'text';
  if (/\/(jargon|foldoc)/.test(file) && !/\.(index|png|gif|jpg)$/.test(name)) return 'text';
  return null;
}

/** A file's prose as passages (paragraphs, synonym sets, info nodes): no co-occurrence window crosses two. */
export function passagesOf(file: string, kind: Kind): string[] {
  const bytes = readFileSync(file);
  const text = (/\.(gz|dz)$/.test(file) ? gunzipSync(bytes) : bytes).toString('utf8');
  const plain =
    kind === 'html'
      ? textOfHtml(text)
      : kind === 'roff'
        ? textOfRoff(text)
        : kind === 'wordnet'
          ? textOfWordnet(text)
          : text;
  return plain
    .replaceAll(INFO_NODE_START, '\n\n')
    .split(/\n[ \t]*\n/)
    .filter((passage) => /[a-z]{2}/i.test(passage) && !LICENSE.test(passage));
}

/** The unit separator that starts each node of an info manual. */
const INFO_NODE_START = '\u001f';
/** The licence every GNU manual and man page repeats would make "permission" a word about copyright. */
const LICENSE = /permission is granted|free documentation license|general public license|without (any )?warranty/i;

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };
const BLOCK =
  /<\/?(p|div|h[1-6]|li|ul|ol|dl|dt|dd|tr|td|th|table|pre|br|hr|section|article|blockquote|title|para|simpara|listitem|entry|term)\b[^>]*>/gi;

/** Visible text, a blank line at each block element; scripts, styles and comments dropped. */
export function textOfHtml(html: string): string {
  return html
    .replace(/<(script|style|head)\b[\s\S]*?<\/\1\s*>/gi, ' ')
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(BLOCK, '\n\n')
    .replace(/<[^>]*>/g, '')
    .replace(/&(#x?[\da-f]+|\w+);/gi, (entity: string, name: string) => {
      if (name[0] !== '#') return ENTITIES[name.toLowerCase()] ?? ' ';
      const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return code > 0 && code < 0x110000 ? String.fromCodePoint(code) : ' ';
    });
}

/** A man page's words without roff: requests dropped (their arguments kept), escapes removed, sections as passages. */
export function textOfRoff(roff: string): string {
  const lines: string[] = [];
  for (const line of roff.split('\n')) {
    if (/^[.'][ \t]*\\"/.test(line) || /^\.\s*(de|ds|nr|ig|if|ie|el|so|ta|ft|ps|in|ti|ll|ne|sp)\b/.test(line)) continue;
    const request = /^[.'][ \t]*([A-Za-z]+)[ \t]*(.*)$/.exec(line);
    if (request) {
      if (/^(SH|SS|PP|P|LP|TP|IP|HP|Sh|Ss|Pp)$/.test(request[1]!)) lines.push('');
      lines.push(request[2]!.replace(/"/g, ''));
    } else lines.push(line);
  }
  return lines
    .join('\n')
    .replace(/\\f(\[[^\]]*\]|\(..|.)/g, '')
    .replace(/\\\*?\((..)|\\\*?\[[^\]]*\]/g, ' ')
    .replace(/\\[-e]/g, (escape) => (escape === '\\-' ? '-' : '\\'))
    .replace(/\\(s[+-]?\d|[&|^%c:~0 ])/g, '');
}

/**
 * WordNet's synonym sets, each a passage of its words and its gloss: "booklet, brochure, folder, leaflet, pamphlet —
 * a small book usually having a paper cover". Lines of its data files: offset, file number, part of speech, the count
 * of words (hexadecimal), each word and its lexical id, pointers…, `|` and the gloss.
 */
export function textOfWordnet(data: string): string {
  const synsets: string[] = [];
  for (const line of data.split('\n')) {
    if (line.startsWith('  ') || !line.includes('|')) continue;
    const fields = line.split(' ');
    const count = parseInt(fields[3]!, 16);
    const words = Array.from({ length: count }, (_, i) => fields[4 + 2 * i]!.replace(/_/g, ' ').replace(/\(.*\)$/, ''));
    synsets.push(`${words.join(', ')} — ${line.slice(line.indexOf('|') + 1).trim()}`);
  }
  return synsets.join('\n\n');
}
