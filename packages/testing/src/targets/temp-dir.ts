import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** A fresh directory under the OS temp dir, removed by the returned cleanup. */
export function createTempDir(prefix = 'docshelf-adapters-'): { dir: string; removeDir(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  return { dir, removeDir: () => fs.rmSync(dir, { recursive: true, force: true }) };
}
