#!/usr/bin/env bash
# Unpacks the Debian documentation and manual pages the general-language term model is learned from
# (scripts/train-language-model.ts) into .cache/training-corpus/<package>/, and writes
# .cache/training-corpus/manifest.tsv: each package's name and version, the corpus's record.
# `apt-get download` + `dpkg -x` instead of `apt-get install`: nothing is installed, and doc packages that conflict
# with a non-Debian Node.js cannot remove it. Packages missing from the archive are skipped and left out of the manifest.
set -euo pipefail
cd "$(dirname "$0")/.."
dest=.cache/training-corpus

# Never learned from: they are the documentation of the retrieval evaluation and of its independent check.
excluded='^(nodejs.*|node-.*|libnode.*|npm|git|git-.*|python-django-doc|cmake|cmake-.*|rust-.*|rustc|cargo|cargo-.*|python3\.[0-9]+-doc|python3-doc|python-doc|postgresql-doc.*)$'

packages=(
  # Manual pages: the C library and system calls, and the tools of a developer's and an administrator's day.
  manpages manpages-dev coreutils findutils grep sed tar diffutils-doc rsync openssh-client curl wget man-db
  util-linux procps iproute2 systemd tmux screen subversion openssl gpg lvm2 nmap bsdextrautils erlang-manpages
  # Languages' manuals: Perl, Ruby, Erlang, Tcl, Lisp, Haskell, GNU Guile, R, Octave, gnuplot, Maxima, Java.
  perl-doc erlang-doc tcl8.6-doc sbcl-doc clisp-doc haskell98-report guile-3.0-doc r-doc-html octave-doc
  gnuplot-doc maxima-doc openjdk-17-doc
  # Servers, databases, shells, editors and version control other than the evaluation's.
  apache2-doc nginx-doc sqlite3-doc bind9-doc postfix-doc exim4-doc-html docker-doc bash-doc zsh-doc vim-doc
  emacs-common mercurial-common libssl-doc wireshark-doc borgbackup-doc mutt icinga2-doc haproxy-doc varnish-doc
  unbound knot-doc openvpn tor fail2ban ufw
  # Libraries' and toolkits' guides: Qt, GLib, Racket, the C++ reference.
  qtbase5-doc-html libglib2.0-doc racket-doc cppreference-doc-en-html
  # Python libraries and documentation tools (not Python's own manual).
  sphinx-doc mkdocs-doc python-flask-doc python-requests-doc python-werkzeug-doc python-jinja2-doc python-click-doc
  python-pytest-doc python-setuptools-doc twisted-doc python-sklearn-doc python-scipy-doc python-pandas-doc
  # GNU manuals (info), the C library's, binutils', the build tools'.
  glibc-doc binutils-doc gnu-standards autoconf-doc automake gettext-doc
  # Debian's handbooks and the kernel's documentation: long prose about systems.
  debian-handbook debian-reference-en debian-policy developers-reference maint-guide debian-faq doc-debian
  linux-doc-6.1
  # Desktop help, in the words people use: folders, trash, wiping a disk, undoing a change.
  gnome-user-docs libreoffice-help-en-us gimp-help-en gnumeric-doc
  # General English and computing vocabulary: WordNet's synonym sets, FOLDOC and the Jargon File.
  wordnet-base dict-foldoc jargon-text
)

for package in "${packages[@]}"; do
  if [[ $package =~ $excluded ]]; then
    echo "refusing $package: it is documentation the retrieval evaluation asks about" >&2
    exit 1
  fi
done

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
debs="$dest/debs"
mkdir -p "$debs"
as_root apt-get update -q >/dev/null
# One `apt-get download` for all of them (each call costs seconds), asked only for what the archive holds.
available=$(apt-cache show --no-all-versions "${packages[@]}" 2>/dev/null | awk '/^Package:/ { print $2 }' | sort -u)
missing=()
for package in "${packages[@]}"; do
  grep -qx "$package" <<<"$available" || { echo "skipped $package: not in the archive" >&2; continue; }
  compgen -G "$debs/${package}_*.deb" >/dev/null || missing+=("$package")
done
if [ "${#missing[@]}" -gt 0 ]; then ( cd "$debs" && apt-get download "${missing[@]}" 2>&1 | grep -v '^W: Download is performed unsandboxed' >&2 || true ); fi

manifest="$dest/manifest.tsv"
: >"$manifest"
for deb in "$debs"/*.deb; do
  package=$(dpkg-deb -f "$deb" Package)
  # A package dropped from the list may still be in the cache: it is no longer part of the corpus.
  [[ " ${packages[*]} " == *" $package "* ]] || continue
  version=$(dpkg-deb -f "$deb" Version)
  if [ ! -d "$dest/$package" ]; then
    mkdir -p "$dest/$package.partial"
    dpkg -x "$deb" "$dest/$package.partial"
    mv "$dest/$package.partial" "$dest/$package"
  fi
  printf '%s\t%s\n' "$package" "$version" >>"$manifest"
done
sort -o "$manifest" "$manifest"
echo "training corpus: $(wc -l <"$manifest") packages unpacked into $dest ($(du -sh "$dest" --exclude=debs | cut -f1))"
