import { createReadStream } from 'node:fs';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { extract as extractTar, type Header } from 'tar-stream';
import { AppError } from '@docshelf/core';
import type { ArchiveCollector, ArchiveEntryKind } from './archive-collector';

/** tar-stream's entry types as read here; anything else (GNU sparse or volume headers, …) is not a plain file. */
const TAR_KINDS: Partial<Record<Header['type'], ArchiveEntryKind>> = {
  file: 'file',
  'contiguous-file': 'file',
  directory: 'directory',
  symlink: 'symlink',
  link: 'hardlink',
};

/**
 * Reads a tar's (or a gzipped tar's) documentation files into `collector` as the archive streams through: every byte
 * leaving gzip is counted before tar-stream sees it, so a gzip bomb stops at the limit; a skipped entry is drained,
 * never kept.
 */
export async function readTar(
  source: Buffer | string,
  gzipped: boolean,
  collector: ArchiveCollector,
  signal?: AbortSignal,
): Promise<void> {
  const stop = new AbortController();
  const extract = extractTar();
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      try {
        collector.countExpanded(chunk.length);
        done(null, chunk);
      } catch (error) {
        done(error as Error);
      }
    },
  });
  const input = typeof source === 'string' ? createReadStream(source) : Readable.from([source]);
  const failures: unknown[] = [];
  const feeding = pipeline([input, ...(gzipped ? [createGunzip()] : []), counter], {
    signal: signal ? AbortSignal.any([stop.signal, signal]) : stop.signal,
  }).catch((error: unknown) => {
    failures.push(error);
    extract.destroy(error as Error);
  });
  counter.pipe(extract);
  try {
    for await (const entry of extract) {
      signal?.throwIfAborted();
      const { header } = entry;
      // An unknown type flag is read by tar-stream as a null type.
      const kind = TAR_KINDS[header.type] ?? 'special';
      const admitted = collector.admit(header.name, kind, header.size);
      // streamx types its chunks as unknown; tar-stream pushes Buffers.
      if (admitted) await collector.read(admitted, entry as AsyncIterable<Buffer>, true);
      else entry.resume();
    }
  } catch (error) {
    failures.unshift(error);
    stop.abort();
  }
  await feeding;
  // The limit's own error first: the streams it stopped fail after it with errors of their own.
  const failure = failures.find((error) => error instanceof AppError) ?? failures[0];
  if (failure !== undefined) throw failure as Error;
}
