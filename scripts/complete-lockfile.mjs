// Adds to package-lock.json the other platforms' builds of native packages (e.g. @swc/core-darwin-arm64) that a lock
// written on a machine whose registry mirror lacks them leaves out; without them `npm ci` refuses the lock everywhere.
// Each added entry names its os/cpu/libc (read from the package name, as these packages publish them), so npm skips it
// on every other platform and fetches it from the registry on its own. Run after `npm install` changes the lock;
// `--check` only reports.
import { readFileSync, writeFileSync } from 'node:fs';

const OS = ['darwin', 'linux', 'win32', 'freebsd', 'android', 'openharmony', 'sunos', 'aix', 'netbsd', 'openbsd'];
const CPU = ['arm64', 'x64', 'ia32', 'arm', 'ppc64', 's390x', 'riscv64', 'loong64', 'wasm32'];

/** `@swc/core-linux-arm-gnueabihf` → { os: ['linux'], cpu: ['arm'], libc: ['glibc'] }; null when not a platform build. */
export function platformOf(name) {
  const parts = name.split('/').pop().split('-');
  const os = parts.find((part) => OS.includes(part));
  const cpu = parts.find((part) => CPU.includes(part));
  if (!cpu) return null;
  const libc = parts.some((p) => p.startsWith('gnu')) ? ['glibc'] : parts.includes('musl') ? ['musl'] : undefined;
  return { ...(os && { os: [os] }), cpu: [cpu], ...(os === 'linux' && libc && { libc }) };
}

const path = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(path, 'utf8'));
const added = [];
for (const [location, entry] of Object.entries(lock.packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const base = location ? `${location}/node_modules/${name}` : `node_modules/${name}`;
    if (lock.packages[base] || lock.packages[`node_modules/${name}`]) continue;
    const platform = platformOf(name);
    if (!platform || !/^\d+\.\d+\.\d+/.test(version)) continue;
    lock.packages[`node_modules/${name}`] = {
      version,
      ...(entry.dev && { dev: true }),
      optional: true,
      ...platform,
    };
    added.push(`${name}@${version}`);
  }
}
if (process.argv.includes('--check')) {
  // Used by the tests: a lock that `npm ci` would refuse fails the build here, not in an image build.
  if (added.length) {
    console.error(`package-lock.json lacks ${added.join(', ')}: run \`node scripts/complete-lockfile.mjs\``);
    process.exit(1);
  }
  process.exit(0);
}
lock.packages = Object.fromEntries(
  Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))),
);
writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`);
console.log(added.length ? `complete-lockfile: added ${added.join(', ')}` : 'complete-lockfile: nothing missing');
