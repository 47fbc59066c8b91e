#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# crash-sysrq.sh KERNEL [COUNT] - COUNT (default 10) fresh guests of KERNEL
# each crashed with `echo c > /proc/sysrq-trigger`.  Each dump must arrive
# complete with reason panic, hold every console line printed before the
# dump, and carry the release, hostname, boot id and user field the guest
# set, and the guest must reset within 20 s of the trigger.
# CT_MODE=netconsole (or netconsole-ext) runs the same crash through
# Debian's netconsole instead, to check the harness itself.
set -euo pipefail
source "$(dirname "$0")/crash-lib.sh"

[ $# -ge 1 ] || gh_die "usage: $0 KERNEL [COUNT]"
ver=$(gh_resolve_kernel "$1")
count=${2:-10}
mode=${CT_MODE:-netoops}
ct_prepare "$ver"

miss=$(ct_missing "$ver" "$mode")
if [ -n "$miss" ]; then
	gh_record "crash/$ver/sysrq-c" fail "missing: $miss"
	exit 1
fi

# sysrq_reset: the panic ends in a reset within 20 s of the trigger, on the
# host's clock (panic=1; a hang shows here, not only as a timeout).
sysrq_reset()
{
	ct_reboot_check 20 "sysrq: Trigger a crash"
}

export CT_LOG_MODE=panic CT_EXPECT_REASON=panic CT_EXTRA_CHECK=sysrq_reset
fail=0 lost=0
for i in $(seq 1 "$count"); do
	name=crash-sysrq-$mode-$ver-$i
	if ! ct_report "crash/$ver/sysrq-c/$mode/$i" "$GH_OUT/runs/$name" \
		ct_crash_run "$ver" "$name" "$mode" "echo c > /proc/sysrq-trigger"; then
		fail=1
		lost=$((lost + 1))
	fi
done
echo "# sysrq-c on $ver via $mode: $((count - lost))/$count runs complete"
exit $fail
