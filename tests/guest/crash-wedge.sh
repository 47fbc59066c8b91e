#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# crash-wedge.sh KERNEL - a panic while a NIC that carries a netoops target
# and a netconsole target is wedged: its tx queue is stopped and never
# woken.  The NIC is a virtio-net whose QEMU backend is a TCP connection to
# a host socket that never reads (-netdev socket): once the socket buffers
# are full, QEMU stops taking datagrams from the tx ring, the ring fills and
# the guest's driver stops the queue for good.
#
# The guest floods the NIC until tx queue 0 is stopped, then sysrq-c on
# CPU 0 panics.  t0 on eth0 must receive the dump complete, and the guest
# must get to "Rebooting in 1 seconds" within CT_WEDGE_MAX_S (default 10)
# seconds of the trigger on its own clock: netoops gives a target up after
# 4 datagrams that waited xmit_timeout_us (200 ms) each, netconsole after 4
# lines that waited 0.5 s each.
set -euo pipefail
source "$(dirname "$0")/crash-lib.sh"
[ $# -eq 1 ] || gh_die "usage: $0 KERNEL"
export CT_MODULE=netoops_crashtest CT_BOOT_TIMEOUT=${CT_BOOT_TIMEOUT:-180}

wedge_mac=52:54:00:00:5e:09

# The host end: a listening socket with a small receive buffer that never
# accepts or reads.  The kernel completes QEMU's connect() from the backlog.
sink_dir=$(mktemp -d)
python3 - "$sink_dir/port" <<'PY' &
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
s.bind(("127.0.0.1", 0))
s.listen(1)
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write("%d\n" % s.getsockname()[1])
import os
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
while True:
    time.sleep(3600)
PY
sink_pid=$!
trap 'kill "$sink_pid" 2>/dev/null || true; wait "$sink_pid" 2>/dev/null || true; rm -rf "$sink_dir"' EXIT
gh_wait_for 10 test -s "$sink_dir/port" || gh_die "wedge sink did not start"
export CT_QEMU_ARGS="-netdev socket,id=wd,connect=127.0.0.1:$(cat "$sink_dir/port")
	-device virtio-net-pci,netdev=wd,mac=$wedge_mac"

wedge_check()
{
	ct_reboot_check "${CT_WEDGE_MAX_S:-10}" "sysrq: Trigger a crash"
}

export CT_LOG_MODE=panic CT_EXPECT_REASON=panic CT_EXTRA_CHECK=wedge_check
export CT_EXPECT_DUMPS=1
ct_main wedge "$1" 'w=""
for d in /sys/class/net/*; do
	[ "$(cat $d/address)" = "'$wedge_mac'" ] && w=${d##*/}
done
[ -n "$w" ] || { echo "CT-ERROR no NIC with the wedge MAC"; exit 1; }
echo 1 > /proc/sys/net/ipv6/conf/$w/disable_ipv6
ip link set "$w" up
ip addr add 198.51.100.1/24 dev "$w"
g_wait_for 10 g__carrier "$w" || { echo "CT-ERROR no carrier on $w"; exit 1; }
/sbin/ip neigh replace 198.51.100.2 lladdr 52:54:00:00:5e:0a dev "$w" nud permanent
for s in netoops netconsole; do
	d=/sys/kernel/config/$s/w1
	mkdir $d && echo "$w" > $d/dev_name && echo 198.51.100.2 > $d/remote_ip &&
		echo 6666 > $d/remote_port && echo 1 > $d/enabled ||
		{ echo "CT-ERROR $s target on $w refused"; exit 1; }
done
echo "ID wedged=$w"
# a send buffer that outlasts the ring (256 entries), so the ring fills
# before the sender blocks
echo 4194304 > /proc/sys/net/core/wmem_default
bash -c "exec 3>/dev/udp/198.51.100.2/9; while :; do printf %1400s x >&3; done" &
flood=$!
echo "wait_txq_stopped $w" > /proc/netoops_crashtest || {
	echo "CT-ERROR tx queue 0 of $w never stopped (tx_packets $(cat /sys/class/net/$w/statistics/tx_packets))"
	exit 1
}
kill $flood
echo "ID tx_packets=$(cat /sys/class/net/$w/statistics/tx_packets)"
taskset 1 sh -c "echo c > /proc/sysrq-trigger"'
