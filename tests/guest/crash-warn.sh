#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# crash-warn.sh KERNEL - WARN() with panic_on_warn=1: a panic without an oops.
set -euo pipefail
source "$(dirname "$0")/crash-lib.sh"
[ $# -eq 1 ] || gh_die "usage: $0 KERNEL"
export CT_MODULE=netoops_crashtest CT_LOG_MODE=panic CT_EXPECT_REASON=panic
ct_main warn "$1" 'echo warn > /proc/netoops_crashtest' 'panic_on_warn=1'
