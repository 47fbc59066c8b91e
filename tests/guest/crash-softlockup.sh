#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# crash-softlockup.sh KERNEL - a soft lockup (60 s spin with preemption off) with
# softlockup_panic=1 and watchdog_thresh=1: the watchdog panics from its
# timer interrupt after ~2 s.
set -euo pipefail
source "$(dirname "$0")/crash-lib.sh"
[ $# -eq 1 ] || gh_die "usage: $0 KERNEL"
export CT_MODULE=netoops_crashtest CT_LOG_MODE=panic CT_EXPECT_REASON=panic
ct_main softlockup "$1" 'echo softlockup 60 > /proc/netoops_crashtest' 'softlockup_panic=1 watchdog_thresh=1'
