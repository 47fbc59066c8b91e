#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make series: the project as a git format-patch series against Debian's
# pristine linux-source-6.12, written to out/series/.
#
# patches/series gives the order: a file name is a patch to upstream files
# in patches/, applied with git am; an @step is a commit made here from the
# project's own files:
#   @kernel     include/, drivers/net/, fs/pstore/ through
#               scripts/overlay-into-tree.sh
#   @selftests  tools/testing/selftests/netoops/, added to the kselftest
#               TARGETS
#   @docs       the Documentation/ files
# Commits carry the dates of the project's last commit, so the same
# sources give the same patches.  Each patch goes through the tree's
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

# commit_step SUBJECT BODY: commit everything, as the project.
commit_step()
{
	g add -A -f
	printf '%s\n\n%s\n' "$1" "$2" | g commit -q --author="$author" -s -F -
}

# copy_tracked PATH...: the project's git-tracked files under PATH into the
# tree.
copy_tracked()
{
	git -C "$root" ls-files -z -- "$@" |
		(cd "$root" && xargs -0 tar cf -) | tar -C "$tree" -xf -
}

while read -r p; do
	case $p in
	''|'#'*)
		;;
	@kernel)
		"$root/scripts/overlay-into-tree.sh" "$tree" >/dev/null
		commit_step "netoops: netpoll_targets, netconsole on it, and the netoops pstore backend" \
"The project's kernel files as they build out of tree, dropped into the
tree with their Kconfig and Makefile fragments."
		;;
	@selftests)
		copy_tracked tools/testing/selftests/netoops
		sed -i 's|^TARGETS += net$|&\nTARGETS += netoops|' \
			"$tree/tools/testing/selftests/Makefile"
		grep -qx 'TARGETS += netoops' "$tree/tools/testing/selftests/Makefile" ||
			die "no 'TARGETS += net' line in tools/testing/selftests/Makefile"
		commit_step "selftests: netoops: netconsole, netpoll_targets and netoops tests" \
"kselftests for the configfs targets, netconsole's user ABI and the
netoops backend (dumps, pstore, authentication, soft dumps), each
sending to a UDP sink on a veth pair in a network namespace."
		;;
	@docs)
		copy_tracked Documentation
		commit_step "Documentation: netoops, its wire format, and netpoll_targets" \
"The admin guide of the netoops backend and of its collector, the
netoops wire format, and the netpoll_targets library."
		;;
	@*)
		die "patches/series: unknown step $p"
		;;
	*)
		[ -f "$root/patches/$p" ] || die "patches/series names $p, which is missing"
		g am -q --committer-date-is-author-date "$root/patches/$p" ||
			die "$p does not apply with git am"
		;;
	esac
done < "$root/patches/series"

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
