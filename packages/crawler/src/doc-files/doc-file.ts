import { convertMarkdownFile } from './markdown-file';
import { convertRstFile } from './rst-file';

/** A documentation file as the chunker takes a page: its title and its content as Markdown (ATX headings, fenced code). */
export interface DocFile {
  /** '' when the file names none. */
  title: string;
  markdown: string;
}

/** File name endings read as documentation, and how. */
const FORMATS = {
  '.md': 'markdown',
  '.markdown': 'markdown',
  '.mdown': 'markdown',
  '.mdx': 'mdx',
  '.rst': 'rst',
  '.rest': 'rst',
} as const;

export type DocFormat = (typeof FORMATS)[keyof typeof FORMATS];

/** The format a file's name says it is in, or null when it is not documentation this reads. */
export function detectDocFormat(path: string): DocFormat | null {
  const name = path.slice(path.lastIndexOf('/') + 1).toLowerCase();
  const dot = name.lastIndexOf('.');
  if (dot <= 0) return null;
  return FORMATS[name.slice(dot) as keyof typeof FORMATS] ?? null;
}

/** A documentation file's text as a title and Markdown; a file with no heading or title is titled by its name. */
export function convertDocFile(path: string, text: string, format: DocFormat): DocFile {
  const converted = format === 'rst' ? convertRstFile(text) : convertMarkdownFile(text, { mdx: format === 'mdx' });
  return converted.title ? converted : { ...converted, title: titleFromPath(path) };
}

/** `docs/getting-started.md` → `getting-started`; a README is named by its folder (`packages/cli/README.md` → `cli`). */
function titleFromPath(path: string): string {
  const parts = path.split('/');
  const stem = parts[parts.length - 1]!.replace(/\.[^.]+$/, '');
  if (/^(readme|index)$/i.test(stem) && parts.length > 1) return parts[parts.length - 2]!;
  return stem;
}
