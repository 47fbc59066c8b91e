#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/debug-kernel/build.sh - build a small debug kernel (lockdep, KASAN,
# debug objects, kmemleak, list debugging) from Debian's linux-source-6.12
# with the project's patch series (scripts/make-series.sh) applied with git
# am, the project's modules built =m through their own Kconfig entries.
#
# Cache: /var/cache/netoops/debug-kernel (NETOOPS_DEBUG_CACHE) holds the
# tree as a git repository (scripts/linux-pristine.sh), extracted again only
# when the tarball changes.  The series is applied with git am in a
# temporary worktree and the tree then checks out the result, which
# rewrites only the files that differ from the last build; the
# configuration is regenerated only when a config fragment changed, so a
# rerun is an incremental kbuild.
#
# Output, out/debug-kernel/ (NETOOPS_DEBUG_OUT):
#   series/                  the series applied (make-series.sh's output)
#   bzImage, release, config, build.log, build-time (seconds, last run)
#   lib/modules/<release>/   modules_install of the tree (depmod'ed)
#   modules/                 the project's in-tree built .ko files, and
#                            netconsole_nodynamic.ko: netconsole built
#                            again with NETCONSOLE_DYNAMIC off
#   build -> the tree        (for out-of-tree test modules)
# Exit: non-zero when the build fails or olddefconfig dropped an option.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
here=$root/tests/debug-kernel
cache=${NETOOPS_DEBUG_CACHE:-/var/cache/netoops/debug-kernel}
out=${NETOOPS_DEBUG_OUT:-$root/out/debug-kernel}
tarball=${NETOOPS_LINUX_SOURCE:-/usr/src/linux-source-6.12.tar.xz}
jobs=${NETOOPS_DEBUG_JOBS:-2}
frags=("$here/debug.config" "$root/tools/testing/selftests/netoops/config")
# A fragment merged last, whose options override the ones above (for
# bench/debug-guest, which builds variants of this kernel side by side).
[ -n "${NETOOPS_DEBUG_EXTRA_CONFIG:-}" ] && frags+=("$NETOOPS_DEBUG_EXTRA_CONFIG")

log()
{
	echo "debug-kernel: $*" >&2
}

die()
{
	echo "debug-kernel: error: $*" >&2
	exit 1
}

start=$(date +%s)
mkdir -p "$cache" "$out"
# The tree is a git repository: set, even empty, LOCALVERSION keeps
# scripts/setlocalversion from appending "+" to the release.
export LOCALVERSION=

# 1. The tree (pristine, as a git repository), the series made in a
# worktree of it that persists between runs, and the series applied with
# git am there.  The tree then checks out the result, which rewrites only
# the files that differ from the last build.
tree=$(NETOOPS_LINUX_SOURCE=$tarball "$root/scripts/linux-pristine.sh" "$cache")
wt=$cache/series-worktree
g()
{
	git -C "$tree" -c user.name=netoops -c user.email=netoops@localhost \
		-c advice.detachedHead=false "$@"
}
if ! git -C "$wt" rev-parse -q --verify pristine >/dev/null 2>&1; then
	rm -rf "$wt"
	g worktree prune
	g worktree add -q --detach "$wt" pristine
fi
NETOOPS_SERIES_TREE=$wt NETOOPS_SERIES_OUT=$out/series \
	NETOOPS_LINUX_SOURCE=$tarball "$root/scripts/make-series.sh" >&2
made=$(git -C "$wt" rev-parse 'HEAD^{tree}')
skey=$(cat "$out/series"/*.patch | sha1sum | cut -c1-16)
if [ "$(cat "$cache/series.key" 2>/dev/null)" != "$skey" ] ||
   ! g diff --quiet HEAD; then
	log "applying the series with git am"
	rm -f "$cache/series.key"
	git -C "$wt" -c advice.detachedHead=false checkout -q -f --detach pristine
	git -C "$wt" -c user.name=netoops -c user.email=netoops@localhost \
		am -q "$out/series"/*.patch ||
		die "the series does not apply with git am: $out/series"
	[ "$(git -C "$wt" rev-parse 'HEAD^{tree}')" = "$made" ] ||
		die "git am of $out/series gives another tree than make-series.sh made"
	commit=$(git -C "$wt" rev-parse HEAD)
	g update-index -q --refresh >/dev/null || true
	g checkout -q -f -B debug "$commit"
	echo "$skey" > "$cache/series.key"
fi

# A run stopped in step 6 left the option off: put the configuration back.
# (touch: kbuild syncs include/config/ only from a .config newer than it)
if [ -f "$tree/.config.dynamic" ]; then
	mv "$tree/.config.dynamic" "$tree/.config"
	touch "$tree/.config"
fi

# 3. Configuration: tinyconfig + the fragments, only when they changed.
ckey=$(cat "${frags[@]}" "$tree/drivers/net/Kconfig" \
	"$tree/fs/pstore/Kconfig" | sha1sum | cut -c1-16)
if [ ! -f "$tree/.config" ] || [ "$(cat "$cache/config.key" 2>/dev/null)" != "$ckey" ]; then
	log "configuring (tinyconfig + ${frags[*]##*/})"
	rm -f "$cache/config.key"
	make -s -C "$tree" tinyconfig >/dev/null
	(cd "$tree" && scripts/kconfig/merge_config.sh -m .config "${frags[@]}") >/dev/null
	make -s -C "$tree" olddefconfig >/dev/null
