#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# crash-wedge.sh KERNEL - a panic while a NIC that carries a netoops target
# and a netconsole target is wedged: its tx queue is stopped and never
# woken.  The NIC is a virtio-net whose QEMU backend sends to a unix
# datagram socket nobody reads (-netdev dgram): after at most 10 datagrams
# QEMU takes nothing more from the tx ring, the ring fills and the guest's
# driver stops the queue for good.  Should the stop be seen before QEMU
# blocks, at most those 10 more datagrams get through.
#
# The guest floods the NIC from CPU 1 until tx queue 0 is stopped, ends the
# flood, logs 50 lines on CPU 0 (console time per line: measured, not
# asserted), then sysrq-c on CPU 0 panics.  t0 on eth0 must receive
# the dump complete; the panic's console must show netconsole waiting out
# the wedged NIC; and the guest must reset (panic=1) within CT_WEDGE_MAX_S
# (default 20) seconds of the trigger on the host's clock:
# netoops gives a target up after 4 datagrams that waited xmit_timeout_us
# (200 ms) each, netconsole after 4 lines that waited 0.5 s each.
set -euo pipefail
source "$(dirname "$0")/crash-lib.sh"
[ $# -eq 1 ] || gh_die "usage: $0 KERNEL"
export CT_MODULE=netoops_crashtest CT_BOOT_TIMEOUT=${CT_BOOT_TIMEOUT:-180}

wedge_mac=52:54:00:00:5e:09

# The host end: a unix datagram socket nobody reads.  The kernel queues at
# most net.unix.max_dgram_qlen (10) datagrams on it; then QEMU's sends
# would block, so QEMU takes nothing more from the NIC's tx ring.
sink_dir=$(mktemp -d)
python3 - "$sink_dir/sink" <<'PY' &
import os, socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1] + ".tmp")
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
while True:
    time.sleep(3600)
PY
sink_pid=$!
trap 'kill "$sink_pid" 2>/dev/null || true; wait "$sink_pid" 2>/dev/null || true; rm -rf "$sink_dir"' EXIT
gh_wait_for 10 test -S "$sink_dir/sink" || gh_die "wedge sink did not start"
export CT_QEMU_ARGS="-netdev dgram,id=wd,local.type=unix,local.path=$sink_dir/qemu,remote.type=unix,remote.path=$sink_dir/sink
	-device virtio-net-pci,netdev=wd,mac=$wedge_mac"

# wedge_probe_cost TAG: console time per line of the 50 "TAG N" lines the
# guest logged at warning level (printk timestamps: each write returns once
# the consoles, netconsole included, have the line).
wedge_probe_cost()
{
	sed -n "s/^\[ *\([0-9.]*\)\] $1 [0-9]*\$/\1/p" "$CT_DIR/serial.log" |
		awk 'NR == 1 { a = $1 } { b = $1; n++ }
		     END { if (n > 1) printf "%.1f ms", (b - a) * 1000 / (n - 1);
			   else printf "n/a" }'
}

# wedge_check: the guest reset within the bound, and the panic's console
# (host arrival times) shows netconsole waiting out the wedged NIC: 4 lines
# of about 0.5 s each before it gives the target up, so 4 consecutive gaps
# of 0.3 s or more that add up to 1.8 s or more.  Arrival times jitter by
# tens of ms on a busy host (a late line makes the next gap short), a sum
# over the four does not.
wedge_check()
{
	local waits

	echo "console time per line: $(wedge_probe_cost wedge-probe-ok) with the NIC" \
		"draining, $(wedge_probe_cost wedge-probe-stuck) with it wedged"
	waits=$(sed -n '/sysrq: Trigger a crash/,$p' "$CT_DIR/serial.ts" |
		awk 'NR > 1 { g[++n] = $1 - p } { p = $1 }
		     END { for (i = 1; i + 3 <= n; i++) {
				 s = 0; ok = 1
				 for (j = i; j <= i + 3; j++) {
					 s += g[j]; if (g[j] < 0.3) ok = 0
				 }
				 if (ok && s >= 1.8) {
					 printf "%.2f s (%.2f %.2f %.2f %.2f)", s,
						g[i], g[i+1], g[i+2], g[i+3]
					 exit
				 }
			 } }')
	if [ -z "$waits" ]; then
		echo "no 4 console waits of netconsole's 0.5 s in the panic: the NIC was not wedged"
		return 1
	fi
	echo "netconsole's 4 console waits in the panic: $waits"
	ct_reboot_check "${CT_WEDGE_MAX_S:-20}" "sysrq: Trigger a crash"
}

export CT_LOG_MODE=panic CT_EXPECT_REASON=panic CT_EXTRA_CHECK=wedge_check
export CT_EXPECT_DUMPS=1
ct_main wedge "$1" 'g_nic_up '$wedge_mac' 198.51.100.1/24 ||
	{ echo "CT-ERROR the NIC to wedge did not come up"; exit 1; }
w=$G_NIC
/sbin/ip neigh replace 198.51.100.2 lladdr 52:54:00:00:5e:0a dev "$w" nud permanent
for s in netoops netconsole; do
	d=/sys/kernel/config/$s/w1
	mkdir $d && echo "$w" > $d/dev_name && echo 198.51.100.2 > $d/remote_ip &&
		echo 6666 > $d/remote_port && echo 1 > $d/enabled ||
		{ echo "CT-ERROR $s target on $w refused"; exit 1; }
done
echo "ID wedged=$w"
echo on > /proc/sys/kernel/printk_devkmsg
probe() { i=1; while [ $i -le 50 ]; do echo "<4>$1 $i" > /dev/kmsg; i=$((i + 1)); done; }
probe wedge-probe-ok
# a send buffer that outlasts the ring (256 entries), so the ring fills
# before the sender blocks
echo 4194304 > /proc/sys/net/core/wmem_default
taskset 2 bash -c "exec 3>/dev/udp/198.51.100.2/9; while :; do printf %1400s x >&3; done" &
flood=$!
echo "wait_txq_stopped $w" > /proc/netoops_crashtest || {
	echo "CT-ERROR tx queue 0 of $w never stopped (tx_packets $(cat /sys/class/net/$w/statistics/tx_packets))"
	exit 1
}
# no transmitter left that a panic could stop holding the queue lock
kill $flood
wait $flood 2>/dev/null
echo "ID tx_packets=$(cat /sys/class/net/$w/statistics/tx_packets)"
taskset -p 1 $$ > /dev/null
probe wedge-probe-stuck
g_out_drain
taskset 1 sh -c "echo c > /proc/sysrq-trigger"'
