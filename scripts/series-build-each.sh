#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# series-build-each.sh - is the series bisectable?  Apply it patch by patch
# with git am to a worktree of the pristine linux-source-6.12 tree
# (scripts/linux-pristine.sh) and build the tree (bzImage and modules)
# after each patch, with the debug kernel's configuration: make tinyconfig,
# then tests/debug-kernel/debug.config and
# tools/testing/selftests/netoops/config merged, merged again after each
# patch so that the options a patch adds get their values.  Builds are
# incremental: the worktree and its objects stay in the cache between
# patches and between runs.
#
# A patch passes when git am applies it, the build succeeds and no file
# the patch adds or changes gets a compiler warning.  After the last
# patch, the project's three modules must have been built.  Prints one
# line per patch (result, seconds) and exits non-zero when any failed; a
# patch that does not apply ends the run.
#
# Usage: scripts/series-build-each.sh [SERIES_DIR]
#   SERIES_DIR: a make-series.sh output (its "series" file gives the
#   order); without it, the series is made first (scripts/make-series.sh
#   into OUT/series).
# Environment: NETOOPS_SERIES_CHECK_CACHE (default
#   /var/cache/netoops/series-check), NETOOPS_SERIES_CHECK_OUT (default
#   out/series-check: build logs, results), NETOOPS_SERIES_CHECK_JOBS
#   (default 2), NETOOPS_LINUX_SOURCE.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cache=${NETOOPS_SERIES_CHECK_CACHE:-/var/cache/netoops/series-check}
out=${NETOOPS_SERIES_CHECK_OUT:-$root/out/series-check}
jobs=${NETOOPS_SERIES_CHECK_JOBS:-2}
frags=("$root/tests/debug-kernel/debug.config"
       "$root/tools/testing/selftests/netoops/config")

log()
{
	echo "series-check: $*" >&2
}

die()
{
	echo "series-check: error: $*" >&2
	exit 1
}

[ $# -le 1 ] || { echo "usage: $0 [SERIES_DIR]" >&2; exit 2; }
mkdir -p "$cache" "$out"
out=$(cd "$out" && pwd)
tree=$("$root/scripts/linux-pristine.sh" "$cache")

g()
{
	git -C "$tree" -c user.name=netoops -c user.email=netoops@localhost \
		-c advice.detachedHead=false "$@"
}

# wt_add DIR: DIR as a worktree of the tree, detached at pristine.
wt_add()
{
	if ! git -C "$1" rev-parse -q --verify pristine >/dev/null 2>&1; then
		rm -rf "$1"
		g worktree prune
		g worktree add -q --detach "$1" pristine
	fi
}

if [ $# -eq 1 ]; then
	series=$(cd "$1" && pwd)
else
	series=$out/series
	wt_add "$cache/series-tree"
	NETOOPS_SERIES_TREE=$cache/series-tree NETOOPS_SERIES_OUT=$series \
		"$root/scripts/make-series.sh" >&2
fi
[ -s "$series/series" ] || die "$series/series: no patch list"
mapfile -t patches < "$series/series"

# The build worktree.  LOCALVERSION set, even empty, keeps
# scripts/setlocalversion from appending "+" to the release.
export LOCALVERSION=
wt=$cache/build
wt_add "$wt"
w()
{
	git -C "$wt" -c user.name=netoops -c user.email=netoops@localhost \
		-c advice.detachedHead=false "$@"
}
w am --abort >/dev/null 2>&1 || true
w checkout -q -f --detach pristine
# Files a previous run's patches added: untracked, not ignored (build
# output is ignored by the tree's .gitignore files and stays).
w clean -q -f -d

# configure: tinyconfig and the fragments the first time (or when they
# changed), the fragments merged again onto .config after each patch.
configure()
{
	(cd "$wt" && scripts/kconfig/merge_config.sh -m .config "${frags[@]}") \
		>/dev/null
	make -s -C "$wt" olddefconfig >/dev/null
}
ckey=$(cat "${frags[@]}" | sha1sum | cut -c1-16)
if [ ! -f "$wt/.config" ] || [ "$(cat "$cache/config.key" 2>/dev/null)" != "$ckey" ]; then
	log "configuring (tinyconfig + ${frags[*]##*/})"
	rm -f "$cache/config.key"
	make -s -C "$wt" tinyconfig >/dev/null
	configure
	echo "$ckey" > "$cache/config.key"
fi

: > "$out/results"
failed=0
n=0
total_start=$(date +%s)
for p in "${patches[@]}"; do
	n=$((n + 1))
	plog=$out/$(printf '%02d' "$n").build.log
	start=$(date +%s)
	if ! w am -q "$series/$p" > "$plog" 2>&1; then
		printf '%-64s %s %5ds\n' "$p" "FAIL(git am)" 0 | tee -a "$out/results"
		failed=$((failed + 1))
		break
	fi
	changed=$(w diff --name-only HEAD^ HEAD)
	result=pass
	if ! configure >> "$plog" 2>&1; then
		result="FAIL(config)"
	elif ! make -C "$wt" -j"$jobs" bzImage modules >> "$plog" 2>&1; then
		result="FAIL(build)"
	else
		warned=$(grep -F ': warning:' "$plog" | cut -d: -f1 |
			sed "s|^$wt/||" | sort -u |
			grep -xF -f <(echo "$changed") || true)
		[ -z "$warned" ] || result="FAIL(warnings: $(echo $warned))"
	fi
	secs=$(( $(date +%s) - start ))
	[ "$result" = pass ] || failed=$((failed + 1))
	printf '%-64s %-12s %5ds\n' "$p" "$result" "$secs" | tee -a "$out/results"
done

# After the whole series: the project's options and modules.
if [ "$failed" = 0 ] && [ "$n" = "${#patches[@]}" ]; then
	for opt in CONFIG_NETPOLL_TARGETS=m CONFIG_NETCONSOLE=m CONFIG_NETOOPS=m; do
		grep -qxF "$opt" "$wt/.config" || {
			log "after the series: $opt not in .config"
			failed=$((failed + 1))
		}
	done
	for m in drivers/net/netpoll_targets drivers/net/netconsole fs/pstore/netoops; do
		[ -f "$wt/$m.ko" ] || {
			log "after the series: $m.ko not built"
			failed=$((failed + 1))
		}
	done
fi

echo "series-check: ${#patches[@]} patches, $failed failure(s), $(( $(date +%s) - total_start ))s; logs in $out" |
	tee -a "$out/results"
[ "$failed" = 0 ]
