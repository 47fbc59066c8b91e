#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# netoops register capture against a recycled task_struct.  A process
# forked by this shell on CPU 0 oopses (panic_on_oops=0, the test-only
# netoops_crashtest module's NULL dereference) and dies; the module, which
# kept a reference on it, frees its task_struct from this shell on CPU 0,
# and processes are forked there until one of them gets it (the module
# tells); that process asks for a soft dump.  The dump must carry the
# dumper's registers (context 2), not the dead process's oops registers
# (context 1), although task pointer, CPU and age all match the oops.  The
# oops dump itself must carry context 1.
source "$(dirname "$0")"/lib_netoops.sh
source "$(dirname "$0")"/netoops_dump.inc

P=/sys/module/netoops/parameters
CT=/proc/netoops_crashtest

nl_require_root
nl_require_cmd ip od taskset
nl_require_module netoops
nl_require_crashtest
oldpoo=$(cat /proc/sys/kernel/panic_on_oops)
trap 'rc=$?; echo "$oldpoo" > /proc/sys/kernel/panic_on_oops; nl_cleanup "$rc"' EXIT

nl_setup_veth
nl_require_netpoll_dev
nl_configfs

NL_PORT=6667
nl_listen_start 6667 "$NL_TMP/rx" dir
t="rr$NL_TAG"
nl_target_create netoops "$t"
nl_target_enable netoops "$t"

# This shell and its children run on CPU 0, where the oops happens and
# where its task_struct was freed.
taskset -p 1 $$ >/dev/null || nl_fail "cannot pin the test to CPU 0"
echo 0 > /proc/sys/kernel/panic_on_oops
( echo oops > $CT ) && nl_fail "the oops writer survived"
nl_wait_for 20 nd_have_dumps "$NL_TMP/rx" || nl_fail "oops dump not received"
oid=$(nd_dumps "$NL_TMP/rx" | head -n 1)
nl_wait_for 20 nd_dump_complete "$NL_TMP/rx" "$oid" ||
	nl_fail "oops dump $oid incomplete: $(nd_missing "$NL_TMP/rx" "$oid")"
[ "$(nd_reason "$NL_TMP/rx" "$oid")" = 2 ] ||
	nl_fail "first dump: reason $(nd_reason "$NL_TMP/rx" "$oid"), expected 2 (oops)"
[ "$(nd_regs_context "$NL_TMP/rx" "$oid")" = 1 ] ||
	nl_fail "oops dump: register context $(nd_regs_context "$NL_TMP/rx" "$oid"), expected 1" \
		"(oops)"

# The module frees the dead process's task_struct here, on CPU 0; then
# children are forked on CPU 0 until one of them runs in it, and that child
# sends the soft dump.  Children are forked in batches that live at the
# same time (held on a FIFO until the batch is complete), so each batch
# takes BATCH distinct task_structs off the allocator, not one recycled
# over and over.  The oops slot accepts registers for 10 s: search 8 s.
BATCH=16
fifo=$NL_TMP/barrier
mkfifo "$fifo"
exec 3<>"$fifo"		# a writer stays open: the children's reads block
start=$(date +%s)
found=0 forks=0
echo free_oops_task > $CT || nl_fail "free_oops_task refused"
while [ "$found" = 0 ] && [ $(( $(date +%s) - start )) -lt 8 ]; do
	pids=()
	for i in $(seq 1 $BATCH); do
		(
			read -r _ < "$fifo"
			echo reuses_oops_task > $CT 2>/dev/null || exit 0
			touch "$NL_TMP/found"
			echo 1 > $P/dump || touch "$NL_TMP/refused"
		) &
		pids+=($!)
	done
	forks=$((forks + BATCH))
	printf '\n%.0s' $(seq 1 $BATCH) >&3	# one line releases one child
	wait "${pids[@]}"
	[ ! -e "$NL_TMP/refused" ] || nl_fail "soft dump refused"
	[ -e "$NL_TMP/found" ] && found=$forks
done
exec 3>&-
[ "$found" -gt 0 ] ||
	nl_skip "no new task got the oopsed task's task_struct in $forks forks" \
		"($(( $(date +%s) - start )) s; e.g. KASAN's quarantine delays reuse)"
nl_log "a task among forks $((found - BATCH + 1))-$found got the oopsed task's task_struct after" \
	"$(( $(date +%s) - start )) s"

nd_more_dumps() { test "$(nd_dumps "$NL_TMP/rx" | wc -l)" -ge 2; }
nl_wait_for 20 nd_more_dumps || nl_fail "soft dump not received"
sid=$(nd_dumps "$NL_TMP/rx" | grep -vx "$oid" | head -n 1)
nl_wait_for 20 nd_dump_complete "$NL_TMP/rx" "$sid" ||
	nl_fail "soft dump $sid incomplete: $(nd_missing "$NL_TMP/rx" "$sid")"
[ "$(nd_reason "$NL_TMP/rx" "$sid")" = 7 ] ||
	nl_fail "second dump: reason $(nd_reason "$NL_TMP/rx" "$sid"), expected 7 (soft)"
ctx=$(nd_regs_context "$NL_TMP/rx" "$sid")
[ "$ctx" = 2 ] ||
	nl_fail "soft dump from the recycled task_struct carries register context $ctx, expected" \
		"2 (dumper): the dead task's oops registers were reused"
nl_log "oops dump context 1, soft dump from the recycled task_struct context 2"
exit "$KSFT_PASS"
