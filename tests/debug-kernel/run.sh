#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/debug-kernel/run.sh - `make check-debug`: build the debug kernel
# (build.sh: lockdep, KASAN, debug objects, kmemleak, list debugging; the
# project built in the tree), then on it, through the guest harness
# (GH_KERNEL_DIR=out/debug-kernel):
#   1. every kselftest (tools/testing/selftests/netoops/, among them the
#      stress test stress_lifecycle.sh; not netoops_regs_reuse, which
#      KASAN's quarantine defeats) in one guest, then those that oops
#      on purpose (netoops_pstore, netoops_oneshot) in a second
#      (DK_KSFT_TESTS to pick some; DK_KSFT_TIMEOUT per test, default
#      900 s, a bound; DK_STRESS_SECS, default 120 s, is the stress
#      test's work budget: the debug kernel under TCG runs several times
#      slower than Debian's); kmemleak scans at the end of each
#      guest; a test's leftover targets are removed before the next
#   2. every crash test of the Debian kernels' run, sysrq-c once
#      (DK_SYSRQ_RUNS, default 1; DK_CRASH_TESTS to pick some),
#      crash-ramoops (one panic in ramoops and in the collector) and
#      crash-efipstore (the same with efi_pstore, the guest booted by
#      OVMF)
#   3. a splat scan of every guest's serial console: each kselftest's part
#      of the log must hold no WARNING/BUG/lockdep/KASAN/ODEBUG/kmemleak
#      report at all; the guests that crash on purpose none of the debug
#      reports (the test module's own lines aside)
# Prints a KTAP summary and "debug-kernel: N passed, N failed, N skipped";
# exits 1 on any failure or skip.  Evidence stays in out/debug-kernel/guest/ (GH_OUT).
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
	# Inline KASAN turns the test module's deliberate NULL dereference
	# into a general protection fault whose "KASAN: null-ptr-deref in
	# range" line names no function; the RIP line just after it does.
	# Tag that line with the RIP's module so that IGNORE can match it.
	hit=$(awk '{ l[NR] = $0 }
		END { for (i = 1; i <= NR; i++) {
			s = l[i]
			if (s ~ /KASAN: null-ptr-deref in range/)
				for (j = i + 1; j <= i + 5 && j <= NR; j++)
					if (l[j] ~ /RIP: .*\[netoops_crashtest\]/) {
						s = s " (RIP in [netoops_crashtest])"
						break
					}
			print s } }' "$2" |
		grep -E "$3" | grep -v -E "${4:-^\$}" | head -n 1 || true)
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
	echo "debug-kernel: $pass passed, $fail failed, $skip skipped"
	# The debug kernel is built with everything the tests need: a skip
	# there (a module that does not load, say) hides a failure.
	[ "$fail" = 0 ] && [ "$skip" = 0 ] && [ "$pass" -gt 0 ]
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

# 1. kselftests (stress_lifecycle among them), all in one guest: a boot of
# the debug kernel under TCG costs a minute, a test seconds to minutes.
# Each test is announced in the kernel log ("dk: begin TEST") so that a
# report is attributed to the test that was running; lockdep reports only
# the first problem of a boot, but any report fails the run, and a rerun
# after the fix shows the next.  The per-test timeout of ./settings is
# scaled (DK_KSFT_TIMEOUT).  At the end kmemleak scans twice (its advice
# against false positives) and prints what it suspects.
ksft_guest=$(mktemp)
trap 'rm -f "$ksft_guest"' EXIT
cat > "$ksft_guest" <<'GUEST'
. /etc/guest-lib.sh
. /run.d/env
g_load_project || echo "# project modules failed to load"
export STRESS_SECS
cp -a /ksft /tmp/ksft
sed -i "s/^timeout=.*/timeout=$KSFT_TIMEOUT/" /tmp/ksft/settings
# dk_reap TEST: a test that failed or timed out may leave targets behind,
# and they would fail the next one (rmmod refused): remove them.
dk_reap()
{
	for _d in /sys/kernel/config/netconsole/*/ /sys/kernel/config/netoops/*/; do
		[ -e "${_d}enabled" ] || continue
		echo 0 > "${_d}enabled" 2>/dev/null
		for _u in "${_d}"userdata/*/ "${_d}"userfields/*/; do
			[ -d "$_u" ] && rmdir "$_u"
		done
		rmdir "$_d" && echo "# dk: $1 left target $_d behind; removed"
	done
}
for t in $KSFT_TESTS; do
	g_load_project >/dev/null 2>&1 || echo "# project modules failed to load before $t"
	echo "dk: begin $t" > /dev/kmsg
	echo "@@DK-BEGIN $t@@"
	bash /tmp/ksft/run_ktap "$t"
	dk_reap "$t"
	echo "@@DK-END $t@@"
	echo "dk: end $t" > /dev/kmsg
