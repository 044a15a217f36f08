import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { buildTar, buildZip, replaceBytes, type ArchiveTree } from '@docshelf/testing/targets/build-archive';
import { createTempDir } from '@docshelf/testing/targets/temp-dir';
import { readArchive, type ArchiveRead, type ReadArchiveOptions } from './read-archive';

const MB = 1024 * 1024;
const { dir: work, removeDir } = createTempDir('docshelf-archives-');
afterAll(removeDir);

/** The system's archivers, when the machine has them: real headers (Info-ZIP's extra fields, GNU tar's). */
const hasTool = (tool: string) => spawnSync(tool, ['--version'], { stdio: 'ignore' }).status === 0;
const withZip = hasTool('zip') ? it : it.skip;
const withTar = hasTool('tar') ? it : it.skip;

const SITE: ArchiveTree = {
  'site/index.html': '<!doctype html><title>Queues</title><h1>Queues</h1><p>Start here.</p>',
  'site/guide/install.htm': '<h1>Install</h1><p>npm install.</p>',
  'site/_static/style.css': 'body { margin: 0 }',
  'site/_static/logo.png': randomBytes(2048),
  'site/objects.inv': randomBytes(300),
  'site/_sources/index.rst.txt': 'Queues\n======\n',
  'site/api/README.md': '# API\n\nThe reference.\n',
};

/** What a read kept, as text: path, format and content. */
function kept(read: ArchiveRead): [string, string, string][] {
  return read.files.map((file) => [file.path, file.format, file.bytes.toString('utf8')]);
}

async function failureOf(reading: Promise<unknown>): Promise<Record<string, unknown>> {
  try {
    await reading;
  } catch (error) {
    return error as Record<string, unknown>;
  }
  throw new Error('the read did not fail');
}

const invalid = { code: 'ARCHIVE_INVALID', status: 400, retryable: false };
const tooLarge = { code: 'ARCHIVE_TOO_LARGE', status: 400, retryable: false };

