#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run-all.sh - every guest test, called by `make check` (check-guest).
#
#   1. build the collector (make -C tools/netoops)
#   2. build the project's modules for the newest Debian 6.12 and 6.1
#      kernels in /boot (W=1; a warning is a failure)
#   3. kselftests (tools/testing/selftests/netoops/*.sh) in a guest of each
#   4. crash tests on each kernel: 10 x sysrq-c, oops, softirq, BUG, WARN,
#      soft lockup, one-shot, auth (signed dump, forgeries refused; FEC),
#      txlock (a NIC's tx lock held by a stopped CPU or the crashed context),
#      nomem (panic with atomic memory exhausted: no skb allocated),
#      wedge (panic with a NIC whose tx queue never wakes: bounded reboot),
#      softpanic (panic during a soft dump: the panic dump complete),
#      nmi (panic in NMI context, as a hard lockup would),
#      mq (multi-queue virtio-net, a panic on each CPU, the other busy)
#   then a KTAP-style summary and the line "guest: N passed, N failed,
#   N skipped"; exits 1 on any failure.  A missing kernel or piece is a
#   failure that names it, never a silent skip.
#
# Environment: GH_SYSRQ_RUNS (default 10), GH_KERNELS (default: found in
# /boot), GH_CRASH_TESTS (default: all of the above).
set -euo pipefail
source "$(dirname "$0")/lib.sh"

start=$(date +%s)
export GH_RESULTS=$GH_OUT/results.tsv
: > "$GH_RESULTS"
here=$(cd "$(dirname "$0")" && pwd)

echo "KTAP version 1"
echo "# guest tests, out dir $GH_OUT"

if gh_build_tools; then
	gh_record tools/build pass
else
	gh_record tools/build fail "make -C tools/netoops failed: $GH_OUT/tools-build.log"
fi
export GH_TOOLS=$GH_TOOLS
[ -x "$GH_OUT/tools/netoopsd" ] && export GH_TOOLS=$GH_OUT/tools

kernels=${GH_KERNELS:-$(gh_kernels)}
for series in 6.12 6.1; do
	case " $kernels " in
	*" $series."*) ;;
	*) gh_record "kernel/$series" fail "no Debian $series kernel with modules and headers installed (make deps)" ;;
	esac
done

for ver in $kernels; do
	if gh_build_modules "$ver"; then
		gh_record "modules/$ver/build" pass
	else
		gh_record "modules/$ver/build" fail "$GH_OUT/build-$ver/build.log"
	fi
	if grep -q 'warning:' "$GH_OUT/build-$ver/build.log"; then
		gh_record "modules/$ver/W=1-clean" fail \
			"$(grep -m1 'warning:' "$GH_OUT/build-$ver/build.log" | sed "s|$GH_OUT/build-$ver/src/||")"
	else
		gh_record "modules/$ver/W=1-clean" pass
	fi
	gh_initramfs "$ver" >/dev/null
done
export GH_PREPARED=1

for ver in $kernels; do
	echo "# boot-patching on $ver"
	"$here/boot-patching.sh" "$ver" || true
	echo "# kselftests on $ver"
	"$here/run-kselftests.sh" "$ver" || true
done

crash_tests=${GH_CRASH_TESTS:-$GH_CRASH_TESTS_ALL}
for ver in $kernels; do
	for t in $crash_tests; do
		echo "# crash-$t on $ver"
		if [ "$t" = sysrq ]; then
			"$here/crash-sysrq.sh" "$ver" "${GH_SYSRQ_RUNS:-10}" || true
		else
			"$here/crash-$t.sh" "$ver" || true
		fi
	done
done

pass=$(awk -F'\t' '$2 == "pass"' "$GH_RESULTS" | wc -l)
fail=$(awk -F'\t' '$2 == "fail"' "$GH_RESULTS" | wc -l)
skip=$(awk -F'\t' '$2 == "skip"' "$GH_RESULTS" | wc -l)
echo "# summary ($(( $(date +%s) - start )) s):"
awk -F'\t' '{ printf "%s %d %s%s\n", ($2 == "fail" ? "not ok" : "ok"), NR, $1,
	($2 == "skip" ? " # SKIP " $3 : ($3 != "" ? " # " $3 : "")) }' "$GH_RESULTS"
echo "1..$(wc -l < "$GH_RESULTS")"
echo "guest: $pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ] && [ $((pass + skip)) -gt 0 ]
