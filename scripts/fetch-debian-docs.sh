#!/usr/bin/env bash
# Unpacks Debian's nodejs-doc, git-doc, sphinx-doc, python3.11-doc and mkdocs-doc HTML into .cache/debian-docs for the
# crawler tests, the extraction word snapshot and the benchmarks.
# `apt-get download` + `dpkg -x` instead of `apt-get install`: installing nodejs-doc would remove a non-Debian Node.js.
# sphinx-doc's pages load their scripts through relative symlinks into /usr/share/javascript; the libjs-* packages
# unpacked beside them make those links resolve, so a browser runs the pages' real scripts.
# `--whole-sites` also unpacks the big sites of the whole-site benchmark: rust-doc (Rust's standard library and books,
# about 32,000 pages, 580 MB) and PostgreSQL's manual (postgresql-doc's versioned package, about 1,170 pages).
# `--eval` also unpacks the retrieval evaluation's test libraries: Django's documentation (python-django-doc), CMake's
# (cmake-doc) and rust-doc, whose book "The Rust Programming Language" the questions are asked of.
set -euo pipefail
cd "$(dirname "$0")/.."
dest=.cache/debian-docs
packages=(nodejs-doc git-doc sphinx-doc python3.11-doc mkdocs-doc libjs-sphinxdoc libjs-jquery libjs-underscore)
have_base() {
  [ -f "$dest/usr/share/doc/nodejs/api/fs.html" ] && [ -d "$dest/usr/share/doc/git-doc" ] &&
    [ -f "$dest/usr/share/doc/sphinx-doc/html/index.html" ] &&
    [ -f "$dest/usr/share/doc/python3.11/html/index.html" ] && [ -f "$dest/usr/share/doc/mkdocs/html/index.html" ] &&
    [ -f "$dest/usr/share/javascript/sphinxdoc/1.0/doctools.js" ]
}
have_eval() {
  [ -f "$dest/usr/share/doc/python-django-doc/html/index.html" ] && [ -f "$dest/usr/share/doc/cmake-data/html/index.html" ] &&
    [ -f "$dest/usr/share/doc/rust-doc/html/book/index.html" ]
}
have_whole_sites() {
  [ -f "$dest/usr/share/doc/rust-doc/html/std/index.html" ] && compgen -G "$dest/usr/share/doc/postgresql-doc-*/html/index.html" >/dev/null
}
wanted=()
have_base || wanted+=("${packages[@]}")
if [ "${1:-}" = "--eval" ] && ! have_eval; then wanted+=(python-django-doc cmake-doc rust-doc); fi
if [ "${1:-}" = "--whole-sites" ] && ! have_whole_sites; then
  # postgresql-doc only depends on the package of the current major version, which holds the files.
  postgresql=$(apt-cache depends postgresql-doc 2>/dev/null | awk '/Depends: postgresql-doc-/ { print $2; exit }')
  wanted+=(rust-doc "${postgresql:-postgresql-doc-15}")
fi
[ "${#wanted[@]}" -eq 0 ] && exit 0
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
( cd "$work" && apt-get download "${wanted[@]}" >/dev/null 2>&1 ) ||
  { as_root apt-get update -q >/dev/null && ( cd "$work" && apt-get download "${wanted[@]}" >/dev/null ); }
mkdir -p "$dest"
for deb in "$work"/*.deb; do dpkg -x "$deb" "$dest"; done
echo "debian docs unpacked into $dest: ${wanted[*]}"
