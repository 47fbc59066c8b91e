#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# netoops authentication and FEC, kernel side: the per-target auth_key
# attribute is write-only (mode 0200, reading it fails with EACCES),
# bad keys are refused with EINVAL and the old key kept, any change while
# the target is enabled is refused with EBUSY; a soft dump sent with a key
# has NETOOPS_F_AUTH and a MAC TLV in every datagram (parity included) that
# verifies with the key set -- and not with a key that was refused --,
# computed here with busybox sha256sum (HMAC built by hand from SHA-256, an
# implementation independent of the kernel's).  Without a key nothing is
# signed.  fec_k/fec_m: bad values (fec_k + fec_m wrapping around 2^32
# among them) refused with the old kept, parity sent by default, none with
# fec_k=0.
source "$(dirname "$0")"/lib_netoops.sh
source "$(dirname "$0")"/netoops_dump.inc

P=/sys/module/netoops/parameters

nl_require_root
nl_require_cmd ip od sha256sum stat
nl_require_module netoops
fec_k0="" fec_m0=""
restore_fec()
{
	[ -n "$fec_k0" ] || return 0
	echo 0 > "$P/fec_k" 2>/dev/null
	echo "$fec_m0" > "$P/fec_m" 2>/dev/null
	echo "$fec_k0" > "$P/fec_k" 2>/dev/null
}
trap 'rc=$?; restore_fec; nl_cleanup "$rc"' EXIT

[ -e "$P/fec_k" ] || nl_skip "netoops has no fec_k parameter (older module)"
fec_k0=$(cat "$P/fec_k")
fec_m0=$(cat "$P/fec_m")

nl_setup_veth
nl_require_netpoll_dev
nl_configfs

# rand_hex N: N random bytes as hex.
rand_hex()
{
	od -An -tx1 -N "$1" /dev/urandom | tr -d ' \n'
}

# hex_bin HEX: the bytes.
hex_bin()
{
	printf "$(echo "$1" | sed 's/../\\x&/g')"
}

# pad_file KEYHEX XORBYTE FILE: the key zero-padded to the SHA-256 block
# (64 bytes) and xored with XORBYTE (HMAC's ipad/opad), written to FILE.
# No command substitution in the loop: forks are slow under emulation.
pad_file()
{
	local k=$1 i b out=""

	while [ ${#k} -lt 128 ]; do k="${k}00"; done
	for ((i = 0; i < 128; i += 2)); do
		printf -v b '\\x%02x' $(( 0x${k:i:2} ^ $2 ))
		out+=$b
	done
	printf "$out" > "$3"
}

# mac_of FILE SIZE IPAD OPAD: HMAC-SHA256 (truncated to 16 bytes, hex) of
# the SIZE-byte datagram in FILE up to its last 24 bytes (the MAC TLV),
# checksum zeroed; IPAD/OPAD are pad_file outputs.
mac_of()
{
	local f=$1 size=$2 inner

	inner=$( { cat "$3"; head -c 48 "$f"; printf '\0\0\0\0'
		   head -c $((size - 24)) "$f" | tail -c +53; } |
		 sha256sum | cut -c1-64)
	{ cat "$4"; hex_bin "$inner"; } | sha256sum | cut -c1-32
}

# check_signed FILE KEYID IPAD OPAD: FILE has NETOOPS_F_AUTH, ends with a
# critical MAC TLV naming KEYID, and its MAC verifies.  Sets CS_FLAGS,
# CS_SIZE and CS_MAC for the caller.
check_signed()
{
	local f=$1 t i b

	CS_SIZE=$(stat -c %s "$f")
	CS_FLAGS=$(nd_u "$f" 6 2)
	[ $((CS_FLAGS & 0x100)) != 0 ] ||
		nl_fail "$f: NETOOPS_F_AUTH not set (flags $CS_FLAGS)"
	read -ra t <<< "$(od -An -tu1 -v -j $((CS_SIZE - 24)) -N 24 "$f" | tr '\n' ' ')"
	[ "${#t[@]}" = 24 ] || nl_fail "$f: cannot read the MAC TLV"
	[ "$(( t[0] | t[1] << 8 )) $(( t[2] | t[3] << 8 ))" = "$((0x800e)) 20" ] ||
		nl_fail "$f: last TLV is not a critical 20-byte MAC TLV"
	[ $(( t[4] | t[5] << 8 | t[6] << 16 | t[7] << 24 )) = "$2" ] ||
		nl_fail "$f: MAC TLV names another key id than $2"
	CS_MAC=""
	for ((i = 8; i < 24; i++)); do
		printf -v b '%02x' "${t[i]}"
		CS_MAC+=$b
	done
	[ "$CS_MAC" = "$(mac_of "$f" "$CS_SIZE" "$3" "$4")" ] ||
		nl_fail "$f: MAC does not verify with the key set"
}

# soft_dump DIR: a soft dump received complete in DIR; its id in SD_ID.
soft_dump()
{
	local id

	nl_listen_start 6667 "$1" dir
	echo 1 > "$P/dump" || nl_fail "soft dump refused"
	nl_wait_for 30 nd_have_dumps "$1" || nl_fail "no datagram received"
	id=$(nd_dumps "$1" | head -n 1)
	nl_wait_for 30 nd_dump_complete "$1" "$id" ||
		nl_fail "dump $id incomplete: $(nd_missing "$1" "$id")"
	# parity follows the last data datagram: wait until the sink is idle
	nl_wait_for 10 sink_quiet "$1"
	nl_listen_stop
	SD_ID=$id
}

sink_quiet()
{
	local a b

	a=$(ls "$1" | wc -l)
	sleep 0.3
	b=$(ls "$1" | wc -l)
	[ "$a" = "$b" ]
}

NL_PORT=6667
t="au$NL_TAG"
nl_target_create netoops "$t"
d=$(nl_target_dir netoops "$t")
[ -e "$d/auth_key" ] || nl_fail "no auth_key attribute"

# Write-only: no read bit, and reading yields an error or nothing.
mode=$(stat -c %a "$d/auth_key")
[ "$mode" = 200 ] || nl_fail "auth_key mode $mode, expected 200"
if out=$(cat "$d/auth_key" 2>&1); then
	nl_fail "auth_key is readable (read returned '$out')"
fi
case $out in
*"Permission denied"*) ;;
*) nl_fail "reading auth_key: expected EACCES, got '$out'" ;;
esac
nl_expect_value netoops "$t" auth_key_id none

