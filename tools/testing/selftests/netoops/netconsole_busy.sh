#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# netconsole while another CPU keeps the target NIC's tx queue busy.  A
# kthread on CPU 1 (the test-only netoops_crashtest module's hold_txq)
# holds the queue's lock for 50 ms at a time with 1 ms gaps, as a busy
# transmitter would, while the test writes 20 messages on CPU 0.  A
# message that the device did not take within netconsole's budget (20 ms,
# none after 4 such in a row) is left to netpoll's tx work, not dropped:
# once the holder stops, every message must arrive, in the order written.
source "$(dirname "$0")"/lib_netoops.sh

CT=/proc/netoops_crashtest
N=20

nl_require_root
nl_require_cmd ip taskset
nl_require_module netconsole
nl_require_crashtest
[ "$(nproc)" -ge 2 ] || nl_skip "needs 2 CPUs: the lock holder runs on CPU 1"
trap 'rc=$?; echo release > $CT; nl_cleanup "$rc"' EXIT

nl_reclaim_wired
nl_setup_veth
nl_require_netpoll_dev
nl_configfs
nl_require_one_txq

NL_PORT=6666
nl_listen_start 6666 "$NL_TMP/rx"
t="nb$NL_TAG"
nl_target_create netconsole "$t"
nl_target_enable netconsole "$t"
taskset -p 1 $$ >/dev/null || nl_fail "cannot pin the test to CPU 0"

echo "hold_txq $NL_DEV 0 1" > $CT || nl_fail "hold_txq refused"
for i in $(seq 1 $N); do
	nl_kmsg "busy $NL_TAG $i"
done
echo release > $CT || nl_fail "release refused"

received() { grep -o "busy $NL_TAG [0-9]*" "$NL_TMP/rx" | cut -d' ' -f3; }
all_in() { [ "$(received | wc -l)" -ge $N ]; }
if ! nl_wait_for 20 all_in; then
	missing=""
	for i in $(seq 1 $N); do
		received | grep -qx "$i" || missing="$missing $i"
	done
	nl_fail "$(received | wc -l) of $N messages arrived; missing:$missing"
fi
[ "$(received | tr '\n' ' ')" = "$(seq 1 $N | tr '\n' ' ')" ] ||
	nl_fail "out of order or repeated: $(received | tr '\n' ' ')"
nl_log "$N of $N messages arrived in order, written while a busy CPU held the tx queue"
exit "$KSFT_PASS"
