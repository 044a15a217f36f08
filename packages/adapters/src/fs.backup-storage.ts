import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { BackupBody, BackupStorage } from '@docshelf/core';

const OBJECT_NAME = /^[A-Za-z0-9._-]+$/;

/** BackupStorage on the local disk: one directory per library under rootDir. */
export class FsBackupStorage implements BackupStorage {
  constructor(private readonly rootDir: string) {}

  async put(libraryId: string, name: string, body: BackupBody): Promise<void> {
    const dir = this.resolveLibraryDir(libraryId);
    const target = path.join(dir, validateObjectName(name));
    await fs.mkdir(dir, { recursive: true });
    // '~' is outside OBJECT_NAME, so list() never shows a half-written temp file.
    const temp = `${target}~${randomUUID()}.tmp`;
    try {
      // A Buffer is itself iterable (byte by byte), so it goes in as the one chunk of the source.
      await pipeline(Buffer.isBuffer(body) ? [body] : body, createWriteStream(temp, { flags: 'wx' }));
      await fs.rename(temp, target);
    } catch (error) {
      await fs.rm(temp, { force: true });
      throw error;
    }
  }

  async list(libraryId: string): Promise<string[]> {
    const names = await readDirOrEmpty(this.resolveLibraryDir(libraryId));
    return names.filter(isObjectName).sort(compareCodeUnits);
  }

  async read(libraryId: string, name: string): Promise<Buffer> {
    const file = path.join(this.resolveLibraryDir(libraryId), validateObjectName(name));
    try {
      return await fs.readFile(file);
    } catch (error) {
      if (isNotFound(error))
        throw new Error(`backup object '${name}' of library '${libraryId}' not found`, { cause: error });
      throw error;
    }
  }

  async deleteAll(libraryId: string): Promise<number> {
    const dir = this.resolveLibraryDir(libraryId);
    const count = (await readDirOrEmpty(dir)).filter(isObjectName).length;
    await fs.rm(dir, { recursive: true, force: true });
    return count;
  }

  /** Encodes the id into one path segment, so `vercel` and `vercel/next.js` never share a directory. */
  private resolveLibraryDir(libraryId: string): string {
    const segment = encodeURIComponent(libraryId);
    if (segment === '' || segment === '.' || segment === '..') {
      throw new Error(`invalid library id for backups: '${libraryId}'`);
    }
    return path.join(this.rootDir, segment);
  }
}

function isObjectName(name: string): boolean {
  return OBJECT_NAME.test(name) && name !== '.' && !name.includes('..');
}

function validateObjectName(name: string): string {
  if (!isObjectName(name)) throw new Error(`invalid backup object name: '${name}'`);
  return name;
}

async function readDirOrEmpty(dir: string): Promise<string[]> {
  try {
    const entries = await fs.readdir(dir, { withFileTypes: true });
    return entries.filter((entry) => entry.isFile()).map((entry) => entry.name);
  } catch (error) {
    if (isNotFound(error)) return [];
    throw error;
  }
}

function isNotFound(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | null)?.code === 'ENOENT';
}

function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
