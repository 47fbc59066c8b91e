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
#              has sent what its driver took (netpoll_xmit_pool_flush(), by
#              the driver's byte queue limits accounting).  Before, what was
#              still in the NIC's ring died with the reset: here the whole
#              panic dump, every time.  panic=1 came to the same when the
#              panicking CPU's delay loop was miscalibrated (TCG: "4.08
#              BogoMIPS" for CPU 1 made the second a millisecond) and QEMU
#              had not run its transmit yet.  Skipped, with the reason, when
#              the guest kernel's virtio_net keeps no such accounting (6.1):
#              netoops cannot tell there when the NIC sent a datagram.
set -euo pipefail
source "$(dirname "$0")/crash-lib.sh"
[ $# -eq 1 ] || gh_die "usage: $0 KERNEL"
export CT_MODULE=netoops_crashtest CT_LOG_MODE=panic CT_EXPECT_REASON=panic
export CT_EXPECT_REGS=oops

# bug_virtio_bql VER: succeeds unless VER's virtio_net module is known to
# keep no byte queue limits accounting (it does not call dql_completed()).
bug_virtio_bql()
{
	local ver=$1 f

	f=$(find "$(gh_modroot "$ver")/lib/modules/$ver" -name 'virtio_net.ko*' \
		2>/dev/null | head -n 1)
	[ -n "$f" ] || return 0		# built in, or not found: run the test
	case $f in
	*.xz)	xz -dc "$f" ;;
	*.zst)	zstd -qdc "$f" ;;
	*)	cat "$f" ;;
	esac > "$GH_OUT/virtio_net-$ver.ko"
	# not "nm | grep -q": grep would leave early, and pipefail fail nm
	nm -u "$GH_OUT/virtio_net-$ver.ko" > "$GH_OUT/virtio_net-$ver.syms" &&
		grep -qw dql_completed "$GH_OUT/virtio_net-$ver.syms"
}

fail=0
ct_main bug "$1" 'echo bug > /proc/netoops_crashtest' 'oops=panic' || fail=1

ver=$(gh_resolve_kernel "$1")
if bug_virtio_bql "$ver"; then
	CT_EXPECT_DUMPS=2 CT_NETOOPS_PARAMS=fec_k=0 \
	CT_QEMU_ARGS="-global virtio-net-pci.tx=timer -global virtio-net-pci.x-txtimer=20000000" \
		ct_main bug-reset "$1" \
		'echo bug > /proc/netoops_crashtest' \
		'oops=panic panic=-1' || fail=1
else
	gh_record "crash/$ver/bug-reset" skip \
		"virtio_net of $ver keeps no byte queue limits accounting: netoops cannot tell when the NIC sent a datagram"
fi
exit $fail
