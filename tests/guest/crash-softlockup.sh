#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# crash-softlockup.sh KERNEL - a soft lockup (60 s spin with preemption off) with
# softlockup_panic=1 and watchdog_thresh=1: the watchdog panics from its
# timer interrupt after ~2 s.  Both are set just before the spin, not on
# the command line: a 2 s threshold from boot on took a busy host's CPU
# onlining (the boot CPU waiting for the other under TCG) for a soft
# lockup, and the guest panicked before its test began.
set -euo pipefail
source "$(dirname "$0")/crash-lib.sh"
[ $# -eq 1 ] || gh_die "usage: $0 KERNEL"
export CT_MODULE=netoops_crashtest CT_LOG_MODE=panic CT_EXPECT_REASON=panic
ct_main softlockup "$1" 'echo 1 > /proc/sys/kernel/softlockup_panic &&
	echo 1 > /proc/sys/kernel/watchdog_thresh ||
	{ echo "CT-ERROR cannot set the soft lockup watchdog"; exit 1; }
echo softlockup 60 > /proc/netoops_crashtest'
