#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/debug-kernel/run.sh - `make check-debug`: build the debug kernel
# (build.sh: lockdep, KASAN, debug objects, kmemleak, list debugging; the
# project built in the tree), then on it, through the guest harness
# (GH_KERNEL_DIR=out/debug-kernel):
#   1. the kselftests (tools/testing/selftests/netoops/, among them the
#      stress test stress_lifecycle.sh), each in its own guest
#      (DK_KSFT_TESTS to pick some, DK_KSFT_TIMEOUT per test, default 400 s;
#      DK_STRESS_SECS, default 120 s, is the stress test's work budget: the
#      debug kernel under TCG runs some 30 times slower than Debian's)
#   2. the crash tests: sysrq-c (DK_SYSRQ_RUNS, default 2), oops, softirq,
#      BUG, WARN, soft lockup, one-shot (DK_CRASH_TESTS)
#   3. a splat scan of every guest's serial console: the kselftest run must
#      hold no WARNING/BUG/lockdep/KASAN/ODEBUG/kmemleak report at all; the
#      crash runs (which crash on purpose) none of the debug reports.
# Prints a KTAP summary and "debug-kernel: N passed, N failed"; exits 1 on
# any failure.  Evidence stays in out/debug-kernel/guest/ (GH_OUT).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
export GH_KERNEL_DIR=${GH_KERNEL_DIR:-$root/out/debug-kernel}
export GH_OUT=${DK_OUT:-$GH_KERNEL_DIR/guest}
export NETOOPS_DEBUG_OUT=$GH_KERNEL_DIR
mkdir -p "$GH_OUT"
source "$root/tests/guest/lib.sh"
export GH_RESULTS=$GH_OUT/results.tsv
: > "$GH_RESULTS"

# Reports a debug kernel makes that a deliberate crash never explains.
DEBUG_SPLATS='possible circular locking|possible recursive locking|inconsistent lock state|sleeping function called from invalid context|suspicious RCU usage|BUG: KASAN|KASAN:|ODEBUG|kmemleak: [0-9]+ new suspected|list_(add|del) corruption|BUG: sleeping|BUG: scheduling while atomic|BUG: spinlock|BUG: workqueue leaked lock|UBSAN'
ALL_SPLATS="WARNING:|BUG:|Oops|general protection|INFO: task .* blocked|unregister_netdevice: waiting|$DEBUG_SPLATS"

start=$(date +%s)
echo "KTAP version 1"
echo "# debug kernel tests, out dir $GH_OUT"

# scan NAME LOG PATTERN [IGNORE]: record splats/NAME; on a hit (a line
# matching PATTERN and not IGNORE) print the report.
scan()
{
	local hit

	[ -f "$2" ] || { gh_record "splats/$1" fail "no serial log $2"; return; }
	hit=$(grep -E "$3" "$2" | grep -v -E "${4:-^\$}" | head -n 1 || true)
	if [ -n "$hit" ]; then
		grep -E -B 3 -A 30 -m 1 "$3" "$2" | sed 's/^/    # /' | head -n 60
		gh_record "splats/$1" fail "$hit ($2)"
	else
		gh_record "splats/$1" pass
	fi
}

summary()
{
	local pass fail skip

	pass=$(awk -F'\t' '$2 == "pass"' "$GH_RESULTS" | wc -l)
	fail=$(awk -F'\t' '$2 == "fail"' "$GH_RESULTS" | wc -l)
	skip=$(awk -F'\t' '$2 == "skip"' "$GH_RESULTS" | wc -l)
	echo "# summary ($(( $(date +%s) - start )) s):"
	awk -F'\t' '{ printf "%s %d %s%s\n", ($2 == "fail" ? "not ok" : "ok"), NR, $1,
		($2 == "skip" ? " # SKIP " $3 : ($3 != "" ? " # " $3 : "")) }' "$GH_RESULTS"
	echo "1..$(wc -l < "$GH_RESULTS")"
	echo "debug-kernel: $pass passed, $fail failed${skip:+ ($skip skipped)}"
	[ "$fail" = 0 ] && [ $((pass + skip)) -gt 0 ]
}

# 0. the kernel
if "$here/build.sh"; then
	gh_record build pass "make $(cat "$GH_KERNEL_DIR/build-time")s"
