#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Make DIR/linux-source-6.12 a git repository whose tag "pristine" holds
# Debian's linux-source-6.12 tarball exactly, extracting the tarball when
# the tree is missing or came from another tarball.  A tree extracted
# before without git keeps its files and build output: the commit is made
# from a second, temporary extraction.
#
# Usage: scripts/linux-pristine.sh DIR      prints the tree's path
# Environment: NETOOPS_LINUX_SOURCE (default /usr/src/linux-source-6.12.tar.xz)
set -euo pipefail

[ $# -eq 1 ] || { echo "usage: $0 DIR" >&2; exit 2; }
dir=$1
tarball=${NETOOPS_LINUX_SOURCE:-/usr/src/linux-source-6.12.tar.xz}
tree=$dir/linux-source-6.12

log()
{
	echo "linux-pristine: $*" >&2
}

die()
{
	echo "linux-pristine: error: $*" >&2
	exit 1
}

g()
{
	git -C "$tree" -c user.name=netoops -c user.email=netoops@localhost \
		-c advice.detachedHead=false "$@"
}

if [ ! -f "$tarball" ]; then
	[ "$(id -u)" = 0 ] || die "$tarball missing: apt-get install linux-source-6.12 (make deps)"
	log "installing linux-source-6.12"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends linux-source-6.12 >/dev/null
	[ -f "$tarball" ] || die "linux-source-6.12 did not provide $tarball"
fi

mkdir -p "$dir"
tkey=$(stat -c '%n %s %Y' "$tarball")
if [ ! -f "$tree/Makefile" ] || [ "$(cat "$dir/tree.key" 2>/dev/null)" != "$tkey" ]; then
	log "extracting $tarball into $dir"
	rm -rf "$tree" "$dir/tree.key" "$dir/config.key"
	tar -C "$dir" -xf "$tarball"
	[ -f "$tree/Makefile" ] || die "$tarball did not give $tree"
	echo "$tkey" > "$dir/tree.key"
fi

if ! g rev-parse -q --verify pristine >/dev/null 2>&1; then
	log "committing the pristine tree as tag 'pristine' (once)"
	rm -rf "$tree/.git"
	g init -q
	tmp=$(mktemp -d "$dir/pristine.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	tar -C "$tmp" -xf "$tarball"
	# -f: the tarball holds a few files the kernel's .gitignore names.
	g --work-tree="$tmp/linux-source-6.12" add -f -A
	# Dated from the tarball: every cache gets the same commit.
	GIT_AUTHOR_DATE="@$(stat -c %Y "$tarball") +0000" \
	GIT_COMMITTER_DATE="@$(stat -c %Y "$tarball") +0000" \
		g commit -q -m "linux-source-6.12 ($(basename "$tarball"), as extracted)"
	g tag pristine
	rm -rf "$tmp"
	trap - EXIT
	# The index now describes the temporary tree: refresh it against this
	# one so that a checkout rewrites only the files that differ.
	g update-index -q --refresh >/dev/null || true
fi
echo "$tree"