K1=$(rand_hex 32)
K2=$(rand_hex 32)
got=$(nl_write_result "$d/auth_key" "7:$K1")
[ "$got" = ok ] || nl_fail "key 7:<32 bytes> refused ($got)"
nl_expect_value netoops "$t" auth_key_id 7

# Bad keys: EINVAL, old key (id 7, K1: proven by the dump below) kept.
for bad in "8:" "8:${K2}0" "8:$(rand_hex 15)" "8:$(rand_hex 65)" \
	   "8:zz${K2:2}" "8$K2" ":$K2" "x8:$K2" "4294967296:$K2" "-1:$K2" \
	   "8:$K2 "; do
	got=$(nl_write_result "$d/auth_key" "$bad")
	[ "$got" = EINVAL ] || nl_fail "key '${bad:0:24}...': expected EINVAL, got $got"
	nl_expect_value netoops "$t" auth_key_id 7
done
nl_log "11 malformed keys refused with EINVAL, key id 7 kept"

nl_target_enable netoops "$t"
for v in "8:$K2" none ""; do
	got=$(nl_write_result "$d/auth_key" "$v")
	[ "$got" = EBUSY ] || nl_fail "auth_key '${v:0:10}' while enabled: expected EBUSY, got $got"
done
nl_expect_value netoops "$t" auth_key_id 7

# FEC parameters: refused values keep the old ones.  The fec_m values
# after fec_k=x make a u32 fec_k + fec_m wrap to fec_k - 1, 0 and 255
# (fec_m=4294967295 once passed and asked vzalloc() for terabytes), or do
# not fit a u32.
for kv in fec_k=255 fec_k=250 fec_m=0 fec_m=224 fec_k=-1 fec_k=x \
	  fec_m=4294967295 fec_m=0xffffffff \
	  fec_m=$((4294967296 - fec_k0)) fec_m=$((4294967296 - fec_k0 + 255)) \
	  fec_m=4294967296; do
	got=$(nl_write_result "$P/${kv%%=*}" "${kv#*=}")
	[ "$got" = EINVAL ] || nl_fail "$kv: expected EINVAL, got $got"
done
[ "$(cat "$P/fec_k") $(cat "$P/fec_m")" = "$fec_k0 $fec_m0" ] ||
	nl_fail "refused FEC values changed fec_k/fec_m to $(cat "$P/fec_k")/$(cat "$P/fec_m")"
