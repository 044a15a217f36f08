import type { ChunkInput } from '../domain/types';
import { estimateTokens } from '../domain/tokens';
import { computeChunkId } from '../chunking/chunk-id';
import { chunkMarkdown, composeChunkTitle } from '../chunking/chunk-markdown';
import { countWords } from '../chunking/count-words';
import type { LlmsTxt, LlmsTxtSection } from './parse-llms-txt';

/** Above this a section is split like a page, so no chunk runs far past the usual chunk size. */
const SECTION_MAX_WORDS = 500;

/**
 * One chunk for the header (title, summary, details) and one per H2 section, a long section being split
 * with the Markdown chunker. Every chunk points at the llms.txt URL; ids follow the chunk order.
 */
export function chunkLlmsTxt(doc: LlmsTxt, sourceUrl: string): ChunkInput[] {
  const drafts: { title: string; content: string }[] = [{ title: doc.title, content: renderHeader(doc) }];
  for (const section of doc.sections) {
    if (section.body === '') continue;
    drafts.push(...draftSectionChunks(doc.title, section, sourceUrl));
  }
  return drafts.map((draft, position) => ({
    id: computeChunkId(sourceUrl, position, draft.content),
    title: draft.title,
    content: draft.content,
    url: sourceUrl,
    tokenCount: estimateTokens(draft.content),
  }));
}

function renderHeader(doc: LlmsTxt): string {
  const parts = [`# ${doc.title}`];
  if (doc.summary)
    parts.push(
      doc.summary
        .split('\n')
        .map((line) => `> ${line}`.trimEnd())
        .join('\n'),
    );
  if (doc.details) parts.push(doc.details);
  return parts.join('\n\n');
}

function draftSectionChunks(
  docTitle: string,
  section: LlmsTxtSection,
  sourceUrl: string,
): { title: string; content: string }[] {
  const title = `${composeChunkTitle(docTitle, section.heading)}${section.optional ? ' (optional)' : ''}`;
  const content = `## ${section.heading}\n\n${section.body}`;
  if (countWords(content) <= SECTION_MAX_WORDS) return [{ title, content }];
  const sectionTitle = composeChunkTitle(title, section.heading);
  return chunkMarkdown(content, { pageUrl: sourceUrl, pageTitle: title }).map((chunk) => ({
    // The section's own heading is already in the title; deeper headings are appended as on a page.
    title: chunk.title === sectionTitle ? title : (chunk.title ?? title),
    content: chunk.content,
  }));
}