fi

# Every option asked for must have survived olddefconfig (an option a
# later fragment sets again is checked against that one only).
dropped=0
for ((i = 0; i < ${#frags[@]}; i++)); do
later=$(cat "${frags[@]:i+1}" /dev/null | grep -o '^\(# \)\?CONFIG_[A-Za-z0-9_]*' |
	sed 's/^# //' || true)
while read -r line; do
	opt=$(echo "$line" | grep -o 'CONFIG_[A-Za-z0-9_]*' | head -n 1 || true)
	[ -n "$opt" ] && echo "$later" | grep -qxF "$opt" && continue
	case $line in
	CONFIG_*=*)
		grep -qxF "$line" "$tree/.config" && continue
		;;
	"# CONFIG_"*" is not set")
		opt=${line#\# }
		opt=${opt%% *}
		grep -q "^$opt=" "$tree/.config" || continue
		;;
	*)	continue ;;
	esac
	got=$(grep -E "^$opt=|^# $opt is not set" "$tree/.config" || echo "$opt absent")
	log "dropped by olddefconfig: want '$line', got '$got'"
	dropped=$((dropped + 1))
done < "${frags[i]}"
done
[ "$dropped" = 0 ] || die "$dropped option(s) dropped (see above); .config: $tree/.config"
echo "$ckey" > "$cache/config.key"

# 4. Build.
log "building with make -j$jobs (log: $out/build.log)"
bstart=$(date +%s)
if ! make -C "$tree" -j"$jobs" bzImage modules > "$out/build.log" 2>&1; then
	grep -E 'error|Error' "$out/build.log" | head -n 20 >&2 || true
	die "build failed: $out/build.log"
fi
btime=$(( $(date +%s) - bstart ))

# 5. Output.
rel=$(make -s -C "$tree" kernelrelease)
rm -rf "${out:?}/lib" "${out:?}/modules"
make -s -C "$tree" INSTALL_MOD_PATH="$out" modules_install >> "$out/build.log" 2>&1 ||
	die "modules_install failed: $out/build.log"
rm -f "$out/lib/modules/$rel/build" "$out/lib/modules/$rel/source"
ln -sfn "$tree" "$out/lib/modules/$rel/build"
mkdir -p "$out/modules"
for m in drivers/net/netpoll_targets drivers/net/netconsole fs/pstore/netoops; do
	[ -f "$tree/$m.ko" ] || die "$m.ko was not built in the tree"
	cp "$tree/$m.ko" "$out/modules/"
done

# 6. netconsole without NETCONSOLE_DYNAMIC (upstream's option; the library
# then registers no configfs directory): the option switched off, the one
# module rebuilt and copied, the configuration and the module put back.
# Kbuild's per-option dependencies recompile netconsole.o alone; the whole
# modules target runs so that modpost sees the other modules' exports (a
# single-module target checks against vmlinux's only, and fails).
nodyn()
{
	make -s -C "$tree" olddefconfig >/dev/null &&
	make -C "$tree" -j"$jobs" modules >> "$out/build.log" 2>&1
}
cp "$tree/.config" "$tree/.config.dynamic"
"$tree/scripts/config" --file "$tree/.config" --disable NETCONSOLE_DYNAMIC
nodyn || die "netconsole without NETCONSOLE_DYNAMIC: build failed: $out/build.log"
grep -qx '# CONFIG_NETCONSOLE_DYNAMIC is not set' "$tree/.config" ||
	die "NETCONSOLE_DYNAMIC stayed on"
cp "$tree/drivers/net/netconsole.ko" "$out/modules/netconsole_nodynamic.ko"
mv "$tree/.config.dynamic" "$tree/.config"
touch "$tree/.config"
nodyn || die "netconsole rebuilt with NETCONSOLE_DYNAMIC: build failed: $out/build.log"
cmp -s "$tree/drivers/net/netconsole.ko" "$out/modules/netconsole.ko" ||
	die "netconsole.ko rebuilt with NETCONSOLE_DYNAMIC differs from the first build"
! cmp -s "$out/modules/netconsole.ko" "$out/modules/netconsole_nodynamic.ko" ||
	die "netconsole.ko did not change with NETCONSOLE_DYNAMIC off"

# The project's files must build without a warning in the tree too (both
# netconsole builds).
if grep -E '(drivers/net/(netconsole|netpoll_)|fs/pstore/netoops|include/(uapi/)?linux/(netoops|netpoll_targets|netpoll_xmit))[^ ]*: warning:' \
	"$out/build.log" >&2; then
	die "warnings in the project's files: $out/build.log"
fi

cp "$tree/arch/x86/boot/bzImage" "$out/bzImage"
cp "$tree/.config" "$out/config"
ln -sfn "$tree" "$out/build"
echo "$rel" > "$out/release"
echo "$btime" > "$out/build-time"
log "$rel built: make ${btime}s, total $(( $(date +%s) - start ))s; $out/bzImage"
