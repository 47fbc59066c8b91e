#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# netoops under configuration churn: while soft dumps run back to back, one
# target is enabled and disabled over and over and user fields are created
# and removed on another.  The kernel must not complain (no warning, BUG,
# oops or hung task), every dump the steady target received must be
# complete, and a final dump must still arrive complete.
source "$(dirname "$0")"/lib_netoops.sh
source "$(dirname "$0")"/netoops_dump.inc

P=/sys/module/netoops/parameters
ROUNDS=${NETOOPS_CONCURRENT_ROUNDS:-12}

nl_require_root
nl_require_cmd ip od
nl_require_module netoops
dumper="" churn=""
stop_bg()
{
	local p

	for p in $dumper $churn; do
		kill "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
}
trap 'rc=$?; stop_bg; (exit $rc); nl_cleanup' EXIT

nl_setup_veth
nl_require_netpoll_dev
nl_configfs
since=$(dmesg | wc -l)

nl_listen_start 6667 "$NL_TMP/rx" dir
nl_listen_start 6668 "$NL_TMP/rx2" dir
steady="cs$NL_TAG"
flappy="cf$NL_TAG"
NL_PORT=6667 nl_target_create netoops "$steady"
NL_PORT=6668 nl_target_create netoops "$flappy"
nl_target_enable netoops "$steady"
uf=$(nl_target_dir netoops "$steady")/userfields

( for i in $(seq 1 "$ROUNDS"); do
	echo 1 > $P/dump 2>/dev/null || true
  done; echo done > "$NL_TMP/dumper.done" ) &
dumper=$!
( i=0
  while [ ! -e "$NL_TMP/dumper.done" ] && [ $i -lt 2000 ]; do
	i=$((i + 1))
	echo 1 > "$(nl_target_dir netoops "$flappy")/enabled" 2>/dev/null || true
	mkdir "$uf/k$i" 2>/dev/null && echo "v$i" > "$uf/k$i/value"
	echo 0 > "$(nl_target_dir netoops "$flappy")/enabled" 2>/dev/null || true
	rmdir "$uf/k$i" 2>/dev/null || true
  done; echo "$i" > "$NL_TMP/churn.done" ) &
churn=$!
nl_wait_for 240 test -e "$NL_TMP/dumper.done" || nl_fail "soft dumps did not finish in 240 s"
nl_wait_for 30 test -e "$NL_TMP/churn.done" || nl_fail "configuration churn did not stop"
wait $dumper $churn 2>/dev/null || true
dumper="" churn=""
nl_log "$ROUNDS soft dumps during $(cat "$NL_TMP/churn.done") enable/disable cycles"

# Final dump after the churn, then every dump of the steady target must be
# complete (the final one is the barrier: the same path, sent last).
echo 1 > $P/dump || nl_fail "final soft dump refused"
nl_wait_for 30 test "$(nd_dumps "$NL_TMP/rx" | wc -l)" -ge $((ROUNDS + 1)) ||
	nl_fail "steady target got $(nd_dumps "$NL_TMP/rx" | wc -l) dumps, expected $((ROUNDS + 1))"
n=0
for id in $(nd_dumps "$NL_TMP/rx"); do
	nl_wait_for 20 nd_dump_complete "$NL_TMP/rx" "$id" ||
		nl_fail "dump $id to the steady target incomplete"
	n=$((n + 1))
done
[ "$n" -ge $((ROUNDS + 1)) ] ||
	nl_fail "steady target got $n dumps, expected $((ROUNDS + 1))"
nl_dmesg_clean "$since"
nl_log "steady target: $n complete dumps; flapping target: $(nd_dumps "$NL_TMP/rx2" | wc -l) dumps"
exit "$KSFT_PASS"