describe('readArchive', () => {
  it('reads the pages and documentation files of a built site alike from a .zip, a .tar.gz and a .tar', async () => {
    const reads = await Promise.all([
      buildZip(SITE).then((zip) => readArchive(zip)),
      buildTar(SITE).then((tgz) => readArchive(tgz)),
      buildTar(SITE, { gzip: false }).then((tar) => readArchive(tar)),
    ]);
    expect(reads.map((read) => read.kind)).toEqual(['zip', 'tar.gz', 'tar']);
    const expected = [
      ['site/api/README.md', 'markdown', '# API\n\nThe reference.\n'],
      ['site/guide/install.htm', 'html', '<h1>Install</h1><p>npm install.</p>'],
      ['site/index.html', 'html', SITE['site/index.html']],
    ];
    for (const read of reads) {
      expect(kept(read)).toEqual(expected);
      expect(read.skipped).toEqual([]);
      expect(read.entries).toBe(Object.keys(SITE).length);
    }
  });

  it('reads a Markdown tree: Markdown, MDX and reStructuredText by their names, other files passed over', async () => {
    const tree: ArchiveTree = {
      'docs/': { directory: true },
      './README.md': '# Guide\n',
      'docs/components.mdx': '# Components\n\n<Note>Read me.</Note>\n',
      'docs//api/queues.rst': 'Queues\n======\n',
      'docs/notes.markdown': '# Notes\n',
      'src/index.ts': 'export {};\n',
      'docs/.html': 'not a page',
    };
    const expected = [
      ['README.md', 'markdown', '# Guide\n'],
      ['docs/api/queues.rst', 'rst', 'Queues\n======\n'],
      ['docs/components.mdx', 'mdx', '# Components\n\n<Note>Read me.</Note>\n'],
      ['docs/notes.markdown', 'markdown', '# Notes\n'],
    ];
    expect(kept(await readArchive(await buildTar(tree)))).toEqual(expected);
    expect(kept(await readArchive(await buildZip(tree)))).toEqual(expected);
  });

  withZip(
    'reads a site zipped by the zip command, from its path, and skips and reports its symbolic links',
    async () => {
      const site = writeTree('zip-site');
      const archive = path.join(work, 'site.zip');
      execFileSync('zip', ['-q', '-r', '-y', archive, '.'], { cwd: site });
      const read = await readArchive(archive);
      expect(read.kind).toBe('zip');
      expect(kept(read)).toEqual(SITE_ON_DISK);
      expect(read.skipped).toEqual(LINKS_SKIPPED);
      expect(read.skipped).toHaveLength(2);
    },
  );

  withTar('reads a site tarred by the tar command, from its path, and skips and reports its links', async () => {
    const site = writeTree('tar-site');
    const archive = path.join(work, 'site.tgz');
    execFileSync('tar', ['-czf', archive, '-C', site, '.']);
    const read = await readArchive(archive);
    expect(read.kind).toBe('tar.gz');
    expect(kept(read)).toEqual(SITE_ON_DISK);
    expect(read.skipped).toEqual(LINKS_SKIPPED);
    expect(read.skipped).toHaveLength(2);
  });

  it('refuses a whole archive with an entry path that leads outside it, as a zip or a tar', async () => {
    const ok = { 'docs/a.md': '# A\n' };
    // yazl writes no such name; each is written under a name of the same length and patched in.
    const zipped = [
      ['xx/evil.md', '../evil.md'],
      ['xetc/evil.md', '/etc/evil.md'],
      ['Cx/evil.md', 'C:/evil.md'],
      ['xx_evil.md', '..\\evil.md'],
      ['docs/xx/xx/evil.md', 'docs/../../evil.md'],
    ];
    for (const [written, patched] of zipped) {
      const zip = replaceBytes(await buildZip({ ...ok, [written!]: '# Evil\n' }), written!, patched!);
      const failure = await failureOf(readArchive(zip));
      expect(failure).toMatchObject(invalid);
      expect(failure.message).toContain('leads outside the archive');
    }
    for (const name of [
      '../evil.md',
      '/etc/evil.md',
      'C:\\evil.md',
      '..\\..\\evil.md',
      'docs/../../evil.md',
      'a/../b.md',
    ]) {
      const failure = await failureOf(readArchive(await buildTar({ ...ok, [name]: '# Evil\n' })));
      expect(failure).toMatchObject(invalid);
      expect(failure.message).toContain(`'${name}' leads outside the archive`);
    }
    // A link's target is never followed, so it may point anywhere: the link alone is skipped.
    const linked = await readArchive(await buildTar({ ...ok, 'docs/passwd.md': { symlink: '../../../etc/passwd' } }));
    expect(linked.files.map((file) => file.path)).toEqual(['docs/a.md']);
  });

  it('skips and reports links and special files, never reading through them', async () => {
    const tar = await buildTar({
      'docs/a.md': '# A\n',
      'docs/soft.md': { symlink: '/etc/passwd' },
      'docs/hard.md': { hardlink: 'docs/a.md' },
      'docs/pipe.md': { special: 'fifo' },
      'docs/tty.html': { special: 'character-device' },
      'docs/disk.rst': { special: 'block-device' },
      'docs/logo.svg': { symlink: 'logo-dark.svg' },
    });
    const read = await readArchive(tar);
    expect(kept(read)).toEqual([['docs/a.md', 'markdown', '# A\n']]);
    expect(read.skipped).toEqual([
      { path: 'docs/soft.md', reason: 'a symbolic link, never followed' },
      { path: 'docs/hard.md', reason: 'a hard link, never followed' },
      { path: 'docs/pipe.md', reason: expect.stringContaining('special file') },
      { path: 'docs/tty.html', reason: expect.stringContaining('special file') },
      { path: 'docs/disk.rst', reason: expect.stringContaining('special file') },
    ]);
    const zip = await readArchive(await buildZip({ 'docs/a.md': '# A\n', 'docs/soft.md': { symlink: '/etc/passwd' } }));
    expect(kept(zip)).toEqual([['docs/a.md', 'markdown', '# A\n']]);
    expect(zip.skipped).toEqual([{ path: 'docs/soft.md', reason: 'a symbolic link, never followed' }]);
  });

  describe('a zip bomb', () => {
    const limits = { maxBytes: 10 * MB, maxFileBytes: 1024 * MB };
    let zipBomb: Buffer;
    let tarBomb: Buffer;

    beforeAll(async () => {
      // 200 MB of zeros each, deflated to a few hundred kB as they stream through the builders.
      [zipBomb, tarBomb] = await Promise.all([
        buildZip({ 'docs/a.md': '# A\n', 'bomb.html': { zeros: 200 * MB } }),
        buildTar({ 'docs/a.md': '# A\n', 'bomb.html': { zeros: 200 * MB } }),
      ]);
      expect(zipBomb.length + tarBomb.length).toBeLessThan(2 * MB);
    });

    it('is refused as soon as the expanded bytes pass the limit, as a zip or a tar.gz', async () => {
      for (const bomb of [zipBomb, tarBomb]) {
        const started = Date.now();
        const failure = await failureOf(readArchive(bomb, { limits }));
        expect(failure).toMatchObject(tooLarge);
        expect(failure.message).toContain(`more than ${10 * MB} bytes`);
        expect(Date.now() - started).toBeLessThan(5_000);
      }
    });

    it('is refused even when its header says it is small', async () => {
      const lying = understateZipSizes(zipBomb, 1_000);
      expect(await failureOf(readArchive(lying, { limits }))).toMatchObject(invalid);
      expect(await failureOf(readArchive(lying, { limits: { ...limits, maxFileBytes: 100_000 } }))).toMatchObject(
        invalid,
      );
    });

    it('is refused as a tar.gz even when the bomb is not documentation, whose bytes are inflated all the same', async () => {
      const tgz = await buildTar({ 'docs/a.md': '# A\n', 'assets/zeros.bin': { zeros: 200 * MB } });
      expect(await failureOf(readArchive(tgz, { limits }))).toMatchObject(tooLarge);
    });

    it('of many small files is refused once they pass the limit together', async () => {
      const many: ArchiveTree = Object.fromEntries(
        Array.from({ length: 40 }, (_, i) => [`docs/page-${i}.md`, { zeros: MB }]),
      );
      const options: ReadArchiveOptions = { limits: { maxBytes: 10 * MB, maxFileBytes: 2 * MB } };
      expect(await failureOf(readArchive(await buildZip(many), options))).toMatchObject(tooLarge);
      expect(await failureOf(readArchive(await buildTar(many), options))).toMatchObject(tooLarge);
    });
  });

  it('answers ARCHIVE_TOO_LARGE for more entries than the limit, folders and links included', async () => {
    const tree: ArchiveTree = Object.fromEntries(
      Array.from({ length: 30 }, (_, i) => [`docs/${i}/`, { directory: true }]),
    );
    for (const archive of [await buildZip(tree), await buildTar(tree)]) {
      const failure = await failureOf(readArchive(archive, { limits: { maxEntries: 20 } }));
      expect(failure).toMatchObject(tooLarge);
      expect(failure.message).toContain('more than 20 entries');
      expect((await readArchive(archive, { limits: { maxEntries: 30 } })).entries).toBe(30);
    }
  });

  it('skips and reports a file over the size limit of one file, and reads the others', async () => {
    const tree: ArchiveTree = { 'docs/small.md': '# Small\n', 'docs/huge.html': `<p>${'word '.repeat(300_000)}</p>` };
    for (const archive of [await buildZip(tree), await buildTar(tree)]) {
      const read = await readArchive(archive, { limits: { maxFileBytes: MB } });
      expect(read.files.map((file) => file.path)).toEqual(['docs/small.md']);
      expect(read.skipped).toEqual([{ path: 'docs/huge.html', reason: expect.stringContaining(`larger than ${MB}`) }]);
    }
  });

  it('answers ARCHIVE_INVALID for what is not an archive, whatever its name', async () => {
    const text = path.join(work, 'docs.zip');
    fs.writeFileSync(text, '# Not a zip\n');
    for (const notArchive of [Buffer.from('<html>a page</html>'), Buffer.alloc(0), Buffer.alloc(4096, 0xab), text]) {
      const failure = await failureOf(readArchive(notArchive));
      expect(failure).toMatchObject(invalid);
      expect(failure.message).toContain('not a .zip, .tar.gz or .tar');
    }
    // gzip's magic, but no tar inside.
    expect(await failureOf(readArchive(gzipSync('# Just Markdown, gzipped\n'.repeat(100))))).toMatchObject(invalid);
  });

  it('answers ARCHIVE_INVALID for a truncated archive', async () => {
    const tree: ArchiveTree = { 'docs/a.md': '# A\n', 'docs/b.html': randomBytes(20_000).toString('base64') };
    const [zip, tgz, tar] = [await buildZip(tree), await buildTar(tree), await buildTar(tree, { gzip: false })];
    for (const truncated of [
      zip.subarray(0, zip.length / 2),
      tgz.subarray(0, tgz.length / 2),
      tar.subarray(0, 6_000),
    ]) {
      expect(await failureOf(readArchive(truncated))).toMatchObject(invalid);
    }
  });

  withZip('answers ARCHIVE_INVALID for an encrypted zip', async () => {
    const site = writeTree('secret-site');
    const archive = path.join(work, 'secret.zip');
    execFileSync('zip', ['-q', '-r', '-P', 'secret', archive, '.'], { cwd: site });
    const failure = await failureOf(readArchive(archive));
    expect(failure).toMatchObject(invalid);
    expect(failure.message).toContain('encrypted');
  });

  it('ends with the cancellation of its caller, not with an error of the archive', async () => {
    const controller = new AbortController();
    controller.abort(new Error('job cancelled'));
    const tree = { 'docs/a.md': '# A\n' };
    await expect(readArchive(await buildZip(tree), { signal: controller.signal })).rejects.toThrow('job cancelled');
    await expect(readArchive(await buildTar(tree), { signal: controller.signal })).rejects.toThrow('job cancelled');
  });
});

