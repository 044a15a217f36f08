import { chunkMarkdownInTurns } from '../../chunking/chunk-markdown';
import { sha256Hex, stampPageChunks } from '../../domain/chunk-provenance';
import type { ChunkToStore } from '../../domain/types';
import type { GitDocFile } from '../../sources/git-source';

/**
 * The URL of a file's chunks: `template` with `{path}` as the file's path without its extension (each segment
 * percent-encoded), or the file's path in the repository.
 */
export function gitPageUrl(path: string, template: string | undefined): string {
  if (!template) return path;
  const stem = path.replace(/\.[^./]+$/, '');
  return template.replaceAll('{path}', stem.split('/').map(encodeURIComponent).join('/'));
}

/** Each file chunked by section as a crawled page is, stamped with the time of the read and the file's hash. */
export async function chunkGitFiles(
  files: readonly GitDocFile[],
  options: { pageUrlTemplate?: string; fetchedAt: Date },
): Promise<{ chunks: ChunkToStore[]; filesIngested: number }> {
  const chunks: ChunkToStore[] = [];
  let filesIngested = 0;
  for (const file of files) {
    const pageUrl = gitPageUrl(file.path, options.pageUrlTemplate);
    const fileChunks = await chunkMarkdownInTurns(file.markdown, { pageUrl, pageTitle: file.title });
    if (fileChunks.length === 0) continue;
    filesIngested += 1;
    const provenance = { fetchedAt: options.fetchedAt.toISOString(), contentHash: sha256Hex(file.text) };
    chunks.push(...stampPageChunks(fileChunks, provenance));
  }
  return { chunks, filesIngested };
}
