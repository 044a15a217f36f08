#!/usr/bin/env bash
# Unpacks Debian's nodejs-doc, git-doc and sphinx-doc HTML into .cache/debian-docs for the crawler tests and benchmarks.
# `apt-get download` + `dpkg -x` instead of `apt-get install`: installing nodejs-doc would remove a non-Debian Node.js.
# sphinx-doc's pages load their scripts through relative symlinks into /usr/share/javascript; the libjs-* packages
# unpacked beside them make those links resolve, so a browser runs the pages' real scripts.
set -euo pipefail
cd "$(dirname "$0")/.."
dest=.cache/debian-docs
packages=(nodejs-doc git-doc sphinx-doc libjs-sphinxdoc libjs-jquery libjs-underscore)
[ -f "$dest/usr/share/doc/nodejs/api/fs.html" ] && [ -d "$dest/usr/share/doc/git-doc" ] &&
  [ -f "$dest/usr/share/doc/sphinx-doc/html/index.html" ] && [ -f "$dest/usr/share/javascript/sphinxdoc/1.0/doctools.js" ] && exit 0
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
( cd "$work" && apt-get download "${packages[@]}" >/dev/null 2>&1 ) ||
  { as_root apt-get update -q >/dev/null && ( cd "$work" && apt-get download "${packages[@]}" >/dev/null ); }
mkdir -p "$dest"
for deb in "$work"/*.deb; do dpkg -x "$deb" "$dest"; done
echo "debian docs unpacked into $dest"
