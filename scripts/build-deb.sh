#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# build-deb.sh [OUTDIR]: build the netoops .deb packages (debian/) from a
# copy of the working tree in OUTDIR/src (default out/deb), so the tree
# stays clean, and run lintian on them.  The .deb files, the .changes file,
# build.log and lintian.txt end up in OUTDIR.  Fails on a lintian error or
# warning (each override in debian/*.lintian-overrides says why).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
out=$(mkdir -p "${1:-$top/out/deb}" && cd "${1:-$top/out/deb}" && pwd)
ver=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)
src=$out/src/netoops-$ver

rm -rf "$out/src" "$out"/*.deb "$out"/*.changes "$out"/*.buildinfo
mkdir -p "$src"
# (and nothing a previous dpkg-buildpackage left in debian/)
tar -C "$top" --exclude=./out --exclude=./.git \
	--exclude=./debian/tmp --exclude=./debian/.debhelper \
	--exclude=./debian/netoops-dkms --exclude=./debian/netoops-client \
	--exclude=./debian/netoopsd --exclude=./debian/files \
	--exclude='./debian/*.substvars' --exclude='./debian/*.debhelper' \
	--exclude='./debian/*.debhelper.log' \
	--exclude=./debian/debhelper-build-stamp \
	--exclude='./tools/netoops/build*' --exclude='*.o' --exclude='*.ko' \
	--exclude='.*.cmd' --exclude='*.mod' --exclude='*.mod.c' -cf - . |
	tar -C "$src" -xf -
if ! (cd "$src" && dpkg-buildpackage -b -us -uc) > "$out/build.log" 2>&1; then
	tail -n 30 "$out/build.log" >&2
	echo "build-deb: dpkg-buildpackage failed: $out/build.log" >&2
	exit 1
fi
mv "$out"/src/*.deb "$out"/src/*.changes "$out"/src/*.buildinfo "$out/"
lintian --info --display-info --pedantic --show-overrides "$out"/netoops_"${ver}"_*.changes \
	> "$out/lintian.txt" 2>&1 || true
echo "build-deb: $(cd "$out" && echo ./*.deb)"
echo "build-deb: lintian: $(grep -c "^[EWIP]:" "$out/lintian.txt" || true) tags, $(grep -c "^O:" "$out/lintian.txt" || true) overridden ($out/lintian.txt)"
if grep -q '^[EW]:' "$out/lintian.txt"; then
	grep '^[EW]:' "$out/lintian.txt" >&2
	echo "build-deb: lintian reports errors or warnings" >&2
	exit 1
fi
