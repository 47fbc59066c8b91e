#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# crash-oneshot.sh KERNEL - one-shot: with netoops.oneshot=1, five oopses in a row
# (five kthreads, panic_on_oops=0) send exactly one dump, and the console
# shows that the five oopses did happen.
set -euo pipefail
source "$(dirname "$0")/crash-lib.sh"
[ $# -eq 1 ] || gh_die "usage: $0 KERNEL"
export CT_MODULE=netoops_crashtest CT_LOG_MODE=oops CT_SURVIVES=1
export CT_EXPECT_DUMPS=1 CT_EXPECT_REASON=oops CT_NETOOPS_PARAMS=oneshot=1
export CT_MIN_OOPSES=5
ct_main oneshot "$1" 'sysctl -w kernel.panic_on_oops=0; echo oops_kthread 5 > /proc/netoops_crashtest; echo "oops_kthread exit $?"'
