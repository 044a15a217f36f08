/** Page URLs listed in a sitemap.xml (`<url><loc>`); nested sitemap indexes are not followed. */
export function parseSitemapUrls(xml: string): string[] {
  if (/<sitemapindex[\s>]/i.test(xml)) return [];
  const urls: string[] = [];
  for (const match of xml.matchAll(/<loc>\s*([^<\s]+)\s*<\/loc>/gi)) {
    urls.push(decodeXmlEntities(match[1]!));
  }
  return urls;
}

function decodeXmlEntities(text: string): string {
  return text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');
}