done
grep -q ' /sys/kernel/debug ' /proc/mounts ||
	mount -t debugfs debugfs /sys/kernel/debug
if [ -w /sys/kernel/debug/kmemleak ]; then
	echo scan > /sys/kernel/debug/kmemleak
	echo scan > /sys/kernel/debug/kmemleak
	echo "@@DK-KMEMLEAK@@"
	cat /sys/kernel/debug/kmemleak
	echo "@@DK-KMEMLEAK-END@@"
else
	echo "@@DK-KMEMLEAK-MISSING@@"
fi
GUEST
# ksft_boot NAME "TESTS" PATTERN [IGNORE]: run TESTS in one guest, record
# each result and scan each test's part of the kernel log for PATTERN.
ksft_boot()
{
	local name=$1 tests=$2 pat=$3 ign=${4:-} rc=0 n res serial t out line

	n=$(echo $tests | wc -w)
	echo "# kselftests on $ver, one guest ($name): $(echo $tests)"
	GH_ENV_KSFT_TESTS="$(echo $tests)" GH_ENV_KSFT_TIMEOUT=$ksft_tmo \
		GH_ENV_STRESS_SECS=${DK_STRESS_SECS:-120} \
		GH_ENV_HOSTNAME=ksft GH_TREE_TIMEOUT_SCALE=1 \
		gh_boot "$ver" "$name" "$ksft_guest" \
		$(( ${DK_BOOT_SECS:-300} + n * ksft_tmo )) || rc=$?
	res=$GH_OUT/runs/$name/results.log
	serial=$GH_OUT/runs/$name/serial.log
	for t in $tests; do
		out=$(sed -n "/^@@DK-BEGIN $t@@/,/^@@DK-END $t@@/p" "$res")
		echo "$out" | grep -v '^@@DK-' | sed 's/^/    /' | tail -n 40
		line=$(echo "$out" | grep -E '^(not )?ok 1 ' || true)
		case $line in
		"ok "*"# SKIP"*) gh_record "ksft/${t%.sh}" skip "${line#*# SKIP }" ;;
		"ok "*)		gh_record "ksft/${t%.sh}" pass ;;
		"not ok "*)	gh_record "ksft/${t%.sh}" fail "${line#*# } ($GH_OUT/runs/$name/)" ;;
		*)		gh_record "ksft/${t%.sh}" fail "no result (qemu rc=$rc): $serial" ;;
		esac
		# this test's part of the kernel log
		sed -n "/dk: begin $t\$/,/dk: end $t\$/p" "$serial" \
			> "$GH_OUT/runs/$name/serial-${t%.sh}.log"
		scan "ksft-${t%.sh}" "$GH_OUT/runs/$name/serial-${t%.sh}.log" "$pat" "$ign"
	done
	# the whole log too: module loading before the first test, the end
	scan "$name-boot" "$serial" "$pat" "$ign"
	if grep -q '^@@DK-KMEMLEAK-MISSING@@' "$res"; then
		gh_record "$name-kmemleak" fail "no /sys/kernel/debug/kmemleak in the debug kernel"
	elif ! grep -q '^@@DK-KMEMLEAK-END@@' "$res"; then
		gh_record "$name-kmemleak" fail "the guest did not reach the kmemleak scan (qemu rc=$rc)"
	elif sed -n '/^@@DK-KMEMLEAK@@/,/^@@DK-KMEMLEAK-END@@/p' "$res" |
	     grep -q 'unreferenced object'; then
		sed -n '/^@@DK-KMEMLEAK@@/,/^@@DK-KMEMLEAK-END@@/p' "$res" |
			head -n 40 | sed 's/^/    # /'
		gh_record "$name-kmemleak" fail "kmemleak suspects leaks: $res"
	else
		gh_record "$name-kmemleak" pass
	fi
}

