import type { IncomingMessage } from 'node:http';
import { Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import { FetchFailedError } from './fetch-failed-error';

export interface ReadBody {
  body: Buffer;
  /** True when a content-encoding was undone, so content-length and content-encoding no longer describe `body`. */
  decoded: boolean;
}

/** "deflate" is meant to be zlib-wrapped but some servers send raw deflate; the first byte tells them apart. */
class DeflateDecoder extends Transform {
  private inner: zlib.Inflate | zlib.InflateRaw | undefined;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    if (!this.inner) {
      const zlibWrapped = chunk.length > 0 && (chunk[0]! & 0x0f) === 0x08;
      const flush = { finishFlush: zlib.constants.Z_SYNC_FLUSH };
      this.inner = zlibWrapped ? zlib.createInflate(flush) : zlib.createInflateRaw(flush);
      this.inner.on('data', (data: Buffer) => this.push(data));
      this.inner.on('error', (error) => this.destroy(error));
    }
    this.inner.write(chunk, () => callback());
  }

  override _flush(callback: TransformCallback): void {
    if (!this.inner) return callback();
    this.inner.once('end', () => callback());
    this.inner.end();
  }
}

// Sync flush tolerates a truncated final block, as browsers do.
function createDecoder(encoding: string): Transform | null {
  switch (encoding) {
    case 'gzip':
    case 'x-gzip':
      return zlib.createGunzip({ finishFlush: zlib.constants.Z_SYNC_FLUSH });
    case 'br':
      return zlib.createBrotliDecompress({ finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH });
    case 'deflate':
      return new DeflateDecoder();
    default:
      return null;
  }
}

/** Decoders in the order to apply them: the last listed content-encoding was applied last. */
function createDecoders(contentEncoding: string | undefined): Transform[] | null {
  const codings = (contentEncoding ?? '')
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c && c !== 'identity');
  const decoders = codings.reverse().map(createDecoder);
  // An encoding we cannot undo: hand the bytes over as they came.
  if (decoders.some((d) => d === null)) return null;
  return decoders as Transform[];
}

/** Reads the (decoded) body, failing once it passes maxBytes, so neither a big page nor a zip bomb fills memory. */
export async function readBody(response: IncomingMessage, url: string, maxBytes: number): Promise<ReadBody> {
  const tooLarge = new FetchFailedError(url, 'too-large', `response exceeds ${maxBytes} bytes`);
  const decoders = createDecoders(response.headers['content-encoding']) ?? [];
  const declared = Number(response.headers['content-length']);
  if (decoders.length === 0 && Number.isFinite(declared) && declared > maxBytes) {
    response.destroy();
    throw tooLarge;
  }
  const chunks: Buffer[] = [];
  let total = 0;
  let exceeded = false;
  const collect = async (source: AsyncIterable<Buffer>) => {
    for await (const chunk of source) {
      total += chunk.length;
      exceeded = total > maxBytes;
      if (exceeded) throw tooLarge;
      chunks.push(chunk);
    }
  };
  const stages = [response, ...decoders, collect] as unknown as Parameters<typeof pipeline>;
  // Tearing the pipeline down can surface as an AbortError from an earlier stage; the limit is the real cause.
  await pipeline(...stages).catch((error: unknown) => {
    throw exceeded ? tooLarge : error;
  });
  return { body: Buffer.concat(chunks, total), decoded: decoders.length > 0 };
}