else
	gh_record build fail "tests/debug-kernel/build.sh failed: $GH_KERNEL_DIR/build.log"
	summary
	exit 1
fi
ver=$(cat "$GH_KERNEL_DIR/release")
echo "# kernel $ver"

if gh_build_tools; then
	gh_record tools/build pass
else
	gh_record tools/build fail "make -C tools/netoops failed: $GH_OUT/tools-build.log"
fi
[ -x "$GH_OUT/tools/netoopsd" ] && export GH_TOOLS=$GH_OUT/tools
if gh_build_modules "$ver"; then
	gh_record "modules/$ver/test-module" pass
else
	gh_record "modules/$ver/test-module" fail "$GH_OUT/build-$ver/build.log"
fi
for m in netpoll_targets netconsole netoops; do
	grep -q "/$m\.ko$" "$GH_OUT/build-$ver/modules.list" ||
		gh_record "modules/$ver/$m" fail "no in-tree $m.ko"
done
gh_initramfs "$ver" >/dev/null
export GH_PREPARED=1

# 1. kselftests (stress_lifecycle among them), one guest each: lockdep
# reports only the first problem of a boot, so a fresh boot per test keeps
# every test checked and every report attributed.  The per-test timeout of
# ./settings is scaled (DK_KSFT_TIMEOUT): the debug kernel is slower.
ksft_guest=$(mktemp)
trap 'rm -f "$ksft_guest"' EXIT
cat > "$ksft_guest" <<'GUEST'
. /etc/guest-lib.sh
. /run.d/env
g_load_project || echo "# project modules failed to load"
export STRESS_SECS
cp -a /ksft /tmp/ksft
sed -i "s/^timeout=.*/timeout=$KSFT_TIMEOUT/" /tmp/ksft/settings
/tmp/ksft/run_ktap $KSFT_TESTS
GUEST
tests=${DK_KSFT_TESTS:-$(cd "$GH_SELFTESTS" && ls ./*.sh | sed 's|^\./||' | grep -vx lib_netoops.sh)}
for t in $tests; do
	name=dk-ksft-${t%.sh}
	echo "# kselftest $t on $ver"
	rc=0
	GH_ENV_KSFT_TESTS=$t GH_ENV_KSFT_TIMEOUT=${DK_KSFT_TIMEOUT:-400} \
		GH_ENV_STRESS_SECS=${DK_STRESS_SECS:-120} \
		GH_ENV_HOSTNAME=ksft gh_boot "$ver" "$name" "$ksft_guest" \
		$(( ${DK_KSFT_TIMEOUT:-400} + 200 )) || rc=$?
	gh_results "$name" | sed 's/^/    /' | tail -n 40
	line=$(gh_results "$name" | grep -E '^(not )?ok 1 ' || true)
	case $line in
	"ok "*"# SKIP"*) gh_record "ksft/${t%.sh}" skip "${line#*# SKIP }" ;;
	"ok "*)		gh_record "ksft/${t%.sh}" pass ;;
	"not ok "*)	gh_record "ksft/${t%.sh}" fail "${line#*# } ($GH_OUT/runs/$name/)" ;;
	*)		gh_record "ksft/${t%.sh}" fail "no result (qemu rc=$rc): $GH_OUT/runs/$name/serial.log" ;;
	esac
	scan "ksft-${t%.sh}" "$GH_OUT/runs/$name/serial.log" "$ALL_SPLATS"
done

# 2. crash tests
for t in ${DK_CRASH_TESTS:-sysrq oops softirq bug warn softlockup oneshot}; do
	echo "# crash-$t on $ver"
	if [ "$t" = sysrq ]; then
		"$root/tests/guest/crash-sysrq.sh" "$ver" "${DK_SYSRQ_RUNS:-2}" || true
	else
		"$root/tests/guest/crash-$t.sh" "$ver" || true
	fi
done
for d in "$GH_OUT"/runs/crash-*; do
	[ -d "$d" ] || continue
	# KASAN catches the test module's deliberate NULL dereference first
	# ("BUG: KASAN: null-ptr-deref in ct_deref_null [netoops_crashtest]")
	scan "$(basename "$d")" "$d/serial.log" "$DEBUG_SPLATS" '\[netoops_crashtest\]'
done

summary
