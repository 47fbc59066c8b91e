#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# netoops as a pstore backend: a non-fatal oops (panic_on_oops=0, in a
# kthread of the test-only netoops_crashtest module) is sent to the target
# with reason oops and the oopsing context's registers, and is kept in RAM:
# it shows up in a mounted /sys/fs/pstore as dmesg-netoops-<id> holding the
# oops, and removing the file erases it (it is gone after a remount).
source "$(dirname "$0")"/lib_netoops.sh
source "$(dirname "$0")"/netoops_dump.inc

PS=/sys/fs/pstore
CT=/proc/netoops_crashtest

nl_require_root
nl_require_cmd ip od
nl_require_module netoops
nl_require_crashtest
[ "$(cat /sys/module/pstore/parameters/backend 2>/dev/null)" = netoops ] ||
	nl_skip "pstore backend is '$(cat /sys/module/pstore/parameters/backend 2>/dev/null)'," \
		"not netoops (boot with pstore.backend=netoops)"
ps_mounted() { grep -q " $PS pstore " /proc/mounts; }
trap 'nl_cleanup; [ "$mounted" = 1 ] && ps_mounted && umount $PS || true' EXIT
mounted=0

nl_setup_veth
nl_require_netpoll_dev
nl_configfs

NL_PORT=6667
nl_listen_start 6667 "$NL_TMP/rx" dir
t="ps$NL_TAG"
nl_target_create netoops "$t"
nl_target_enable netoops "$t"

[ -d $PS ] || nl_skip "$PS missing"
if ! ps_mounted; then
	mount -t pstore none $PS || nl_skip "cannot mount pstore"
	mounted=1
fi
before=$(ls $PS | grep -c '^dmesg-netoops-' || true)

echo 0 > /proc/sys/kernel/panic_on_oops
marker="pstore-marker-$NL_TAG"
nl_kmsg "$marker"
echo oops_kthread > $CT || nl_fail "crash trigger refused"

# The network copy.
nl_wait_for 20 nd_have_dumps "$NL_TMP/rx" || nl_fail "oops dump not received"
id=$(nd_dumps "$NL_TMP/rx" | head -n 1)
nl_wait_for 20 nd_dump_complete "$NL_TMP/rx" "$id" ||
	nl_fail "oops dump $id incomplete: $(nd_missing "$NL_TMP/rx" "$id")"
for f in $(nd_dump_files "$NL_TMP/rx" "$id"); do
	nd_check_pkt "$f"
done
[ "$(nd_reason "$NL_TMP/rx" "$id")" = 2 ] ||
	nl_fail "reason $(nd_reason "$NL_TMP/rx" "$id"), expected 2 (oops)"
[ "$(nd_regs_context "$NL_TMP/rx" "$id")" = 1 ] ||
	nl_fail "registers not from the oopsing context (context" \
		"$(nd_regs_context "$NL_TMP/rx" "$id"))"

# The RAM copy, through pstore (re-read at mount time).
umount $PS
mount -t pstore none $PS || nl_fail "cannot remount pstore"
mounted=1
rec=$(grep -l "$marker" $PS/dmesg-netoops-* 2>/dev/null | head -n 1 || true)
[ -n "$rec" ] ||
	nl_fail "no dmesg-netoops-* record with the marker in $PS ($(ls $PS | tr '\n' ' '))"
grep -q 'ct_deref_null' "$rec" || nl_fail "$rec does not hold the oops backtrace"
nl_log "$rec: $(stat -c %s "$rec") bytes ($before records before the oops)"
rm "$rec" || nl_fail "cannot erase $rec"
umount $PS
mount -t pstore none $PS || nl_fail "cannot remount pstore"
[ ! -e "$rec" ] || nl_fail "$rec is back after erase and remount"
exit "$KSFT_PASS"
