/**
 * The base URL an uploaded site is read under when the request names none: `.invalid` never resolves (RFC 2606), and
 * what is kept of the site says paths in the archive instead (`publicArchiveUrls`).
 */
export const ARCHIVE_PLACEHOLDER_BASE_URL = 'https://archive.invalid/';

/**
 * Text and URLs as the library keeps them: under the request's base URL they stand as extracted; under the
 * placeholder, its URLs become paths in the archive (`https://archive.invalid/guide/install.html#usage` →
 * `guide/install.html#usage`).
 */
export function publicArchiveUrls(baseUrl: string | undefined): (text: string) => string {
  if (baseUrl) return (text) => text;
  return (text) => text.replaceAll(ARCHIVE_PLACEHOLDER_BASE_URL, '');
}
