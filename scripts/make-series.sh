#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make series: the project as a git format-patch series against Debian's
# pristine linux-source-6.12, written to out/series/.
#
# patches/series gives the order: a file name is a patch to upstream files
# in patches/, applied with git am; an @NAME is a commit made here from the
# project's own files, as patches/steps/NAME/ describes it:
#   message    the commit message (subject, blank line, body)
#   files      the project's files and directories it adds, one a line
#   tree.diff  its changes to the tree's own files (Kconfig, Makefile,
#              MAINTAINERS, indexes), applied with git apply
# After the last patch, every project file that a steps/*/files lists
# must be in the tree byte for byte, or the script fails.  Commits carry
# the dates of the project's last commit, so the same sources give the
# same patches.  Each patch goes through the tree's
# scripts/checkpatch.pl --strict: out/series/checkpatch.log has the
# reports, and the last line printed counts the patches with findings.
#
# Usage: scripts/make-series.sh
# Environment: NETOOPS_SERIES_CACHE (default /var/cache/netoops/series),
#   where the tree is kept (scripts/linux-pristine.sh), or
#   NETOOPS_SERIES_TREE, a git work tree with the tag "pristine" to use
#   instead (the debug kernel's build passes a worktree of its own tree);
#   NETOOPS_SERIES_OUT (default out/series), NETOOPS_LINUX_SOURCE.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cache=${NETOOPS_SERIES_CACHE:-/var/cache/netoops/series}
out=${NETOOPS_SERIES_OUT:-$root/out/series}

die()
{
	echo "series: error: $*" >&2
	exit 1
}

if [ -n "${NETOOPS_SERIES_TREE:-}" ]; then
	tree=$NETOOPS_SERIES_TREE
	git -C "$tree" rev-parse -q --verify pristine >/dev/null ||
		die "$tree: no tag 'pristine'"
else
	tree=$("$root/scripts/linux-pristine.sh" "$cache")
fi

author="Seed dfbeaa54 maintainers <maintainers@users.noreply.a-seed-dfbeaa54.example>"
date=$(git -C "$root" log -1 --format=%aI 2>/dev/null || date -u +%FT%TZ)
export GIT_AUTHOR_DATE=$date GIT_COMMITTER_DATE=$date

g()
{
	git -C "$tree" -c user.name="${author% <*}" \
		-c user.email="$(echo "$author" | sed 's/.*<\(.*\)>/\1/')" \
		-c advice.detachedHead=false "$@"
}

g am --abort >/dev/null 2>&1 || true
g checkout -q -f -B series pristine
g clean -q -f -d -x

# copy_tracked PATH...: the project's git-tracked files under PATH into the
# tree.
copy_tracked()
{
	local listed

	listed=$(git -C "$root" ls-files -- "$@")
	[ -n "$listed" ] || die "no tracked files under: $*"
	git -C "$root" ls-files -z -- "$@" |
		(cd "$root" && xargs -0 tar cf -) | tar -C "$tree" -xf -
}

# step NAME: the commit patches/steps/NAME/ describes.
step()
{
	local d=$root/patches/steps/$1 f
	local -a paths=()

	[ -f "$d/message" ] && [ -f "$d/files" ] ||
		die "patches/series names @$1: no patches/steps/$1/message and files"
	while read -r f; do
		case $f in ''|'#'*) continue ;; esac
		paths+=("$f")
	done < "$d/files"
	copy_tracked "${paths[@]}"
	if [ -f "$d/tree.diff" ]; then
		g apply --whitespace=error-all "$d/tree.diff" ||
			die "patches/steps/$1/tree.diff does not apply"
	fi
	g add -A -f
	g commit -q --author="$author" -s -F "$d/message"
}

while read -r p; do
	case $p in
	''|'#'*)
		;;
	@*)
		step "${p#@}"
		;;
	*)
		[ -f "$root/patches/$p" ] || die "patches/series names $p, which is missing"
		g am -q --committer-date-is-author-date "$root/patches/$p" ||
			die "$p does not apply with git am"
		;;
	esac
done < "$root/patches/series"

# The series must end with the project's files as they are: a step's files
# that a later patch changes, or that no step in patches/series added,
# would make the patches describe another driver than the project's.
differ=0
for d in "$root"/patches/steps/*/; do
	[ -f "$d/files" ] || continue
	while read -r f; do
		case $f in ''|'#'*) continue ;; esac
		while IFS= read -r -d '' p; do
			if ! cmp -s "$root/$p" "$tree/$p"; then
				echo "series: error: $p: the series' last tree differs from the project's (patches/steps/$(basename "$d")/files)" >&2
				differ=$((differ + 1))
			fi
		done < <(git -C "$root" ls-files -z -- "$f")
	done < "$d/files"
done
[ "$differ" -eq 0 ] || die "$differ project file(s) differ at the end of the series"

rm -rf "$out"
mkdir -p "$out"
g format-patch -q --zero-commit --no-signature -o "$out" pristine..series
(cd "$out" && ls -1 -- *.patch) > "$out/series"

findings=0
: > "$out/checkpatch.log"
while read -r p; do
	res=$(cd "$tree" && perl scripts/checkpatch.pl --strict "$out/$p" 2>&1 || true)
	total=$(echo "$res" | grep '^total:' || echo "total: (no summary)")
	printf '%s\n%s\n\n' "== $p" "$res" >> "$out/checkpatch.log"
	printf 'series: %-64s %s\n' "$p" "$total"
	echo "$total" | grep -q '^total: 0 errors, 0 warnings, 0 checks' ||
		findings=$((findings + 1))
done < "$out/series"
echo "series: $(wc -l < "$out/series") patches in $out, $findings with checkpatch findings ($out/checkpatch.log)"
