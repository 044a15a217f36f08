import picomatch from 'picomatch';
import { detectDocFormat, type DocFormat } from '../doc-files/doc-file';
import { runGit, type RunGitOptions } from './run-git';

/** A file of the fetched commit's tree that is read as documentation. */
export interface GitTreeFile {
  path: string;
  format: DocFormat;
  objectId: string;
  size: number;
}

export interface GitFileSelection {
  files: GitTreeFile[];
  /** Files the globs select but that are not read, each with why (over the size limit of one file). */
  skipped: { path: string; reason: string }[];
  /** Entries of the whole tree (files, links and submodules). */
  entries: number;
}

/** `git ls-tree -l` lines: mode, type, object id, size (or `-`), then a tab and the path. */
const TREE_ENTRY = /^(\d{6}) (\w+) ([0-9a-f]{40,64}) +(\d+|-)\t([\s\S]+)$/;
/** Plain files: symbolic links (120000) and submodules (160000) are neither followed nor fetched. */
const FILE_MODES = new Set(['100644', '100755']);

/**
 * The documentation files of the fetched commit that `globs` select, from its tree alone: nothing is checked out, so
 * no filter, attribute or link of the repository comes into play.
 */
export async function selectTreeFiles(
  globs: readonly string[],
  maxFileBytes: number,
  run: Omit<RunGitOptions, 'input' | 'watch'>,
): Promise<GitFileSelection> {
  const { stdout } = await runGit(['ls-tree', '-r', '-l', '-z', '--full-tree', 'FETCH_HEAD'], run);
  const selects = picomatch([...globs], { dot: true, nocase: true });
  const selection: GitFileSelection = { files: [], skipped: [], entries: 0 };
  for (const line of stdout.toString('utf8').split('\0')) {
    const entry = TREE_ENTRY.exec(line);
    if (!entry) continue;
    selection.entries += 1;
    const [, mode, type, objectId, size, path] = entry as unknown as [string, string, string, string, string, string];
    const format = detectDocFormat(path);
    if (type !== 'blob' || !FILE_MODES.has(mode) || !format || !selects(path)) continue;
    if (Number(size) > maxFileBytes) {
      selection.skipped.push({ path, reason: `larger than ${maxFileBytes} bytes (${size})` });
      continue;
    }
    selection.files.push({ path, format, objectId: objectId, size: Number(size) });
  }
  selection.files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return selection;
}

/** The texts of `files` (UTF-8, a byte-order mark dropped), read in one `git cat-file --batch`. */
export async function readTreeFiles(
  files: readonly GitTreeFile[],
  run: Omit<RunGitOptions, 'input' | 'watch'>,
): Promise<Map<string, string>> {
  const texts = new Map<string, string>();
  if (files.length === 0) return texts;
  const input = files.map((file) => `${file.objectId}\n`).join('');
  const { stdout } = await runGit(['cat-file', '--batch'], { ...run, input });
  let offset = 0;
  for (const file of files) {
    const headerEnd = stdout.indexOf(0x0a, offset);
    const header = stdout.toString('utf8', offset, headerEnd).split(' ');
    const size = Number(header[2]);
    if (header[1] !== 'blob' || !Number.isFinite(size)) throw new Error(`git cat-file answered '${header.join(' ')}'`);
    texts.set(file.path, stdout.toString('utf8', headerEnd + 1, headerEnd + 1 + size).replace(/^\uFEFF/, ''));
    offset = headerEnd + 1 + size + 1;
  }
  return texts;
}
