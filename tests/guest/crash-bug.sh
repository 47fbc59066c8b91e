#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# crash-bug.sh KERNEL - BUG() with oops=panic (panic_on_oops): oops dump, then panic.
set -euo pipefail
source "$(dirname "$0")/crash-lib.sh"
[ $# -eq 1 ] || gh_die "usage: $0 KERNEL"
export CT_MODULE=netoops_crashtest CT_LOG_MODE=panic CT_EXPECT_REASON=panic
export CT_EXPECT_REGS=oops
ct_main bug "$1" 'echo bug > /proc/netoops_crashtest' 'oops=panic'
