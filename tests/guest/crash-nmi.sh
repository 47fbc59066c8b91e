#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# crash-nmi.sh KERNEL - a panic in NMI context, as the hard-lockup
# detector's would be (TCG emulates no PMU, so the detector itself cannot
# run in these guests).  From CPU 1, netoops_crashtest arms an NMI handler,
# makes CPU 0 spin with interrupts off (as in a hard lockup) and sends it
# an NMI; the handler panics there.  CPU 1 returns to user space with
# interrupts on, so panic() stops it with an IPI.  (Were CPU 0 to hold a
# lock CPU 1 spins on with interrupts off, panic() would need x86's NMI
# stop, which registers a handler from NMI context: lockdep reports that
# against the kernel, not netoops.)  netoops then sends the dump from NMI
# context: the dump must arrive complete and the guest must reboot
# (panic=1) rather than hang until the harness' timeout.  "Rebooting in" is
# not on the console: printk defers consoles in NMI context, and no
# interrupt comes to flush.
set -euo pipefail
source "$(dirname "$0")/crash-lib.sh"
[ $# -eq 1 ] || gh_die "usage: $0 KERNEL"

nmi_check()
{
	grep -q "Kernel panic - not syncing: netoops_crashtest: requested panic in NMI context" \
		"$CT_DIR/serial.log" || {
		echo "the panic did not come from the NMI handler"
		return 1
	}
	grep -q "exc_nmi" "$CT_DIR/serial.log" || {
		echo "no NMI frame in the panic's backtrace"
		return 1
	}
	echo "panic in NMI context; the guest rebooted by itself"
}

export CT_MODULE=netoops_crashtest CT_LOG_MODE=panic CT_EXPECT_REASON=panic
export CT_EXPECT_DUMPS=1 CT_EXTRA_CHECK=nmi_check
ct_main nmi "$1" 'taskset 2 sh -c "echo panic_nmi > /proc/netoops_crashtest" ||
	{ echo "CT-ERROR panic_nmi refused"; exit 1; }
# the panic comes on CPU 0; nothing left to do here until it does
while :; do sleep 1; done'
