#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What a driver may do to the skbs of a crash dump.  The test-only
# netoops_stubnic module's nxstub0 keeps IFF_TX_SKB_SHARING, has no byte
# queue limits, adds a 64-byte header it does not declare with
# skb_cow_head() (as ch9200 does) and reports a frame sent from its NAPI
# poll.  netoops keeps a reference to the last skb of a dump on such a
# device, so the driver sees shared skbs; a shared skb without the
# headroom would make skb_cow_head() BUG(), which the stub counts as
# "short" instead.  An oops (panic_on_oops=0) dumps to a target on
# nxstub0: shared skbs must reach the driver, none short, and the dump
# must count no "unflushed" (the flush saw the driver let go).  Frames
# the stack sends on its own (IPv6) are not shared.  Then, as
# a check that "short" can count, the stub adds 200 bytes: more than
# netoops' margin, so the shared skbs are short.  Frames go nowhere.
source "$(dirname "$0")"/lib_netoops.sh

P=/sys/module/netoops/parameters
CT=/proc/netoops_crashtest
SN=/proc/netoops_stubnic

nl_require_root
nl_require_cmd ip
nl_require_module netoops
nl_require_crashtest
modprobe netoops_stubnic 2>/dev/null ||
	nl_skip "netoops_stubnic not available: build tests/modules (test-only module)"
oldpoo=$(cat /proc/sys/kernel/panic_on_oops)
trap 'rc=$?; echo "$oldpoo" > /proc/sys/kernel/panic_on_oops; nl_cleanup "$rc"; rmmod netoops_stubnic 2>/dev/null' EXIT
echo 0 > /proc/sys/kernel/panic_on_oops

stat_of() { sed -n "s/^$1 //p" $P/stats; }
sn_of() { printf '%s\n' "$sn" | sed -n "s/^$1 //p"; }

# stub_oops COW_HEAD: oops once with a target on a fresh nxstub0 whose
# transmit adds COW_HEAD bytes; leaves the stub's counters in SN_*.
stub_oops()
{
	local t="sn$NL_TAG$1" d0 u0

	rmmod netoops_stubnic 2>/dev/null || true
	modprobe netoops_stubnic cow_head="$1" || nl_fail "cannot load netoops_stubnic"
	ip link set nxstub0 up &&
		ip addr add 192.0.2.1/24 dev nxstub0 ||
		nl_fail "cannot set up nxstub0"
	nl_target_create netoops "$t" dev_name=nxstub0 local_ip=192.0.2.1 \
		remote_ip=192.0.2.2 remote_mac=02:00:00:00:00:02 remote_port=6666
	nl_target_enable netoops "$t"
	d0=$(stat_of dumps) u0=$(stat_of unflushed)
	echo "oops_kthread 1" > $CT || nl_fail "crash trigger refused"
	[ "$(stat_of dumps)" -gt "$d0" ] || nl_fail "the oops was not dumped"
	# one read: the stack may send (IPv6) meanwhile
	sn=$(cat $SN)
	SN_FRAMES=$(sn_of frames) SN_SHARED=$(sn_of shared)
	SN_SHORT=$(sn_of short) SN_UNFLUSHED=$(( $(stat_of unflushed) - u0 ))
	nl_log "cow_head $1: frames $SN_FRAMES, shared $SN_SHARED," \
		"short $SN_SHORT, released $(sn_of released), unflushed +$SN_UNFLUSHED"
	nl_target_remove netoops "$t"
	rmmod netoops_stubnic || nl_fail "cannot unload netoops_stubnic"
}

stub_oops 64
[ "$SN_FRAMES" -gt 0 ] || nl_fail "no datagram reached nxstub0"
[ "$SN_SHARED" -gt 0 ] ||
	nl_fail "no shared skb reached nxstub0: the flush had nothing to wait for"
[ "$SN_SHORT" = 0 ] ||
	nl_fail "$SN_SHORT shared skbs without 64 bytes of headroom: skb_cow_head() would BUG()"
[ "$SN_UNFLUSHED" = 0 ] ||
	nl_fail "the dump counted unflushed: the flush did not see the driver let go"

stub_oops 200
[ "$SN_SHORT" -gt 0 ] ||
	nl_fail "with a 200-byte header no shared skb was short: the check cannot fail"
nl_log "shared skbs had the room a 64-byte undeclared header needs"
exit "$KSFT_PASS"