# The tests that oops on purpose (through the test-only crash module) run
# in a second guest: an oops turns lockdep off for the rest of the boot,
# and KASAN reports the deliberate NULL dereference, after which it reports
# nothing more.  Their log is held to the debug reports only, as the crash
# tests' is.  They are the tests that write an oops, bug or warn command
# to the module's /proc/netoops_crashtest ($CT in each test).
oopsing=$(cd "$GH_SELFTESTS" &&
	grep -l -E '^[^#]*echo "?(oops|bug|warn)[a-z_]*( [^"]*)?"? > \$CT' ./*.sh |
	sed 's|^\./||' | tr '\n' ' ')
ksft_tmo=${DK_KSFT_TIMEOUT:-900}
# Every kselftest runs here by default (DK_KSFT_TESTS="a.sh b.sh" to pick
# some): the ones that drive locks, lifetimes and the dump path
# (stress_lifecycle, netoops_concurrent, targets_netdev, ...) and the ones
# that check formats and input validation with hundreds of processes each
# (abi_audit, netoops_auth, netoops_softdump, ...).  With the frame-pointer
# unwinder and inline KASAN (debug.config; bench/debug-guest) this kernel
# runs all of them in about the time the Debian kernels' guests take.
tests=${DK_KSFT_TESTS:-all}
# Not netoops_regs_reuse: it needs a freed task_struct handed to a new
# task within seconds, and KASAN's quarantine holds freed objects back.
# Not netconsole_diff: it compares with Debian's stock netconsole, which
# this kernel does not have (its netconsole is the project's).
if [ "$tests" = all ]; then
	tests=$(cd "$GH_SELFTESTS" && ls ./*.sh | sed 's|^\./||' |
		grep -vx -e lib_netoops.sh -e netoops_regs_reuse.sh \
			-e netconsole_diff.sh)
fi
clean= dirty=
for t in $tests; do
	case " $oopsing " in
	*" $t "*) dirty="$dirty $t" ;;
	*) clean="$clean $t" ;;
	esac
done
[ -n "$clean" ] && ksft_boot dk-ksft "$clean" "$ALL_SPLATS"
[ -n "$dirty" ] && ksft_boot dk-ksft-oops "$dirty" "$DEBUG_SPLATS" '\[netoops_crashtest\]'

# 2. crash tests (DK_CRASH_TESTS to pick some): all of them.  softlockup
# panics from the watchdog's hrtimer, in hardirq context, where the
# driver's tx poll takes the tx queue lock that it also takes with hardirqs
# on: lockdep reported that until netpoll_xmit learnt to skip a device
# whose lock the interrupted context holds and to switch lock debugging
# off once panic() has stopped the other CPUs (as panic() itself does
# before it flushes the consoles).
# ramoops, efipstore: only this kernel has pstore's multi-backend patch
# (and EFI, for efi_pstore under OVMF).
for t in ${DK_CRASH_TESTS:-$GH_CRASH_TESTS_ALL ramoops efipstore}; do
	echo "# crash-$t on $ver"
	if [ "$t" = sysrq ]; then
		"$root/tests/guest/crash-sysrq.sh" "$ver" "${DK_SYSRQ_RUNS:-1}" || true
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
