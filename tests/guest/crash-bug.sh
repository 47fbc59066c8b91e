#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# crash-bug.sh KERNEL - BUG() with oops=panic (panic_on_oops): oops dump, then
# panic.  Two guests:
#
#   bug        as deployed (panic=1: the reset comes a second after the
#              panic dump)
#   bug-reset  panic=-1: the reset comes right after the panic dump; the
#              NIC sends 20 ms after it is kicked (QEMU's timer transmit,
#              where it usually takes a few ms, more on a loaded host); no
#              parity (fec_k=0) makes up for a lost datagram.  Each dump
#              must arrive complete: a crash dump returns only once the NIC
#              has sent what its driver took (netpoll_xmit_pool_flush(): by
#              the driver's byte queue limits accounting, and by the driver
#              letting go of the last skb, which 6.1's virtio_net, without
#              byte queue limits, needs).  Before, what was still in the
#              NIC's ring died with the reset: here the whole panic dump,
#              every time.  panic=1 came to the same when the panicking
#              CPU's delay loop was miscalibrated (TCG: "4.08 BogoMIPS" for
#              CPU 1 made the second a millisecond) and QEMU had not run its
#              transmit yet.
set -euo pipefail
source "$(dirname "$0")/crash-lib.sh"
[ $# -eq 1 ] || gh_die "usage: $0 KERNEL"
export CT_MODULE=netoops_crashtest CT_LOG_MODE=panic CT_EXPECT_REASON=panic
export CT_EXPECT_REGS=oops

fail=0
ct_main bug "$1" 'echo bug > /proc/netoops_crashtest' 'oops=panic' || fail=1

CT_EXPECT_DUMPS=2 CT_NETOOPS_PARAMS=fec_k=0 \
CT_QEMU_ARGS="-global virtio-net-pci.tx=timer -global virtio-net-pci.x-txtimer=20000000" \
	ct_main bug-reset "$1" \
	'echo bug > /proc/netoops_crashtest' \
	'oops=panic panic=-1' || fail=1
exit $fail
