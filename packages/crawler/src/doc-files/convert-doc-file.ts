import type { DocFile, DocFormat } from './doc-file';
import { convertMarkdownFile } from './markdown-file';
import { convertRstFile } from './rst-file';

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
