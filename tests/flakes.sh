#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/flakes.sh - flake hunt, called by `make check-flakes`: the
# boot-patching check, the kselftests and the crash tests, FLAKE_ROUNDS
# times on each Debian kernel.
#
#   1. build the collector once, and the modules and initramfs once per
#      kernel, in out/flakes/ (build-VER, initramfs-VER, tools)
#   2. run the rounds: round i of kernel VER runs in its own GH_OUT,
#      out/flakes/VER/round-i (results.tsv, runs/, one log per test), which
#      reuses the built modules and initramfs (GH_PREPARED=1)
#   3. print a table, one row per test name as recorded by gh_record: runs,
#      passed, failed, skipped, pass rate (passed / (passed + failed)); then
#      each failure with its round's directory and reason, and the line
#      "flakes: N passed, N failed".  Exits 1 when any test failed once.
#
# Environment:
#   FLAKE_ROUNDS  rounds per kernel (default 10)
#   FLAKE_TESTS   tests to run (default: every one), among "ksft" and
#                 "crash-T" for T in GH_CRASH_TESTS_ALL (tests/guest/lib.sh,
#                 the crash tests of run-all.sh)
#   FLAKE_LOAD    N host CPU hogs kept busy for the whole run (default 0);
#                 killed on exit, on INT (^C) or TERM (which takes effect
#                 when the running test script returns)
#   FLAKE_OUT     where it all goes (default out/flakes)
#   GH_KERNELS    kernels (default: the newest 6.12 and 6.1 in /boot)
#   GH_SYSRQ_RUNS guests per crash-sysrq run (default 10), GH_KSFT_TESTS
#                 (run-kselftests.sh)
#   FLAKE_LEDGER  a file to which every result is appended as
#                 "date<TAB>commit<TAB>hogs<TAB>name<TAB>status<TAB>reason",
#                 so that rounds run at different times add up
#
# tests/flakes.sh --table LEDGER [COMMIT...] prints the table of a ledger,
# of the rows of the given commits only when some are given.
set -euo pipefail

# table FILE...: the table of results files ("name<TAB>status<TAB>reason");
# exit 1 when a test failed or none passed.
table()
{
	awk -F'\t' '
	!($1 in runs) { order[++n] = $1; if (length($1) > w) w = length($1) }
	{ runs[$1]++; cnt[$1, $2]++ }
	$2 == "fail" {
		dir = FILENAME; sub(/\/results\.tsv$/, "", dir)
		if (dir == "" || dir == "-")
			fails[++nf] = sprintf("%s: %s", $1, $3)
		else
			fails[++nf] = sprintf("%s in %s: %s", $1, dir, $3)
	}
	END {
		if (w < 4) w = 4
		printf "%-*s %5s %6s %6s %7s %9s\n", w, "test", "runs", "passed", "failed", "skipped", "pass rate"
		for (i = 1; i <= n; i++) {
			t = order[i]; p = cnt[t, "pass"]; f = cnt[t, "fail"]
			rate = p + f ? sprintf("%.0f%%", 100 * p / (p + f)) : "-"
			printf "%-*s %5d %6d %6d %7d %9s\n", w, t, runs[t], p, f, cnt[t, "skip"], rate
			tp += p; tf += f
		}
		for (i = 1; i <= nf; i++) {
			if (i == 1) print "# failures (test in evidence directory: reason):"
			print "# " fails[i]
		}
		printf "flakes: %d passed, %d failed\n", tp, tf
		exit !(tf == 0 && tp > 0)
	}' "$@"
}

