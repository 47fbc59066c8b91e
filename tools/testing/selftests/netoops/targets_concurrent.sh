#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# netpoll_targets under concurrency: one process flips a target between
# enabled and disabled, another creates and removes targets, a third logs
# messages as fast as it can, all for a bounded number of rounds.  The
# kernel must not warn, hang (no worker finishing a round for STALL_S, 60
# s) or crash, and afterwards the target still delivers.
source "$(dirname "$0")"/lib_netoops.sh

nl_require_root
nl_require_cmd ip
nl_require_module netconsole
trap nl_cleanup EXIT

nl_reclaim_wired
nl_setup_veth
nl_require_netpoll_dev
nl_configfs
lines=$(dmesg | wc -l)
ROUNDS=${ROUNDS:-150}

nl_listen_start 6666 "$NL_TMP/rx"
t="c$NL_TAG"
te="x$NL_TAG"
nl_target_create netconsole "$t"
nl_target_create netconsole "$te"
nl_target_set netconsole "$te" extended 1
nl_target_enable netconsole "$te"
dir=$(nl_target_dir netconsole "$t")

flipper()
{
	local i

	for i in $(seq 1 "$ROUNDS"); do
		echo 1 > "$dir/enabled" 2>/dev/null
		echo 0 > "$dir/enabled" 2>/dev/null
		echo "$i" > "$NL_TMP/flipper.at"
	done
	echo done > "$NL_TMP/flipper.done"
}
churner()
{
	local i d

	for i in $(seq 1 "$ROUNDS"); do
		d=$NL_CFS/netconsole/k$i-$NL_TAG
		mkdir "$d" && echo "$NL_DEV" > "$d/dev_name" &&
			echo 192.0.2.2 > "$d/remote_ip" && echo 1 > "$d/enabled"
		rmdir "$d"
		echo "$i" > "$NL_TMP/churner.at"
	done 2>/dev/null
	echo done > "$NL_TMP/churner.done"
}
logger_()
{
	local i

	for i in $(seq 1 $((ROUNDS * 4))); do
		echo "<6>conc $i $NL_TAG" > /dev/kmsg
		echo "$i" > "$NL_TMP/logger.at"
	done
	echo done > "$NL_TMP/logger.done"
}

start=$SECONDS
flipper & p1=$!
churner & p2=$!
logger_ & p3=$!
all_done()
{
	[ -e "$NL_TMP/flipper.done" ] && [ -e "$NL_TMP/churner.done" ] &&
		[ -e "$NL_TMP/logger.done" ]
}
# a hang is a worker that stops advancing, not a slow host
progress()
{
	cat "$NL_TMP"/*.at | tr '\n' ' '
}
STALL_S=${STALL_S:-60}
if ! nl_wait_progress "$STALL_S" all_done progress; then
	kill "$p1" "$p2" "$p3" 2>/dev/null
	nl_fail "concurrent workers made no progress for $STALL_S s (hang?); rounds done:" \
		"$(progress)"
fi
nl_log "workers done in $((SECONDS - start)) s"
wait "$p1" "$p2" "$p3" 2>/dev/null || true

# nothing left half-way
state=$(nl_target_get netconsole "$t" state)
[ "$state" = disabled ] || nl_fail "flipped target ended in state '$state'"
left=$(find "$NL_CFS/netconsole" -maxdepth 1 -name "k*-$NL_TAG" | wc -l)
[ "$left" = 0 ] || nl_fail "$left churned targets left behind"
# the always-enabled extended target got every message (netpoll_xmit
# waits for the device instead of dropping)
n=$(grep -aoE "^[0-9]+,[0-9]+,[0-9]+,[^;]*;conc [0-9]+ $NL_TAG" "$NL_TMP/rx" |
    sed 's/.*;conc \([0-9]*\) .*/\1/' | sort -un | wc -l)
nl_log "extended target: $n of $((ROUNDS * 4)) distinct messages received during the churn"
[ "$n" -ge $((ROUNDS * 4 * 9 / 10)) ] ||
	nl_fail "extended target lost more than 10% of the messages"
nl_target_enable netconsole "$t"
nl_kmsg "after-churn $NL_TAG"
nl_wait_grep "$NL_TMP/rx" "after-churn $NL_TAG" 10 || nl_fail "target dead after the churn"
nl_dmesg_clean "$lines"
exit "$KSFT_PASS"
