#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# crash-nomem.sh KERNEL - a panic with atomic memory exhausted.  The guest
# first logs about 70 KB of random text (debug level: not on the console),
# so the dump needs far more datagrams than netpoll keeps in its own skb
# pool (32); then netoops_crashtest takes every page and skb GFP_ATOMIC can
# still get, starts counting the skbs allocated on its CPU (a kprobe on
# __alloc_skb) and panics.  The dump must arrive complete, and the count,
# printed by a kmsg dumper that runs after netoops', must be 0: netoops
# sends from the skbs each target preallocated when it was enabled.
# (Exhaustion alone proves little: each skb the driver frees is reused by
# the next allocation.)
set -euo pipefail
source "$(dirname "$0")/crash-lib.sh"
[ $# -eq 1 ] || gh_die "usage: $0 KERNEL"

# nomem_alloc_check: the crash path allocated no skb.
nomem_alloc_check()
{
	local n

	n=$(sed -n 's/.*skb allocations on the panicking CPU during the dump: \([0-9]*\).*/\1/p' \
		"$CT_DIR/serial.log" | head -n 1)
	if [ -z "$n" ]; then
		echo "no allocation count on the console"
		return 1
	fi
	echo "skbs allocated on the panicking CPU during the dump: $n (must be 0)"
	[ "$n" -eq 0 ]
}

export CT_MODULE=netoops_crashtest CT_LOG_MODE=panic CT_EXPECT_REASON=panic
export CT_EXPECT_DUMPS=1 CT_EXTRA_CHECK=nomem_alloc_check
ct_main nomem "$1" 'g_fill_log 100 nomem-fill || { echo "CT-ERROR cannot fill the log"; exit 1; }
echo panic_nomem > /proc/netoops_crashtest'
