import { promises as fs } from 'node:fs';

/** The archive formats read: zip, tar compressed with gzip, and plain tar. */
export type ArchiveKind = 'zip' | 'tar.gz' | 'tar';

/** Bytes enough to tell the kinds apart: a tar header is 512 bytes, with its magic at 257. */
const HEAD_BYTES = 512;

/**
 * The kind of archive its first bytes say it is, whatever its name: a zip's local file header or end record (`PK…`,
 * an empty zip is its end record alone), gzip's magic (the tar inside is checked as it is read), or a tar header's
 * `ustar` magic; null for anything else.
 */
export function detectArchiveKind(head: Buffer): ArchiveKind | null {
  if (head.length >= 4 && head[0] === 0x50 && head[1] === 0x4b) {
    const marker = head.readUInt16LE(2);
    if (marker === 0x0403 || marker === 0x0605 || marker === 0x0807) return 'zip';
  }
  if (head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b) return 'tar.gz';
  if (head.length >= 262 && head.toString('latin1', 257, 262) === 'ustar') return 'tar';
  return null;
}

/** The first bytes of an archive held in memory or in a file (an uploaded one, written by the multipart parser). */
export async function readArchiveHead(source: Buffer | string): Promise<Buffer> {
  if (typeof source !== 'string') return source.subarray(0, HEAD_BYTES);
  const file = await fs.open(source, 'r');
  try {
    const head = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await file.read(head, 0, HEAD_BYTES, 0);
    return head.subarray(0, bytesRead);
  } finally {
    await file.close();
  }
}
