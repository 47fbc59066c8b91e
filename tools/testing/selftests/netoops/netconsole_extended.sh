#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# netconsole, extended format: "<level>,<seq>,<ts_usec>,<flags>;<text>",
# the release prepend, and the ncfrag=<offset>/<total> fragmentation of a
# message that does not fit in one 1000-byte datagram (reassembled here and
# compared byte for byte).  A plain target alongside gets the plain format.
source "$(dirname "$0")"/lib_netoops.sh

nl_require_root
nl_require_cmd ip
nl_require_module netconsole
trap nl_cleanup EXIT

nl_reclaim_wired
nl_setup_veth
nl_require_netpoll_dev
nl_configfs

rx=$NL_TMP/rx		# one file per datagram
nl_listen_start 6666 "$rx" dir
nl_listen_start 6667 "$NL_TMP/plain"
te="e$NL_TAG"
tp="p$NL_TAG"
nl_target_create netconsole "$te"
nl_target_set netconsole "$te" extended 1 || nl_fail "extended=1 refused"
nl_target_enable netconsole "$te"
nl_target_create netconsole "$tp" dev_name="$NL_DEV" local_ip="$NL_LOCAL_IP" \
	remote_ip="$NL_REMOTE_IP" remote_port=6667 remote_mac="$NL_REMOTE_MAC"
nl_target_enable netconsole "$tp"

# find_dgram TEXT: print the datagram file holding TEXT (first match).
find_dgram()
{
	grep -lF -- "$1" "$rx"/*.bin 2>/dev/null | head -n 1
}
has_dgram() { [ -n "$(find_dgram "$1")" ]; }

# 1. short message
nl_kmsg "ext-short $NL_TAG"
nl_wait_for 10 has_dgram "ext-short $NL_TAG" || nl_fail "extended message not received"
f=$(find_dgram "ext-short $NL_TAG")
grep -qE "^[0-9]+,[0-9]+,[0-9]+,[^;]*;ext-short $NL_TAG\$" "$f" ||
	nl_fail "bad extended datagram: $(head -c 200 "$f")"
nl_wait_grep "$NL_TMP/plain" "ext-short $NL_TAG" 10 || nl_fail "plain target missed the message"
! grep -qE '^[0-9]+,[0-9]+,[0-9]+,[^;]*;ext-short' "$NL_TMP/plain" ||
	nl_fail "plain target got the extended format"

# 2. release prepend (only while disabled; refused with EBUSY while enabled)
nl_expect_refused netconsole "$te" release 1 EBUSY
nl_target_disable netconsole "$te"
nl_target_set netconsole "$te" release 1 || nl_fail "release=1 refused"
nl_target_enable netconsole "$te"
nl_kmsg "ext-rel $NL_TAG"
nl_wait_for 10 has_dgram "ext-rel $NL_TAG" || nl_fail "release message not received"
f=$(find_dgram "ext-rel $NL_TAG")
rel=$(uname -r)
rel_ere=$(printf '%s' "$rel" | sed 's/[.+]/\\&/g')
rel_bre=$(printf '%s' "$rel" | sed 's/[.]/\\&/g')
grep -qE "^$rel_ere,[0-9]*,[0-9]+,[0-9]+,[^;]*;ext-rel $NL_TAG\$" "$f" ||
	nl_fail "release not prepended: $(head -c 200 "$f")"

# 3. fragmentation: ~960 bytes of text + release + header > 1000
pat=""
for i in $(seq 0 94); do pat="$pat$(printf '%010d' "$i")"; done
msg="ext-frag $NL_TAG $pat"
nl_kmsg "$msg"
printf '%s\n' "$msg" > "$NL_TMP/expected"
explen=$(stat -c %s "$NL_TMP/expected")
nl_wait_for 10 has_dgram "ext-frag $NL_TAG" || nl_fail "fragmented message not received"
f=$(find_dgram "ext-frag $NL_TAG")
hdr=$(head -c 120 "$f" | sed -n '1s/;.*//p')
seq=$(echo "$hdr" | cut -d, -f3)
[[ "$hdr" =~ ,ncfrag=0/([0-9]+)$ ]] || nl_fail "first fragment header without ncfrag=0/N: '$hdr'"
total=${BASH_REMATCH[1]}
[ "$total" = "$explen" ] || nl_fail "ncfrag total $total, expected $explen"
nl_wait_for 10 nl_ncfrag_rebuild "$rx" "$rel_bre," "$seq" "$total" "$NL_TMP/rebuilt" ||
	nl_fail "fragments do not rebuild the message (seq $seq, total $total)"
cmp -s "$NL_TMP/expected" "$NL_TMP/rebuilt" || nl_fail "reassembled text differs from the message"
nl_log "fragmented message: $total bytes in" \
	"$(grep -l ",[0-9]*,$seq,.*ncfrag=" "$rx"/*.bin | wc -l) datagrams, reassembled intact"
exit "$KSFT_PASS"
