#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# crash-softirq.sh KERNEL - NULL dereference in a timer callback (softirq): the oops
# panics ("Fatal exception in interrupt"); the dumps must hold the whole
# console log up to the panic and the oopsing context's registers.
set -euo pipefail
source "$(dirname "$0")/crash-lib.sh"
[ $# -eq 1 ] || gh_die "usage: $0 KERNEL"
export CT_MODULE=netoops_crashtest CT_LOG_MODE=panic CT_EXPECT_REASON=panic
export CT_EXPECT_REGS=oops
ct_main softirq "$1" 'sysctl -w kernel.panic_on_oops=0; echo oops_softirq > /proc/netoops_crashtest; sleep 5'
