#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# netoops one-shot mode: with oneshot=1, three oopses in a row (kthreads of
# the test-only netoops_crashtest module, panic_on_oops=0) send exactly one
# dump and count two as skipped; soft dumps still go out; writing 1 to
# "rearm" lets the next oops through again.
source "$(dirname "$0")"/lib_netoops.sh
source "$(dirname "$0")"/netoops_dump.inc

P=/sys/module/netoops/parameters
CT=/proc/netoops_crashtest

nl_require_root
nl_require_cmd ip od
nl_require_module netoops
nl_require_crashtest
trap 'rc=$?; echo 0 > $P/oneshot; nl_cleanup "$rc"' EXIT

nl_setup_veth
nl_require_netpoll_dev
nl_configfs

NL_PORT=6667
nl_listen_start 6667 "$NL_TMP/rx" dir
t="os$NL_TAG"
nl_target_create netoops "$t"
nl_target_enable netoops "$t"

skipped() { sed -n 's/^skipped //p' $P/stats; }
# nd_reasons: "reason" of every dump received so far, one per line.
reasons() {
	local id
	for id in $(nd_dumps "$NL_TMP/rx"); do
		nd_reason "$NL_TMP/rx" "$id"
		echo
	done
}
# A soft dump is a barrier: it is sent after whatever came before it, on
# the same path, so once it is complete everything earlier has arrived.
# soft_dumps_above N: more than N soft dumps (reason 7) received so far.
soft_dumps_above() {
	test "$(reasons | grep -c '^7$' || true)" -gt "$1"
}
barrier() {
	local n
	n=$(reasons | grep -c '^7$' || true)
	echo 1 > $P/dump || nl_fail "soft dump refused"
	nl_wait_for 20 soft_dumps_above "$n" ||
		nl_fail "soft dump (barrier) not received"
	for id in $(nd_dumps "$NL_TMP/rx"); do
		nl_wait_for 20 nd_dump_complete "$NL_TMP/rx" "$id" ||
			nl_fail "dump $id incomplete: $(nd_missing "$NL_TMP/rx" "$id")"
	done
}

echo 0 > /proc/sys/kernel/panic_on_oops
echo 1 > $P/oneshot
echo 1 > $P/rearm
s0=$(skipped)
echo "oops_kthread 3" > $CT || nl_fail "crash trigger refused"
[ "$(skipped)" = $((s0 + 2)) ] ||
	nl_fail "skipped went $s0 -> $(skipped) for 3 oopses in one-shot mode"
barrier
oopses=$(reasons | grep -c '^2$' || true)
[ "$oopses" = 1 ] || nl_fail "$oopses oops dumps received in one-shot mode, expected 1"

echo 1 > $P/rearm
echo "oops_kthread 1" > $CT || nl_fail "crash trigger refused"
barrier
oopses=$(reasons | grep -c '^2$' || true)
[ "$oopses" = 2 ] || nl_fail "$oopses oops dumps after rearm, expected 2"
nl_log "one-shot: 4 oopses, 2 sent, $(( $(skipped) - s0 )) skipped"
exit "$KSFT_PASS"
