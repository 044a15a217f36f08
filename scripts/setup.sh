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

# Crawls render pages in the system Chromium (Playwright cannot download a browser here).
if ! command -v chromium >/dev/null && [ -z "${CHROMIUM_PATH:-}" ]; then
  echo "setup: installing chromium for crawling"
  as_root apt-get update -q && as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium
fi

# A fresh checkout installs exactly the lock file (`npm ci`); an existing one catches up with a changed lock.
if [ ! -d node_modules ]; then
  npm ci --no-audit --no-fund
elif [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm install --no-audit --no-fund
fi

# The dashboard's static files, which the API serves at /.
npm run build:web

if [ ! -f .env ]; then
  password=$(node -e "console.log(require('crypto').randomBytes(12).toString('base64url'))")
  sed -e "s/^ADMIN_PASSWORD=.*/ADMIN_PASSWORD=$password/" .env.example > .env
  echo "setup: wrote .env with dashboard login admin@example.com / $password"
fi
echo "setup: ready"
