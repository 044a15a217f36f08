#!/usr/bin/env bash
# Unpacks Debian's nodejs-doc and git-doc HTML into .cache/debian-docs for the crawler tests.
# `apt-get download` + `dpkg -x` instead of `apt-get install`: installing nodejs-doc would remove a non-Debian Node.js.
set -euo pipefail
cd "$(dirname "$0")/.."
dest=.cache/debian-docs
[ -f "$dest/usr/share/doc/nodejs/api/fs.html" ] && [ -d "$dest/usr/share/doc/git-doc" ] && exit 0
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
( cd "$work" && apt-get download nodejs-doc git-doc >/dev/null 2>&1 ) ||
  { as_root apt-get update -q >/dev/null && ( cd "$work" && apt-get download nodejs-doc git-doc >/dev/null ); }
mkdir -p "$dest"
for deb in "$work"/*.deb; do dpkg -x "$deb" "$dest"; done
echo "debian docs unpacked into $dest"
