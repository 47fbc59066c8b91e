#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# netoops under configuration churn: while soft dumps run back to back, one
# target is enabled and disabled over and over and user fields are created
# and removed on the other.  The kernel must not complain (no warning, BUG,
# oops or hung task), no datagram may fail (stats "errors"), every datagram
# the kernel counted as sent must arrive, and a dump after the churn must
# arrive complete and well formed.
#
# xmit_timeout_us is raised to its maximum (10 s) for the test: a datagram
# that waits out its budget for a device whose completions QEMU has not
# yet processed counts as an error too, and on a busy host the default
# 200 ms was once not enough (errors 0 -> 1 in a CI run at load 12).
# That measures the host, not the churn; a hang is caught by the progress
# checks below.
source "$(dirname "$0")"/lib_netoops.sh
source "$(dirname "$0")"/netoops_dump.inc

P=/sys/module/netoops/parameters
CYCLES=${NETOOPS_CONCURRENT_CYCLES:-15}
MAX_DUMPS=300

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
xmit0=$(cat $P/xmit_timeout_us)
trap 'rc=$?; stop_bg; echo "$xmit0" > $P/xmit_timeout_us; nl_cleanup "$rc"' EXIT
echo 10000000 > $P/xmit_timeout_us

stat_of() { sed -n "s/^$1 //p" $P/stats; }
received() { ls "$NL_TMP/rx" "$NL_TMP/rx2" | grep -c '\.bin$' || true; }
# Datagrams the receiving namespace dropped because a socket was full
# (udp_sink competes for the guest's one CPU with back-to-back dumps).
rcvbuf_errors() { nl_udp_rcvbuf_errors; }

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
fl=$(nl_target_dir netoops "$flappy")/enabled
p0=$(stat_of packets)
e0=$(stat_of errors)
t0=$(stat_of timeouts)
d0=$(stat_of dumps)
rb0=$(rcvbuf_errors)

t0=$(date +%s)
( i=0
  while [ ! -e "$NL_TMP/churn.done" ] && [ $i -lt $MAX_DUMPS ]; do
	i=$((i + 1))
	echo 1 > $P/dump 2>/dev/null || true
  done; echo "$i" > "$NL_TMP/dumper.done" ) &
dumper=$!
( for i in $(seq 1 "$CYCLES"); do
	echo 1 > "$fl" 2>/dev/null || true
	mkdir "$uf/k$i" 2>/dev/null && echo "v$i" > "$uf/k$i/value"
	echo 0 > "$fl" 2>/dev/null || true
	rmdir "$uf/k$i" 2>/dev/null || true
	echo "$i" > "$NL_TMP/churn.at"
  done; echo "$CYCLES" > "$NL_TMP/churn.done" ) &
churn=$!
# a hang is churn that stops advancing, not a slow host
nl_wait_progress 60 "test -e $NL_TMP/churn.done" "cat $NL_TMP/churn.at" ||
	nl_fail "configuration churn stopped at cycle $(cat "$NL_TMP/churn.at" 2>/dev/null) of" \
		"$CYCLES for 60 s (hang?)"
nl_wait_for 60 test -e "$NL_TMP/dumper.done" || nl_fail "soft dumps did not stop"
wait $dumper $churn 2>/dev/null || true
dumper="" churn=""
ndumps=$(( $(stat_of dumps) - d0 ))
nl_log "$(cat "$NL_TMP/dumper.done") soft dumps ($ndumps sent) during $CYCLES enable/disable" \
	"cycles, $(( $(date +%s) - t0 )) s"
[ "$ndumps" -ge 2 ] || nl_fail "only $ndumps dumps were sent during the churn"
[ "$(stat_of errors)" = "$e0" ] ||
	nl_fail "datagrams failed during the churn: errors $e0 -> $(stat_of errors)," \
		"of which timeouts $t0 -> $(stat_of timeouts)"
sent=$(( $(stat_of packets) - p0 ))
arrived() { echo $(( $(received) + $(rcvbuf_errors) - rb0 )); }
all_arrived() { test "$(arrived)" -ge "$sent"; }
nl_wait_for 30 all_arrived ||
	nl_fail "$sent datagrams sent, $(received) received," \
		"$(( $(rcvbuf_errors) - rb0 )) dropped by full sockets; peer:" \
		"$(nl_ns_exec ip -s link show "$NL_PEER" | tr '\n' ' ')"
[ "$(arrived)" = "$sent" ] || nl_fail "$sent datagrams sent, $(arrived) arrived (duplicates?)"
nl_log "$sent datagrams sent: $(received) received, $(( $(rcvbuf_errors) - rb0 )) dropped by the" \
	"receiving socket (full)"

# A dump after the churn, checked in full.
nl_listen_stop
nl_listen_start 6667 "$NL_TMP/final" dir
echo 1 > $P/dump || nl_fail "final soft dump refused"
nl_wait_for 20 nd_have_dumps "$NL_TMP/final" || nl_fail "final dump not received"
id=$(nd_dumps "$NL_TMP/final" | head -n 1)
nl_wait_for 20 nd_dump_complete "$NL_TMP/final" "$id" ||
	nl_fail "final dump incomplete: $(nd_missing "$NL_TMP/final" "$id")"
for f in $(nd_dump_files "$NL_TMP/final" "$id"); do
	nd_check_pkt "$f"
done
nl_dmesg_clean "$since"
exit "$KSFT_PASS"
