/**
 * How much repeated chrome a crawled library holds: the share of its chunks that hold a text line standing on at
 * least half of the crawl's pages, about once on each (a tagline, a dated footer, a copyright line, a version picker).
 * Headings, table rows and code are not counted: they title chunks or are page content. Lines are compared with
 * digits and month names normalised, so "last modified 2024-01-02" on every page is one line.
 */
export interface RepeatedChrome {
  chunks: number;
  withChrome: number;
  share: number;
  /** The repeated lines found, as normalised. */
  lines: string[];
}

const normalize = (line: string) =>
  line
    .toLowerCase()
    .replace(/\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b/g, 'm')
    .replace(/\d+/g, '0')
    .replace(/\s+/g, ' ')
    .trim();

function proseLines(content: string): string[] {
  const lines: string[] = [];
  let fenced = false;
  for (const line of content.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    else if (!fenced && !/^\s*(#|\|)/.test(line) && line.trim() !== '') lines.push(normalize(line));
  }
  return lines;
}

export function measureRepeatedChrome(chunks: { url?: string; content: string }[]): RepeatedChrome {
  const byPage = new Map<string, string[]>();
  for (const chunk of chunks)
    byPage.set(chunk.url ?? '', [...(byPage.get(chunk.url ?? '') ?? []), ...proseLines(chunk.content)]);
  const pages = new Map<string, number>();
  const occurrences = new Map<string, number>();
  for (const lines of byPage.values()) {
    for (const line of lines) occurrences.set(line, (occurrences.get(line) ?? 0) + 1);
    for (const line of new Set(lines)) pages.set(line, (pages.get(line) ?? 0) + 1);
  }
  const needed = Math.max(2, Math.ceil(byPage.size / 2));
  const repeated = new Set(
    [...pages].filter(([line, n]) => n >= needed && occurrences.get(line)! <= n * 1.5).map(([line]) => line),
  );
  const withChrome = chunks.filter((chunk) => proseLines(chunk.content).some((line) => repeated.has(line))).length;
  return {
    chunks: chunks.length,
    withChrome,
    share: chunks.length === 0 ? 0 : withChrome / chunks.length,
    lines: [...repeated],
  };
}
