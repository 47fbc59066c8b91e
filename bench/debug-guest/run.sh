#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/debug-guest/run.sh - what the debug kernel's unwinder and KASAN mode
# cost the tests under TCG.  Builds (cached) two variants of the kernel of
# tests/debug-kernel/ that differ only in
#   orc-outline  CONFIG_UNWINDER_ORC,           CONFIG_KASAN_OUTLINE
#   fp-inline    CONFIG_UNWINDER_FRAME_POINTER, CONFIG_KASAN_INLINE
# (every slab allocation saves a stack trace twice, for KASAN and for
# kmemleak, and lockdep saves them too: the unwinder is on the hot path),
# boots each in turn (same QEMU, -smp 1, one guest at a time) and times,
# inside the guest, from /proc/uptime:
#   boot      kernel start to the test script (modules loaded)
#   spawn     SPAWNS fork+exec of /bin/true
#   configfs  CYCLES netoops targets: mkdir, configure, rmdir
#   ksft      one kselftest through run_ktap (KSFT, netconsole_basic.sh)
# and prints each in seconds with the ratio orc-outline / fp-inline
# (above 1: fp-inline is faster), from the same run.
#
# Knobs: SPAWNS (300), CYCLES (50), KSFT, JOBS (make -j, 2),
# BENCH_CACHE (/var/cache/netoops/debug-bench: one tree per variant, a
# first build takes 15-25 min), BENCH_OUT (out/bench-debug-guest).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
SPAWNS=${SPAWNS:-300}
CYCLES=${CYCLES:-50}
KSFT=${KSFT:-netconsole_basic.sh}
cache=${BENCH_CACHE:-/var/cache/netoops/debug-bench}
out=${BENCH_OUT:-$top/out/bench-debug-guest}
variants=(orc-outline fp-inline)
mkdir -p "$out"

frag()	# VARIANT: its config fragment (merged after debug.config)
{
	case $1 in
	orc-outline)
		printf '%s\n' CONFIG_UNWINDER_ORC=y \
			'# CONFIG_UNWINDER_FRAME_POINTER is not set' \
			CONFIG_KASAN_OUTLINE=y '# CONFIG_KASAN_INLINE is not set' ;;
	fp-inline)
		printf '%s\n' CONFIG_UNWINDER_FRAME_POINTER=y \
			'# CONFIG_UNWINDER_ORC is not set' \
			CONFIG_KASAN_INLINE=y '# CONFIG_KASAN_OUTLINE is not set' ;;
	esac
}

guest=$out/guest.sh
cat > "$guest" <<'GUEST'
. /etc/guest-lib.sh
. /run.d/env
now() { read -r _up _ < /proc/uptime; echo "$_up"; }
g_load_project || echo "# project modules failed to load"
echo "BENCH boot 0 $(now)"
s=$(now)
i=0
while [ $i -lt "$SPAWNS" ]; do /bin/true; i=$((i + 1)); done
echo "BENCH spawn $s $(now)"
s=$(now)
i=0
while [ $i -lt "$CYCLES" ]; do
	d=$CFS/netoops/bench$i
	mkdir "$d" || { echo "BENCH-FAIL mkdir $d"; break; }
	{ echo 6666 > "$d/remote_port" && echo 192.0.2.2 > "$d/remote_ip" &&
	  echo eth1 > "$d/dev_name" && rmdir "$d"; } ||
		{ echo "BENCH-FAIL configuring $d"; break; }
	i=$((i + 1))
done
echo "BENCH configfs $s $(now)"
s=$(now)
bash /ksft/run_ktap "$KSFT" > /tmp/ksft.log 2>&1
rc=$?
echo "BENCH ksft $s $(now)"
[ $rc = 0 ] || { echo "BENCH-FAIL ksft $KSFT rc=$rc"; sed 's/^/# /' /tmp/ksft.log | tail -n 20; }
GUEST

for v in "${variants[@]}"; do
	mkdir -p "$out/$v"
	frag "$v" > "$out/$v.config"
	rm -f "$out/$v/kernel/release"
	echo "# $v: building (cache $cache/$v, log $out/$v/build.out)"
	NETOOPS_DEBUG_CACHE=$cache/$v NETOOPS_DEBUG_OUT=$out/$v/kernel \
	NETOOPS_DEBUG_JOBS=${JOBS:-2} NETOOPS_DEBUG_EXTRA_CONFIG=$out/$v.config \
		"$top/tests/debug-kernel/build.sh" > "$out/$v/build.out" 2>&1 || {
		tail -n 20 "$out/$v/build.out" >&2
		echo "bench: $v did not build" >&2
		exit 1
	}
	grep -qxF "$(head -n 1 "$out/$v.config")" "$out/$v/kernel/config" ||
		{ echo "bench: $v: $(head -n 1 "$out/$v.config") not in its .config" >&2; exit 1; }
done

for v in "${variants[@]}"; do
	(
		export GH_KERNEL_DIR=$out/$v/kernel GH_OUT=$out/$v/guest
		mkdir -p "$GH_OUT"
		# shellcheck source=../../tests/guest/lib.sh
		source "$top/tests/guest/lib.sh"
		ver=$(cat "$GH_KERNEL_DIR/release")
		# as tests/debug-kernel/run.sh: the in-tree modules, then the image
		gh_build_modules "$ver" > /dev/null ||
			{ echo "bench: $v: modules: $GH_OUT/build-$ver/build.log" >&2; exit 1; }
		gh_initramfs "$ver" > /dev/null
		GH_ENV_SPAWNS=$SPAWNS GH_ENV_CYCLES=$CYCLES GH_ENV_KSFT=$KSFT \
		GH_ENV_HOSTNAME=bench GH_TREE_TIMEOUT_SCALE=1 \
			gh_boot "$ver" bench "$guest" 3600 || true
		gh_results bench > "$out/$v/results.txt"
	) || exit 1
	if grep -q '^BENCH-FAIL' "$out/$v/results.txt" ||
	   [ "$(grep -c '^BENCH ' "$out/$v/results.txt")" != 4 ]; then
		echo "bench: $v: the guest did not run the whole workload:" >&2
		sed 's/^/  /' "$out/$v/results.txt" | tail -n 30 >&2
		exit 1
	fi
done

printf '%-10s %14s %14s %8s\n' step "${variants[0]} s" "${variants[1]} s" ratio
for step in boot spawn configfs ksft; do
	a=$(awk -v s="$step" '$1 == "BENCH" && $2 == s { print $4 - $3 }' "$out/${variants[0]}/results.txt")
	b=$(awk -v s="$step" '$1 == "BENCH" && $2 == s { print $4 - $3 }' "$out/${variants[1]}/results.txt")
	awk -v s="$step" -v a="$a" -v b="$b" \
		'BEGIN { printf "%-10s %14.2f %14.2f %7.2fx\n", s, a, b, (b > 0 ? a / b : 0) }'
done
echo "(ratio = ${variants[0]} / ${variants[1]}; SPAWNS=$SPAWNS CYCLES=$CYCLES KSFT=$KSFT; guest: qemu TCG -smp 1 -m 512)"
