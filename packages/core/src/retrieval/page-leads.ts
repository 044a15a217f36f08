import type { ChunkInput } from '../domain/types';

const LEAD_WORDS = 30;
/** Paragraphs that are not the page's prose: headings, code, quotes and notes, lists, tables, images. */
const NOT_PROSE = /^(#|```|~~~|>|[-*+] |\d+[.)] |\||!\[)/;

/**
 * For each of these chunks, the lead of its page: the first prose paragraph of the page's first chunk, cut to 30
 * words ("git-revert - Revert some existing commits", "The node:fs module enables interacting with the file
 * system…"). It says what the whole page is about, so it is indexed with the title of the page's other chunks; the
 * chunk it comes from already holds it (null then, and for chunks without a URL).
 */
export function pageLeads(
  chunks: Pick<ChunkInput, 'url' | 'content'>[],
): (chunk: Pick<ChunkInput, 'url' | 'content'>) => string | null {
  const leads = leadsByPage(chunks);
  return (chunk) => {
    const lead = chunk.url ? leads.get(chunk.url) : undefined;
    return lead && !chunk.content.includes(lead) ? lead : null;
  };
}

function leadsByPage(chunks: Pick<ChunkInput, 'url' | 'content'>[]): Map<string, string> {
  const leads = new Map<string, string>();
  for (const chunk of chunks) {
    if (!chunk.url || leads.has(chunk.url)) continue;
    const paragraph = chunk.content
      .split(/\n\s*\n/)
      .map((p) => p.trim())
      .find((p) => p !== '' && !NOT_PROSE.test(p));
    leads.set(chunk.url, paragraph ? paragraph.split(/\s+/).slice(0, LEAD_WORDS).join(' ') : '');
  }
  return leads;
}

/** The headings a chunk's text holds ("### path.extname(path)" → "path.extname(path)"), in order; not comments in code. */
export function chunkHeadings(content: string): string[] {
  const headings: string[] = [];
  let fence: string | null = null;
  for (const line of content.split('\n')) {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker && (fence === null || marker.startsWith(fence))) fence = fence === null ? marker : null;
    else if (fence === null && /^#{1,6}[ \t]+\S/.test(line))
      headings.push(
        line
          .replace(/^#+[ \t]+/, '')
          .replace(/[ \t]+#+[ \t]*$/, '')
          .trim(),
      );
  }
  return headings;
}
