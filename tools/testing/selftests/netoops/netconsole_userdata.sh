#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# netconsole userdata: userdata/<key>/value lines (" key=value") follow the
# text of extended messages, change while the target is enabled, go away
# with their directory, are counted in ncfrag fragmentation, and keep
# upstream's limits (name 53 bytes, value 200 bytes with its newline,
# 16 keys).
source "$(dirname "$0")"/lib_netoops.sh

nl_require_root
nl_require_cmd ip
nl_require_module netconsole

UD=""
ud_cleanup()
{
	local rc=$?

	set +e
	[ -n "$UD" ] && find "$UD" -mindepth 1 -maxdepth 1 -type d -exec rmdir {} + 2>/dev/null
	nl_cleanup "$rc"
}
trap ud_cleanup EXIT

nl_reclaim_wired
nl_setup_veth
nl_require_netpoll_dev
nl_configfs

rx=$NL_TMP/rx
nl_listen_start 6666 "$rx" dir
t="u$NL_TAG"
nl_target_create netconsole "$t"
UD=$(nl_target_dir netconsole "$t")/userdata
[ -d "$UD" ] || nl_fail "no userdata directory in the target"
nl_target_set netconsole "$t" extended 1 || nl_fail "extended=1 refused"
mkdir "$UD/k1" || nl_fail "mkdir userdata/k1 refused"
echo "v1-$NL_TAG" > "$UD/k1/value"
mkdir "$UD/empty" || nl_fail "mkdir userdata/empty refused"
nl_target_enable netconsole "$t"

find_dgram() { grep -lF -- "$1" "$rx"/*.bin 2>/dev/null | head -n 1; }
has_dgram() { [ -n "$(find_dgram "$1")" ]; }

# expect_lines TEXT LINE...: the datagram holding TEXT has exactly the
# extended text line then LINE... (the userdata)
expect_lines()
{
	local text=$1 f

	shift
	nl_wait_for 10 has_dgram "$text" || nl_fail "'$text' not received"
	f=$(find_dgram "$text")
	printf '%s\n' "$@" > "$NL_TMP/want"
	tail -n +2 "$f" > "$NL_TMP/got"
	cmp -s "$NL_TMP/want" "$NL_TMP/got" ||
		nl_fail "userdata after '$text': got '$(cat "$NL_TMP/got")', want" \
			"'$(cat "$NL_TMP/want")'"
}

nl_kmsg "ud-1 $NL_TAG"
expect_lines "ud-1 $NL_TAG" " k1=v1-$NL_TAG"

# value changes while enabled; an empty value is not sent
echo "v2-$NL_TAG" > "$UD/k1/value" || nl_fail "changing a value while enabled refused"
echo "e-$NL_TAG" > "$UD/empty/value"
nl_kmsg "ud-2 $NL_TAG"
expect_lines "ud-2 $NL_TAG" " k1=v2-$NL_TAG" " empty=e-$NL_TAG"
[ "$(cat "$UD/k1/value")" = "v2-$NL_TAG" ] || nl_fail "value reads back '$(cat "$UD/k1/value")'"

rmdir "$UD/k1" || nl_fail "rmdir userdata/k1 refused"
nl_kmsg "ud-3 $NL_TAG"
expect_lines "ud-3 $NL_TAG" " empty=e-$NL_TAG"

# limits
long=$(printf 'n%.0s' $(seq 1 54))
if mkdir "$UD/$long" 2>/dev/null; then nl_fail "54-byte key accepted"; fi
mkdir "$UD/$(printf 'n%.0s' $(seq 1 53))" || nl_fail "53-byte key refused"
rmdir "$UD/$(printf 'n%.0s' $(seq 1 53))"
# upstream's value limits, counted on the write with its newline: over 200
# bytes is refused (EMSGSIZE, old value kept); 200 bytes is stored cut to
# 199 and answered E2BIG; 199 bytes is stored without its newline
v200=$(printf 'v%.0s' $(seq 1 200))
got=$(nl_write_result "$UD/empty/value" "$v200")
[ "$got" = EMSGSIZE ] || nl_fail "201-byte write: expected EMSGSIZE, got $got"
[ "$(cat "$UD/empty/value")" = "e-$NL_TAG" ] || nl_fail "refused value changed the old one"
got=$(nl_write_result "$UD/empty/value" "${v200:0:199}")
[ "$got" = E2BIG ] || nl_fail "200-byte write: expected E2BIG, got $got"
[ "$(cat "$UD/empty/value")" = "${v200:0:199}" ] ||
	nl_fail "200-byte write: value reads back $(wc -c < "$UD/empty/value") bytes, not the" \
		"first 199"
got=$(nl_write_result "$UD/empty/value" "${v200:0:198}")
[ "$got" = ok ] || nl_fail "199-byte write: expected ok, got $got"
[ "$(cat "$UD/empty/value")" = "${v200:0:198}" ] ||
	nl_fail "199-byte write: value does not read back"
for i in $(seq 2 16); do
	mkdir "$UD/k$i" || nl_fail "key $i of 16 refused"
done
if mkdir "$UD/k17" 2>/dev/null; then nl_fail "17th key accepted"; fi
for i in $(seq 2 16); do rmdir "$UD/k$i"; done
big="b-$NL_TAG-$(printf 'x%.0s' $(seq 1 100))"
echo "$big" > "$UD/empty/value"

# a message + userdata over 1000 bytes (text alone fits: printk keeps at
# most ~976 bytes of a line) is fragmented over both
pat=""
for i in $(seq 0 89); do pat="$pat$(printf '%010d' "$i")"; done
msg="ud-frag $NL_TAG $pat"
nl_kmsg "$msg"
printf '%s\n %s\n' "$msg" "empty=$big" > "$NL_TMP/expected"
explen=$(stat -c %s "$NL_TMP/expected")
nl_wait_for 10 has_dgram "ud-frag $NL_TAG" || nl_fail "fragmented message not received"
f=$(find_dgram "ud-frag $NL_TAG")
hdr=$(head -c 120 "$f" | sed -n '1s/;.*//p')
seq=$(echo "$hdr" | cut -d, -f2)
[[ "$hdr" =~ ,ncfrag=0/([0-9]+)$ ]] || nl_fail "first fragment without ncfrag=0/N: '$hdr'"
[ "${BASH_REMATCH[1]}" = "$explen" ] ||
	nl_fail "ncfrag total ${BASH_REMATCH[1]}, expected $explen (text + userdata)"
nl_wait_for 10 nl_ncfrag_rebuild "$rx" "" "$seq" "$explen" "$NL_TMP/rebuilt" ||
	nl_fail "fragments do not rebuild text + userdata"
cmp -s "$NL_TMP/expected" "$NL_TMP/rebuilt" || nl_fail "reassembled text + userdata differ"
exit "$KSFT_PASS"
