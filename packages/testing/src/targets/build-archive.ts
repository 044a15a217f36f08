import { Readable } from 'node:stream';
import { createGzip } from 'node:zlib';
import { pack as packTar, type Pack } from 'tar-stream';
import { ZipFile } from 'yazl';

/**
 * An archive's entries by path: a file's content, `{ zeros }` for a file of that many zero bytes (streamed, never held
 * whole), a link, or a special file (tar only).
 */
export type ArchiveTree = Record<
  string,
  | string
  | Buffer
  | { zeros: number }
  | { symlink: string }
  | { hardlink: string }
  | { special: 'fifo' | 'character-device' | 'block-device' }
  | { directory: true }
>;

const ZERO_CHUNK = Buffer.alloc(64 * 1024);

/** `size` zero bytes as a stream of one reused 64 KiB chunk. */
export function zeroStream(size: number): Readable {
  return Readable.from(
    (function* () {
      for (let left = size; left > 0; left -= ZERO_CHUNK.length)
        yield ZERO_CHUNK.subarray(0, Math.min(left, ZERO_CHUNK.length));
    })(),
  );
}

/** A zip of `tree` built with yazl (deflated; links with a Unix symlink mode). */
export async function buildZip(tree: ArchiveTree): Promise<Buffer> {
  const zip = new ZipFile();
  for (const [name, entry] of Object.entries(tree)) {
    if (typeof entry === 'string' || Buffer.isBuffer(entry)) zip.addBuffer(Buffer.from(entry), name);
    else if ('zeros' in entry) zip.addReadStream(zeroStream(entry.zeros), name);
    else if ('symlink' in entry) zip.addBuffer(Buffer.from(entry.symlink), name, { mode: 0o120777 });
    else if ('directory' in entry) zip.addEmptyDirectory(name);
    else throw new Error(`a zip has no ${Object.keys(entry)[0]} entries`);
  }
  zip.end();
  return collect(zip.outputStream);
}

/** A tar of `tree` built with tar-stream, gzipped unless `gzip` is false. */
export async function buildTar(tree: ArchiveTree, options: { gzip?: boolean } = {}): Promise<Buffer> {
  const pack = packTar();
  const built = collect(options.gzip === false ? pack : pack.pipe(createGzip()));
  for (const [name, entry] of Object.entries(tree)) {
    await new Promise<void>((resolve, reject) => {
      const added = (error?: Error | null) => (error ? reject(error) : resolve());
      if (typeof entry === 'string' || Buffer.isBuffer(entry)) {
        pack.entry({ name, type: 'file' }, Buffer.from(entry), added);
      } else if ('zeros' in entry) {
        zeroStream(entry.zeros).pipe(pack.entry({ name, type: 'file', size: entry.zeros }, added));
      } else {
        pack.entry(specialHeader(name, entry), added);
      }
    });
  }
  pack.finalize();
  return built;
}

/** Replaces every occurrence of `from` by `to` (of the same length): a name neither builder would write, e.g. `../x`. */
export function replaceBytes(archive: Buffer, from: string, to: string): Buffer {
  if (Buffer.byteLength(from) !== Buffer.byteLength(to)) throw new Error('replaceBytes keeps lengths');
  const out = Buffer.from(archive);
  const needle = Buffer.from(from);
  for (let at = out.indexOf(needle); at !== -1; at = out.indexOf(needle, at + needle.length)) out.write(to, at);
  return out;
}

function specialHeader(
  name: string,
  entry: Exclude<ArchiveTree[string], string | Buffer | { zeros: number }>,
): Parameters<Pack['entry']>[0] {
  if ('symlink' in entry) return { name, type: 'symlink', linkname: entry.symlink };
  if ('hardlink' in entry) return { name, type: 'link', linkname: entry.hardlink };
  if ('special' in entry) return { name, type: entry.special };
  return { name, type: 'directory' };
}

async function collect(stream: AsyncIterable<unknown>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks);
}
