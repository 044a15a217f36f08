import { decodeBuffer } from 'encoding-sniffer';

/**
 * Decodes a fetched document as a browser does: a byte order mark first, then the Content-Type charset, then (for HTML)
 * a `<meta charset>` in its first 1024 bytes. Where nothing says, UTF-8 (a browser's guess depends on its locale).
 */
export function decodeDocument(body: Buffer, contentTypeHeader: string | undefined, html: boolean): string {
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentTypeHeader ?? '')?.[1];
  if (html)
    return decodeBuffer(body, {
      defaultEncoding: 'utf-8',
      ...(charset ? { transportLayerEncodingLabel: charset } : {}),
    });
  // Plain text and Markdown carry no <meta>: only the BOM and the header count.
  return decodeBuffer(body, {
    defaultEncoding: 'utf-8',
    maxBytes: 0,
    ...(charset ? { transportLayerEncodingLabel: charset } : {}),
  });
}