/** A built site on disk, with a link to a file of its own and one to a file outside. */
function writeTree(name: string): string {
  const root = path.join(work, name);
  const files: Record<string, string> = {
    'index.html': '<h1>Home</h1>',
    'guide/install.html': '<h1>Install</h1>',
    'guide/setup.md': '# Setup\n',
    '_static/style.css': 'body {}',
  };
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), text);
  }
  fs.symlinkSync('setup.md', path.join(root, 'guide/again.md'));
  fs.symlinkSync('/etc/passwd', path.join(root, 'passwd.html'));
  return root;
}

const SITE_ON_DISK = [
  ['guide/install.html', 'html', '<h1>Install</h1>'],
  ['guide/setup.md', 'markdown', '# Setup\n'],
  ['index.html', 'html', '<h1>Home</h1>'],
];
const LINKS_SKIPPED = expect.arrayContaining([
  { path: 'guide/again.md', reason: 'a symbolic link, never followed' },
  { path: 'passwd.html', reason: 'a symbolic link, never followed' },
]);

/** The zip with each central directory record's uncompressed size set to `size` (what yauzl trusts). */
function understateZipSizes(zip: Buffer, size: number): Buffer {
  const out = Buffer.from(zip);
  const record = Buffer.from([0x50, 0x4b, 0x01, 0x02]);
  for (let at = out.indexOf(record); at !== -1; at = out.indexOf(record, at + 4)) {
    if (out.readUInt32LE(at + 24) > size) out.writeUInt32LE(size, at + 24);
  }
  return out;
}
