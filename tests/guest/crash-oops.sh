#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# crash-oops.sh KERNEL - oops in process context with panic_on_oops=0 (netoops_crashtest
# 'oops' in a child shell): the machine lives on, /sys/fs/pstore lists the
# record, and the dump (reason oops) carries the registers of the oopsing
# context, equal to those the oops printed on the console.
set -euo pipefail
source "$(dirname "$0")/crash-lib.sh"
[ $# -eq 1 ] || gh_die "usage: $0 KERNEL"
export CT_MODULE=netoops_crashtest CT_LOG_MODE=oops CT_SURVIVES=1
export CT_EXPECT_DUMPS=1 CT_EXPECT_REASON=oops CT_EXPECT_REGS=oops
ct_main oops "$1" 'sysctl -w kernel.panic_on_oops=0; sh -c "echo oops > /proc/netoops_crashtest"; echo "oops writer exit $?"'
