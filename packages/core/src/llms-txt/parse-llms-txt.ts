/** A link line of an llms.txt section: "- [title](url): notes". */
export interface LlmsTxtLink {
  title: string;
  url: string;
  notes?: string;
}

export interface LlmsTxtSection {
  heading: string;
  /** The "Optional" section lists material a reader may skip when context is short. */
  optional: boolean;
  links: LlmsTxtLink[];
  /** The section's Markdown below its heading. */
  body: string;
}

/** An llms.txt file (https://llmstxt.org): an H1, an optional blockquote summary, free details, then H2 link sections. */
export interface LlmsTxt {
  title: string;
  summary?: string;
  details?: string;
  sections: LlmsTxtSection[];
}

const H1 = /^#\s+(.+?)\s*#*\s*$/;
const H2 = /^##\s+(.+?)\s*#*\s*$/;
const FENCE = /^\s*(`{3,}|~{3,})/;
// The URL may hold one level of balanced parentheses, as Wikipedia links do.
const LINK_LINE = /^\s*[-*+]\s+\[([^\]]+)\]\(\s*((?:[^()\s]|\([^()\s]*\))+)(?:\s+"[^"]*")?\s*\)\s*(?::\s*(.*?))?\s*$/;

/** Parses llms.txt; throws when the required H1 title is missing. */
export function parseLlmsTxt(text: string): LlmsTxt {
  const lines = text
    .replace(/^\uFEFF/, '')
    .replace(/\r\n?/g, '\n')
    .split('\n');
  const headings = locateHeadings(lines);
  const titleIndex = headings.find((heading) => heading.level === 1)?.index;
  const firstSection = headings.find((heading) => heading.level === 2)?.index ?? lines.length;
  if (titleIndex === undefined || titleIndex > firstSection) {
    throw new Error('Invalid llms.txt: it must start with an H1 title ("# Project name") before any "##" section');
  }
  const title = H1.exec(lines[titleIndex]!)![1]!.trim();
  const { summary, details } = parseHeader(lines.slice(titleIndex + 1, firstSection));
  const sectionStarts = headings.filter((heading) => heading.level === 2).map((heading) => heading.index);
  const sections = sectionStarts.map((start, i) =>
    parseSection(lines.slice(start, sectionStarts[i + 1] ?? lines.length)),
  );
  return { title, ...(summary ? { summary } : {}), ...(details ? { details } : {}), sections };
}

/** H1 and H2 lines outside fenced code, in order. */
function locateHeadings(lines: string[]): { index: number; level: 1 | 2 }[] {
  const headings: { index: number; level: 1 | 2 }[] = [];
  let fence: string | null = null;
  lines.forEach((line, index) => {
    const marker = FENCE.exec(line)?.[1];
    if (fence !== null) {
      if (marker && marker.startsWith(fence) && line.trim() === marker) fence = null;
      return;
    }
    if (marker) fence = marker;
    else if (H1.test(line)) headings.push({ index, level: 1 });
    else if (H2.test(line)) headings.push({ index, level: 2 });
  });
  return headings;
}

/** The blockquote right after the title is the summary; everything else before the first H2 is details. */
function parseHeader(lines: string[]): { summary?: string; details?: string } {
  let index = 0;
  while (index < lines.length && lines[index]!.trim() === '') index += 1;
  const quote: string[] = [];
  while (index < lines.length && /^\s*>/.test(lines[index]!)) {
    quote.push(lines[index]!.replace(/^\s*>\s?/, ''));
    index += 1;
  }
  const summary = quote.join('\n').trim();
  const details = lines.slice(index).join('\n').trim();
  return { ...(summary ? { summary } : {}), ...(details ? { details } : {}) };
}

function parseSection(lines: string[]): LlmsTxtSection {
  const heading = H2.exec(lines[0]!)![1]!.trim();
  const bodyLines = lines.slice(1);
  const links: LlmsTxtLink[] = [];
  for (const line of bodyLines) {
    const match = LINK_LINE.exec(line);
    if (!match) continue;
    const notes = match[3]?.trim();
    links.push({ title: match[1]!.trim(), url: match[2]!, ...(notes ? { notes } : {}) });
  }
  return { heading, optional: heading.toLowerCase() === 'optional', links, body: bodyLines.join('\n').trim() };
}
