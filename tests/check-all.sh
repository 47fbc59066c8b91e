#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/check-all.sh - the guest half of `make check`: the Debian kernels'
# guests (tests/guest/run-all.sh) and the debug kernel's run
# (tests/debug-kernel/run.sh) side by side.  A guest is one QEMU/TCG
# thread and the harness runs one guest at a time, so on two cores the
# two runs take little more than the longer one alone.  The Debian run
# prints as it goes; the debug run's output (out/check-debug.log) is
# printed when both have ended.  Exit 0 only if both passed.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1

# Both runs snapshot the collector and the selftest helpers: build them
# once, before, so that two makes never work in one build directory.
make -s -C tools/netoops || exit 1
make -s -C tools/testing/selftests/netoops >/dev/null || exit 1

mkdir -p out
log=out/check-debug.log
start=$(date +%s)
tests/debug-kernel/run.sh > "$log" 2>&1 &
dpid=$!
trap 'trap - INT TERM; kill 0' INT TERM

tests/guest/run-all.sh
g=$?
echo "# Debian kernels done after $(( $(date +%s) - start )) s; waiting for the debug kernel's run"
wait "$dpid"
d=$?
echo "# ---- debug kernel (tests/debug-kernel/run.sh, log $log) ----"
cat "$log"
echo "check: Debian kernels exit $g, debug kernel exit $d, $(( $(date +%s) - start )) s"
[ "$g" = 0 ] && [ "$d" = 0 ]