[ "$fec_k0" -gt 0 ] || nl_fail "FEC off by default (fec_k=$fec_k0)"
echo 8 > "$P/fec_k" || nl_fail "fec_k=8 refused"
echo 2 > "$P/fec_m" || nl_fail "fec_m=2 refused"

signed0=$(sed -n 's/^signed //p' "$P/stats")
nl_kmsg "auth-marker-$NL_TAG"
soft_dump "$NL_TMP/rx"
id=$SD_ID
pad_file "$K1" $((0x36)) "$NL_TMP/i1"
pad_file "$K1" $((0x5c)) "$NL_TMP/o1"
pad_file "$K2" $((0x36)) "$NL_TMP/i2"
pad_file "$K2" $((0x5c)) "$NL_TMP/o2"
ndata=0 npar=0
for f in $(nd_dump_files "$NL_TMP/rx" "$id"); do
	check_signed "$f" 7 "$NL_TMP/i1" "$NL_TMP/o1"
	# the refused key must not verify (one data, one parity datagram:
	# SHA-256 through busybox is slow under emulation)
	if [ "$ndata" = 0 ] || { [ "$npar" = 0 ] &&
	   [ $((CS_FLAGS & 0x200)) != 0 ]; }; then
		[ "$CS_MAC" != "$(mac_of "$f" "$CS_SIZE" "$NL_TMP/i2" "$NL_TMP/o2")" ] ||
			nl_fail "$f: MAC also verifies with the refused key"
	fi
	if [ $((CS_FLAGS & 0x200)) != 0 ]; then
		npar=$((npar + 1))
	else
		[ $((CS_FLAGS & 0x2)) != 0 ] ||
			nl_fail "$f: data datagram without NETOOPS_F_FEC"
		ndata=$((ndata + 1))
	fi
done
count=$(nd_u "$(nd_dump_files "$NL_TMP/rx" "$id" | head -n 1)" 34 2)
[ "$ndata" -ge "$count" ] || nl_fail "$ndata data datagrams for pkt_count $count"
# k=8, m=2: ceil(2 * k' / 8) parity datagrams per group of k' <= 8
want=$(( (count / 8) * 2 + ( (count % 8) * 2 + 7 ) / 8 ))
[ "$npar" = "$want" ] || nl_fail "$npar parity datagrams for $count data (k=8 m=2), expected $want"
nd_payload "$NL_TMP/rx" "$id" "$NL_TMP/payload"
grep -qF "auth-marker-$NL_TAG" "$NL_TMP/payload" || nl_fail "marker not in the payload"
signed1=$(sed -n 's/^signed //p' "$P/stats")
[ $((signed1 - signed0)) -ge $((ndata + npar)) ] ||
	nl_fail "stats: signed went $signed0 -> $signed1 for $((ndata + npar)) datagrams"
nl_log "dump $id: $ndata data + $npar parity datagrams, all signed with key 7 and verified" \
	"(sha256sum); the refused key does not verify"

# No key, no FEC: nothing signed, no parity.
nl_target_disable netoops "$t"
got=$(nl_write_result "$d/auth_key" none)
[ "$got" = ok ] || nl_fail "clearing the key refused ($got)"
nl_expect_value netoops "$t" auth_key_id none
echo 0 > "$P/fec_k" || nl_fail "fec_k=0 refused"
nl_target_enable netoops "$t"
soft_dump "$NL_TMP/rx2"
id2=$SD_ID
for f in $(nd_dump_files "$NL_TMP/rx2" "$id2"); do
	nd_check_pkt "$f"
	[ $(( $(nd_u "$f" 6 2) & 0x302 )) = 0 ] ||
		nl_fail "$f: flags $(nd_u "$f" 6 2) without key and with fec_k=0"
done
nl_log "dump $id2: $(nd_dump_files "$NL_TMP/rx2" "$id2" | wc -l) datagrams, unsigned, no parity"
nl_target_disable netoops "$t"

# A key with a 0x id and 64 bytes is accepted; rmdir frees it.
got=$(nl_write_result "$d/auth_key" "0x10:$(rand_hex 64)")
[ "$got" = ok ] || nl_fail "64-byte key with id 0x10 refused ($got)"
nl_expect_value netoops "$t" auth_key_id 16
exit "$KSFT_PASS"