if [ "${1:-}" = --table ]; then
	[ $# -ge 2 ] || { echo "usage: $0 --table LEDGER [COMMIT...]" >&2; exit 2; }
	ledger=$2
	shift 2
	# the date, commit and load after the reason
	awk -F'\t' -v want="$*" '
		BEGIN { nw = split(want, w, " "); for (i = 1; i <= nw; i++) ok[w[i]] = 1 }
		NF >= 5 && (nw == 0 || $2 in ok) {
			printf "%s\t%s\t%s (%s, %s, %s hogs)\n", $4, $5, $6, $1, $2, $3
		}' "$ledger" | table
	exit
fi
here=$(cd "$(dirname "$0")" && pwd)
base=${FLAKE_OUT:-$here/../out/flakes}
mkdir -p "$base"
base=$(cd "$base" && pwd)	# absolute: the builds run make -C
export GH_OUT=$base
source "$here/guest/lib.sh"

rounds=${FLAKE_ROUNDS:-10}
all="boot-patching ksft $(printf ' crash-%s' $GH_CRASH_TESTS_ALL)"
tests=${FLAKE_TESTS:-$all}
for t in $tests; do
	case " $all " in
	*" $t "*) ;;
	*) gh_die "FLAKE_TESTS: unknown test '$t' (one of: $all)" ;;
	esac
done

hogs=()
stop_hogs()
{
	[ ${#hogs[@]} -gt 0 ] || return 0
	kill "${hogs[@]}" 2>/dev/null || true
	wait "${hogs[@]}" 2>/dev/null || true
	hogs=()
}
trap stop_hogs EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
for _ in $(seq 1 "${FLAKE_LOAD:-0}"); do
	sha1sum /dev/zero >/dev/null &
	hogs+=($!)
done

kernels=()
for k in ${GH_KERNELS:-$(gh_kernels)}; do
	kernels+=("$(gh_resolve_kernel "$k")")
done
[ ${#kernels[@]} -gt 0 ] || gh_die "no Debian kernel in /boot (make deps)"
echo "# flake hunt: $rounds rounds of '$tests' on ${kernels[*]}," \
	"${FLAKE_LOAD:-0} CPU hogs, out dir $base"

# Built once; a failure here is one result, the tests then fail by name.
export GH_RESULTS=$base/results.tsv
: > "$GH_RESULTS"
results=("$GH_RESULTS")
gh_build_tools || gh_record tools/build fail "$base/tools-build.log"
export GH_TOOLS=$base/tools GH_PREPARED=1
for ver in "${kernels[@]}"; do
	gh_build_modules "$ver" ||
		gh_record "modules/$ver/build" fail "$base/build-$ver/build.log"
	gh_initramfs "$ver" >/dev/null
done

for ver in "${kernels[@]}"; do
	for i in $(seq 1 "$rounds"); do
		export GH_OUT=$base/$ver/round-$i GH_RESULTS=$base/$ver/round-$i/results.tsv
		rm -rf "$GH_OUT"
		mkdir -p "$GH_OUT"
		ln -s "$base/build-$ver" "$base/initramfs-$ver" "$GH_OUT/"
		: > "$GH_RESULTS"
		results+=("$GH_RESULTS")
		for t in $tests; do
			log=$GH_OUT/$t.log
			before=$(grep -c $'\tfail\t' "$GH_RESULTS" || true)
			rc=0
			case $t in
			boot-patching)	"$here/guest/boot-patching.sh" "$ver" ;;
			ksft)		"$here/guest/run-kselftests.sh" "$ver" ;;
			crash-sysrq)	"$here/guest/crash-sysrq.sh" "$ver" "${GH_SYSRQ_RUNS:-10}" ;;
			*)		"$here/guest/$t.sh" "$ver" ;;
			esac > "$log" 2>&1 || rc=$?
			# a script that dies before recording must not go unseen
			if [ "$rc" != 0 ] &&
			   [ "$(grep -c $'\tfail\t' "$GH_RESULTS" || true)" = "$before" ]; then
				gh_record "$t/$ver/exit" fail "exit $rc with no failure recorded: $log" >/dev/null
			fi
			echo "# $ver round $i/$rounds: $t exit $rc ($log)"
		done
	done
done

if [ -n "${FLAKE_LEDGER:-}" ]; then
	commit=$(git -C "$here/.." describe --always --dirty 2>/dev/null || echo unknown)
	for f in "${results[@]}"; do
		awk -v pre="$(date -u +%FT%TZ)	$commit	${FLAKE_LOAD:-0}" \
			'{ print pre "\t" $0 }' "$f"
	done >> "$FLAKE_LEDGER"
fi
table "${results[@]}"
