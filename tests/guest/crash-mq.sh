#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# crash-mq.sh KERNEL - panics on a multi-queue virtio-net NIC, one from
# each of the guest's two CPUs, and one with the panicking CPU's tx queue
# locked for good.  The NIC's backend is a multi-queue tap
# (4 queue pairs; the guest's driver uses one per CPU) in a network
# namespace this test creates, where QEMU and netoopsd run too; netoopsd
# also listens on the tap's address.  The guest's only enabled netoops
# target is on that NIC, so the dump goes out on the tx queue the stack
# picks for the panicking CPU, or on another when that one's lock is held
# for good.  Each dump must arrive complete, from the
# NIC's address.  In the second run CPU 0 floods the NIC when CPU 1 panics.
# In the third, a kthread on CPU 0 holds tx queue 1's lock (as the NIC's
# NAPI poll on CPU 0 does when it reaps queue 1's completions) when CPU 1,
# whose queue that is, panics: the dump must go out on queue 0.
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 KERNEL" >&2; exit 2; }

if [ -z "${CT_MQ_NS:-}" ]; then
	# outside: a namespace of our own, removed whatever happens
	ns=nxmq-$$
	ip netns add "$ns"
	trap 'ip netns del "$ns" 2>/dev/null || true' EXIT
	ip -n "$ns" link set lo up
	ip -n "$ns" tuntap add dev nxmq0 mode tap multi_queue
	ip -n "$ns" addr add 10.9.0.1/24 dev nxmq0
	ip -n "$ns" link set nxmq0 up
	rc=0
	CT_MQ_NS=$ns ip netns exec "$ns" "$0" "$@" || rc=$?
	exit $rc
fi

source "$(dirname "$0")/crash-lib.sh"
mq_mac=52:54:00:00:5e:0b
export CT_QEMU_ARGS="-netdev tap,id=mq,ifname=nxmq0,script=no,downscript=no,queues=4,vhost=off
	-device virtio-net-pci,netdev=mq,mq=on,vectors=10,mac=$mq_mac"
export CT_COLLECTOR_ARGS="--listen 10.9.0.1"

# mq_check: every stored dump came from the multi-queue NIC.
mq_check()
{
	local f src bad=0

	for f in "$CT_DIR"/dump-*.json; do
		src=$(python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
d = d[0] if isinstance(d, list) else d
print(d.get("src") or "")' "$f")
		echo "dump $(basename "$f"): from $src"
		case $src in 10.9.0.2*) ;; *) bad=1 ;; esac
	done
	return $bad
}

# Guest: the multi-queue NIC up, t1 on it, t0 (eth0) disabled.
mq_setup='g_nic_up '$mq_mac' 10.9.0.2/24 ||
	{ echo "CT-ERROR the multi-queue NIC did not come up"; exit 1; }
w=$G_NIC
n=$(ls -d /sys/class/net/$w/queues/tx-* | wc -l)
[ "$n" -ge 2 ] || { echo "CT-ERROR $w has $n tx queue(s)"; exit 1; }
echo "ID mq=$w txqs=$n"
for q in /sys/class/net/$w/queues/tx-*; do
	echo "ID ${q##*/} xps_cpus=$(cat $q/xps_cpus 2>/dev/null)"
done
t1=/sys/kernel/config/netoops/t1
mkdir $t1 && echo "$w" > $t1/dev_name && echo 10.9.0.1 > $t1/remote_ip &&
	cat /sys/kernel/config/netoops/t0/remote_port > $t1/remote_port &&
	echo 1 > $t1/enabled || { echo "CT-ERROR target t1 on $w refused"; exit 1; }
mkdir $t1/userfields/'"$CT_USER_KEY"' &&
	cat /sys/kernel/config/netoops/t0/userfields/'"$CT_USER_KEY"'/value \
	> $t1/userfields/'"$CT_USER_KEY"'/value ||
	{ echo "CT-ERROR no user field on t1"; exit 1; }
echo 0 > /sys/kernel/config/netoops/t0/enabled
mq_sent() { [ "$(cat /sys/class/net/$w/statistics/tx_packets)" -ge "$1" ]; }'

export CT_LOG_MODE=panic CT_EXPECT_REASON=panic CT_EXPECT_DUMPS=1
export CT_EXTRA_CHECK=mq_check
fail=0
ct_main mq-cpu0 "$1" "$mq_setup
g_out_drain
taskset 1 sh -c 'echo c > /proc/sysrq-trigger'" || fail=1
# CPU 0 keeps transmitting on the NIC (its own tx queue) while CPU 1
# panics and stops it, possibly holding that queue's lock.
ct_main mq-cpu1-busy "$1" "$mq_setup
taskset 1 bash -c 'exec 3>/dev/udp/10.9.0.1/9; while :; do printf %1400s x >&3; done' 2>/dev/null &
g_wait_for 10 mq_sent 1000 ||
	{ echo 'CT-ERROR the flood on CPU 0 did not start'; exit 1; }
g_out_drain
taskset 2 sh -c 'echo c > /proc/sysrq-trigger'" || fail=1
export CT_MODULE=netoops_crashtest
ct_main mq-txq1-held "$1" "$mq_setup
[ \"\$(cat /sys/class/net/\$w/queues/tx-1/xps_cpus)\" = 2 ] ||
	{ echo 'CT-ERROR tx-1 is not the queue of CPU 1'; exit 1; }
echo \"hold_txq_forever \$w 1 0\" > /proc/netoops_crashtest ||
	{ echo 'CT-ERROR hold_txq_forever refused'; exit 1; }
g_out_drain
taskset 2 sh -c 'echo c > /proc/sysrq-trigger'" || fail=1
exit $fail
