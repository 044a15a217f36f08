// Prints the installed packages whose compiled addon (a `build/Release/*.node` that node-gyp wrote at install) does
// not load in the Node running this script, one name a line, and exits 1 if there are any: they were compiled for
// another Node. `bash scripts/setup.sh` runs it on Node 26 and rebuilds what it prints.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

// Symbols only a Node addon has: better-sqlite3's build also holds an SQLite extension, which is no addon.
const ADDON_SYMBOL = /node_module_register|node_register_module_v\d+|napi_register_module_v\d+|napi_module_register/;

/** The Node addons in `build/Release/` folders under a package's folder, its own node_modules left out. */
function* compiledAddons(dir) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name === 'node_modules') continue;
    const sub = path.join(dir, entry.name);
    if (sub.endsWith(path.join('build', 'Release'))) {
      yield* fs
        .readdirSync(sub)
        .filter((name) => name.endsWith('.node'))
        .map((name) => path.join(sub, name))
        .filter((file) => ADDON_SYMBOL.test(fs.readFileSync(file, 'latin1')));
    } else {
      yield* compiledAddons(sub);
    }
  }
}

const lock = JSON.parse(fs.readFileSync(path.join(root, 'package-lock.json'), 'utf8'));
const stale = new Set();
for (const [location, entry] of Object.entries(lock.packages)) {
  // Only packages with an install script compile anything; the others ship prebuilt, ABI-stable (N-API) binaries.
  if (!entry.hasInstallScript || !fs.existsSync(path.join(root, location))) continue;
  const name = location.slice(location.lastIndexOf('node_modules/') + 'node_modules/'.length);
  for (const addon of compiledAddons(path.join(root, location))) {
    try {
      process.dlopen({ exports: {} }, addon);
    } catch (error) {
      console.error(`${addon}: ${String(error.message).replace(/\s+/g, ' ')}`);
      stale.add(name);
    }
  }
}
for (const name of stale) console.log(name);
process.exit(stale.size > 0 ? 1 : 0);
