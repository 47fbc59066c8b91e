#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# netoops when the device does not take a datagram in time.  A kthread on
# CPU 1 (the test-only netoops_crashtest module's hold_txq_forever) holds
# the lock of the target NIC's tx queue, and a soft dump is asked for on
# CPU 0 with xmit_timeout_us at 5 ms.  A lock held by a CPU that runs is
# waited for, never counted as stuck: no datagram goes out, those that
# wait out their budget count in stats "errors" and "timeouts", and
# "locked" does not move.  After the holder stops, a dump goes out with no
# error and arrives complete.
source "$(dirname "$0")"/lib_netoops.sh
source "$(dirname "$0")"/netoops_dump.inc

P=/sys/module/netoops/parameters
CT=/proc/netoops_crashtest

nl_require_root
nl_require_cmd ip od taskset
nl_require_module netoops
nl_require_crashtest
[ "$(nproc)" -ge 2 ] || nl_skip "needs 2 CPUs: the lock holder runs on CPU 1"
xmit0=$(cat $P/xmit_timeout_us)
trap 'rc=$?; echo release > $CT; echo "$xmit0" > $P/xmit_timeout_us; nl_cleanup "$rc"' EXIT

nl_setup_veth
nl_require_netpoll_dev
nl_configfs
nl_require_one_txq

NL_PORT=6667
nl_listen_start 6667 "$NL_TMP/rx" dir
t="to$NL_TAG"
nl_target_create netoops "$t"
nl_target_enable netoops "$t"
taskset -p 1 $$ >/dev/null || nl_fail "cannot pin the test to CPU 0"

stat_of() { sed -n "s/^$1 //p" $P/stats; }
e0=$(stat_of errors) t0=$(stat_of timeouts) l0=$(stat_of locked)
p0=$(stat_of packets)

echo 5000 > $P/xmit_timeout_us
echo "hold_txq_forever $NL_DEV 0 1" > $CT || nl_fail "hold_txq_forever refused"
# no target got a datagram: the write fails (ENOTCONN)
if echo 1 > $P/dump 2>/dev/null; then
	nl_fail "the soft dump reported sent while the lock was held"
fi
echo release > $CT
echo "$xmit0" > $P/xmit_timeout_us

e1=$(stat_of errors) t1=$(stat_of timeouts) l1=$(stat_of locked)
p1=$(stat_of packets)
nl_log "with the lock held: errors $e0 -> $e1, timeouts $t0 -> $t1, locked $l0 -> $l1"
nl_log "stats: $(tr '\n' ' ' < $P/stats)"
[ "$t1" -gt "$t0" ] || nl_fail "no datagram timed out while the lock was held"
[ "$p1" = "$p0" ] ||
	nl_fail "packets $p0 -> $p1: a datagram went out while the lock was held"
[ $((e1 - e0)) = $((t1 - t0)) ] ||
	nl_fail "errors went up by $((e1 - e0)), timeouts by $((t1 - t0)):" \
		"every error was to be a timeout"
[ "$l1" = "$l0" ] ||
	nl_fail "a lock held by a running CPU was counted as stuck (locked $l0 -> $l1)"

# The holder is gone: a dump goes out with no error, and arrives complete.
# The first dump's datagrams may still come (netpoll's backlog): the
# second is a dump not seen before it that arrives complete.
before=$(nd_dumps "$NL_TMP/rx")
echo 1 > $P/dump || nl_fail "soft dump refused after the release"
[ "$(stat_of errors)" = "$e1" ] ||
	nl_fail "errors $e1 -> $(stat_of errors) with the lock free"
new_dumps() { nd_dumps "$NL_TMP/rx" | grep -vxF "${before:-none}" || true; }
new_complete()
{
	local i

	for i in $(new_dumps); do
		nd_dump_complete "$NL_TMP/rx" "$i" && return 0
	done
	return 1
}
if ! nl_wait_for 20 new_complete; then
	for i in $(new_dumps); do
		nl_log "dump $i: $(nd_missing "$NL_TMP/rx" "$i")"
	done
	nl_fail "no complete dump after the release"
fi
nl_log "a dump after the release arrived complete; errors unchanged"
exit "$KSFT_PASS"
