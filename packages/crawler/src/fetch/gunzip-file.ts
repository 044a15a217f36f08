import { promisify } from 'node:util';
import zlib from 'node:zlib';

const gunzip = promisify(zlib.gunzip);

/**
 * A gzip file's content (a sitemap.xml.gz, served as a file rather than with a content-encoding, which safeFetch
 * undoes itself), failing past maxBytes once unpacked; any other body as it is.
 */
export async function gunzipFile(body: Buffer, maxBytes: number): Promise<Buffer> {
  const gzipped = body.length >= 2 && body[0] === 0x1f && body[1] === 0x8b;
  return gzipped ? gunzip(body, { maxOutputLength: maxBytes }) : body;
}
