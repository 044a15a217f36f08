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
