#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# crash-txlock.sh KERNEL - a crash while a tx queue lock of a target's NIC
# is held where it will never be released.  Two netoops targets: t0 on eth0
# (to the collector) and t1 on a wired NIC whose tx queue 0 lock the
# test-only netoops_crashtest module holds:
#
#   stopped   a kthread on CPU 1 holds it 50 ms, frees it 1 ms, again (a
#             busy transmitter); sysrq-c on CPU 0 panics and stops CPU 1
#   held      the same, never freeing it
#   noowner   the same, the lock taken without writing the queue's owner
#             (a holder stopped between the two): only trying the lock
#             tells it is held
#   oops      a kthread on CPU 0 oopses holding it, with BHs disabled as
#             a transmit path would: the OOPS dump runs on the CPU that
#             holds the lock, then the kernel panics ("Fatal exception in
#             interrupt") and the PANIC dump runs there too
#
# Each dump must reach t0 complete, and the guest must reset (panic=1)
# within CT_TXLOCK_MAX_S (default 20) seconds of the trigger on the host's
# clock; before netoops checked the locks, the driver's tx poll spun on the
# lock forever.
set -euo pipefail
source "$(dirname "$0")/crash-lib.sh"
[ $# -eq 1 ] || gh_die "usage: $0 KERNEL"
export CT_MODULE=netoops_crashtest CT_BOOT_TIMEOUT=${CT_BOOT_TIMEOUT:-180}

# Guest shell: bring the first wired NIC up and point target t1 at it.
# (nothing but the dump is to be sent there: its lock may stay held)
second_target='g_nic_up "$(cut -d" " -f1 /etc/netoops-wire)" 192.0.2.1/24 ||
	{ echo "CT-ERROR the wired NIC did not come up"; exit 1; }
w=$G_NIC
t1=/sys/kernel/config/netoops/t1
mkdir $t1 && echo "$w" > $t1/dev_name && echo 192.0.2.2 > $t1/remote_ip &&
	echo 6666 > $t1/remote_port && echo 1 > $t1/enabled ||
	{ echo "CT-ERROR target t1 on $w refused"; exit 1; }
echo "ID wired=$w"'

# txlock_reboot_check: the guest reset within the bound.
txlock_reboot_check()
{
	ct_reboot_check "${CT_TXLOCK_MAX_S:-20}" \
		"sysrq: Trigger a crash|netoops_crashtest: trigger 'oops_holding_txq'"
}

fail=0
export CT_LOG_MODE=panic CT_EXPECT_REASON=panic CT_EXTRA_CHECK=txlock_reboot_check
export CT_EXPECT_DUMPS=1
ct_main txlock-stopped "$1" "$second_target
echo \"hold_txq \$w\" > /proc/netoops_crashtest || { echo 'CT-ERROR hold_txq refused'; exit 1; }
g_out_drain
taskset 1 sh -c 'echo c > /proc/sysrq-trigger'" || fail=1

ct_main txlock-held "$1" "$second_target
echo \"hold_txq_forever \$w\" > /proc/netoops_crashtest || { echo 'CT-ERROR hold_txq_forever refused'; exit 1; }
g_out_drain
taskset 1 sh -c 'echo c > /proc/sysrq-trigger'" || fail=1

ct_main txlock-noowner "$1" "$second_target
echo \"hold_txq_noowner \$w\" > /proc/netoops_crashtest || { echo 'CT-ERROR hold_txq_noowner refused'; exit 1; }
g_out_drain
taskset 1 sh -c 'echo c > /proc/sysrq-trigger'" || fail=1

export CT_EXPECT_DUMPS=2
ct_main txlock-oops "$1" "$second_target
sysctl -w kernel.panic_on_oops=0
g_out_drain
taskset 1 sh -c \"echo 'oops_holding_txq \$w' > /proc/netoops_crashtest\"" || fail=1
exit $fail
