#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# netoops soft dump: writing 1 to /sys/module/netoops/parameters/dump sends
# the current kernel log (reason soft) to an enabled target on a private
# wire; the dump arrives complete, well formed, with this run's marker in
# the payload, the target's user fields and the boot id that was set.
# Also checks that bad user-field keys and values and bad boot ids are
# refused with the old value kept, and that the counters move.
source "$(dirname "$0")"/lib_netoops.sh
source "$(dirname "$0")"/netoops_dump.inc

P=/sys/module/netoops/parameters

nl_require_root
nl_require_cmd ip od
nl_require_module netoops
trap nl_cleanup EXIT

nl_setup_veth
nl_require_netpoll_dev
nl_configfs

NL_PORT=6667
nl_listen_start 6667 "$NL_TMP/rx" dir
t="sd$NL_TAG"
nl_target_create netoops "$t"
uf=$(nl_target_dir netoops "$t")/userfields
[ -d "$uf" ] || nl_fail "no userfields group in the target"

# User fields: valid and invalid keys, too long value refused, old kept.
mkdir "$uf/site" || nl_fail "mkdir userfields/site refused"
echo "rack-$NL_TAG" > "$uf/site/value" || nl_fail "cannot set site"
mkdir "$uf/ticket.queue_2" || nl_fail "mkdir userfields/ticket.queue_2 refused"
echo "q$NL_TAG" > "$uf/ticket.queue_2/value"
for bad in 'has space' 'slash\' 'x@y' "$(printf 'k%.0s' $(seq 1 64))"; do
	if mkdir "$uf/$bad" 2>/dev/null; then
		rmdir "$uf/$bad"
		nl_fail "user field key '$bad' accepted"
	fi
done
long=$(printf 'v%.0s' $(seq 1 256))
got=$(nl_write_result "$uf/site/value" "$long")
[ "$got" = EINVAL ] || nl_fail "256-byte value: expected EINVAL, got $got"
[ "$(cat "$uf/site/value")" = "rack-$NL_TAG" ] ||
	nl_fail "refused value changed the field to '$(cat "$uf/site/value")'"
ok255=$(printf 'w%.0s' $(seq 1 255))
got=$(nl_write_result "$uf/ticket.queue_2/value" "$ok255")
[ "$got" = ok ] || nl_fail "255-byte value refused ($got)"

# Boot id: UUID and 32-hex forms accepted, anything else refused.
bid=$(cat /proc/sys/kernel/random/uuid)
echo "$bid" > "$P/boot_id" || nl_fail "boot_id: UUID refused"
[ "$(cat "$P/boot_id")" = "$bid" ] || nl_fail "boot_id reads $(cat "$P/boot_id"), set $bid"
for bad in 123 "$bid-0" "zz${bid:2}"; do
	got=$(nl_write_result "$P/boot_id" "$bad")
	[ "$got" = EINVAL ] || nl_fail "boot_id '$bad': expected EINVAL, got $got"
done
[ "$(cat "$P/boot_id")" = "$bid" ] || nl_fail "refused boot_id changed the value"
hex=$(echo "$bid" | tr -d '-')
echo "$hex" > "$P/boot_id" || nl_fail "boot_id: 32 hex digits refused"

nl_target_enable netoops "$t"
packets0=$(sed -n 's/^packets //p' "$P/stats")
marker="softdump-marker-$NL_TAG"
nl_kmsg "$marker"
echo 1 > "$P/dump" || nl_fail "soft dump refused"

nl_wait_for 20 nd_have_dumps "$NL_TMP/rx" || nl_fail "no datagram received"
id=$(nd_dumps "$NL_TMP/rx" | head -n 1)
nl_wait_for 20 nd_dump_complete "$NL_TMP/rx" "$id" ||
	nl_fail "dump $id incomplete: $(nd_missing "$NL_TMP/rx" "$id")"
for f in $(nd_dump_files "$NL_TMP/rx" "$id"); do
	nd_check_pkt "$f"
done
[ "$(nd_reason "$NL_TMP/rx" "$id")" = 7 ] ||
	nl_fail "reason $(nd_reason "$NL_TMP/rx" "$id"), expected 7 (soft)"
[ "$(nd_regs_context "$NL_TMP/rx" "$id")" = 2 ] ||
	nl_fail "soft dump registers not tagged as the dumper's (context 2)"
[ "$(nd_boot_id "$NL_TMP/rx" "$id")" = "$hex" ] ||
	nl_fail "boot id $(nd_boot_id "$NL_TMP/rx" "$id"), expected $hex"
v=$(nd_user "$NL_TMP/rx" "$id" site) || nl_fail "user field 'site' missing"
[ "$v" = "rack-$NL_TAG" ] || nl_fail "user field site='$v'"
v=$(nd_user "$NL_TMP/rx" "$id" ticket.queue_2) ||
	nl_fail "user field 'ticket.queue_2' missing"
[ "$v" = "$ok255" ] || nl_fail "user field ticket.queue_2 has ${#v} bytes, expected 255"
nd_payload "$NL_TMP/rx" "$id" "$NL_TMP/payload"
grep -qF "$marker" "$NL_TMP/payload" || nl_fail "marker not in the payload"
nl_log "dump $id: $(nd_dump_files "$NL_TMP/rx" "$id" | wc -l) datagrams, payload" \
	"$(stat -c %s "$NL_TMP/payload") bytes, marker found"

packets1=$(sed -n 's/^packets //p' "$P/stats")
n=$(nd_dump_files "$NL_TMP/rx" "$id" | wc -l)
[ $((packets1 - packets0)) -ge "$n" ] ||
	nl_fail "stats: packets went $packets0 -> $packets1 for $n datagrams"

# A field removed is no longer sent.
rmdir "$uf/site" || nl_fail "rmdir userfields/site refused"
nl_listen_stop
nl_listen_start 6667 "$NL_TMP/rx2" dir
echo 1 > "$P/dump" || nl_fail "second soft dump refused"
nl_wait_for 20 nd_have_dumps "$NL_TMP/rx2" || nl_fail "second dump not received"
id2=$(nd_dumps "$NL_TMP/rx2" | head -n 1)
nl_wait_for 20 nd_dump_complete "$NL_TMP/rx2" "$id2" ||
	nl_fail "second dump incomplete: $(nd_missing "$NL_TMP/rx2" "$id2")"
[ "$id2" != "$id" ] || nl_fail "two dumps share the dump id $id"
if nd_user "$NL_TMP/rx2" "$id2" site >/dev/null; then
	nl_fail "removed user field 'site' still sent"
fi
nl_target_disable netoops "$t"
rmdir "$uf/ticket.queue_2"
exit "$KSFT_PASS"
