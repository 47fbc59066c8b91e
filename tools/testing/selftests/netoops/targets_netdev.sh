#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# netpoll_targets and the life of the network device under an enabled
# target:
#  - rename: dev_name follows, messages keep flowing;
#  - removal (driver unbind): no hang, the device is really freed (no
#    leaked reference: the unbind returns and the name disappears), the
#    target is DEACTIVATED;
#  - the device comes back: the target resumes by itself (ENABLED) and
#    delivers again;
#  - removal again, then the target is disabled and removed and netconsole
#    unloads.
source "$(dirname "$0")"/lib_netoops.sh

nl_require_root
nl_require_cmd ip timeout
nl_require_module netconsole
vdev=""
drv=""
nd_cleanup()
{
	local rc=$?

	set +e
	# Give the NIC back to the next test if we left it unbound.
	if [ -n "$vdev" ] && [ ! -e "$drv/$vdev" ]; then
		echo "$vdev" > "$drv/bind" 2>/dev/null
		nl_wait_for 10 nl_have_dev_by_mac "$mac"
		d=$(nl__dev_by_mac "$mac")
		[ -z "$d" ] || [ "$d" = "$NL_DEV" ] || ip link set "$d" name "$NL_DEV"
	fi
	nl_cleanup "$rc"
}
trap nd_cleanup EXIT

nl_reclaim_wired
nl_setup_veth
nl_require_netpoll_dev
nl_configfs
lines=$(dmesg | wc -l)
mac=$(cat "/sys/class/net/$NL_DEV/address")
vdev=$(basename "$(readlink -f "/sys/class/net/$NL_DEV/device")")
drv=$(readlink -f "/sys/class/net/$NL_DEV/device/driver")
[ -n "$vdev" ] && [ -d "$drv" ] || nl_skip "$NL_DEV has no unbindable driver"

nl_listen_start 6666 "$NL_TMP/rx"
t="n$NL_TAG"
nl_target_create netconsole "$t"
nl_target_enable netconsole "$t"
nl_kmsg "netdev-1 $NL_TAG"
nl_wait_grep "$NL_TMP/rx" "netdev-1 $NL_TAG" 10 || nl_fail "first message lost"

# rename
newname="nr${NL_TAG:0:6}"
ip link set "$NL_DEV" down
ip link set "$NL_DEV" name "$newname" || nl_fail "rename refused"
old=$NL_DEV
NL_DEV=$newname
nl_expect_value netconsole "$t" dev_name "$newname"
nl_expect_value netconsole "$t" state enabled
ip link set "$NL_DEV" up
nl_wait_for 10 nl__carrier_both || nl_fail "no carrier after rename"
nl_kmsg "netdev-2 $NL_TAG"
nl_wait_grep "$NL_TMP/rx" "netdev-2 $NL_TAG" 10 || nl_fail "message lost after rename"
ip link set "$NL_DEV" down
ip link set "$NL_DEV" name "$old"
NL_DEV=$old
nl_expect_value netconsole "$t" dev_name "$old"
nl_dev_restore_addrs

gone() { [ ! -e "/sys/class/net/$NL_DEV" ]; }
unbind()
{
	timeout 20 sh -c "echo $vdev > $drv/unbind" ||
		nl_fail "unbinding $NL_DEV did not finish in 20 s (leaked device reference?)"
	nl_wait_for 10 gone || nl_fail "$NL_DEV still present after unbind"
}
bind()
{
	local d

	echo "$vdev" > "$drv/bind" || nl_fail "rebinding $vdev failed"
	nl_wait_for 10 nl_have_dev_by_mac "$mac" || nl_fail "device $mac did not come back"
	d=$(nl__dev_by_mac "$mac")
	[ "$d" = "$NL_DEV" ] || ip link set "$d" name "$NL_DEV"
}

# removal while enabled
unbind
nl_wait_state netconsole "$t" deactivated 10
nl_expect_value netconsole "$t" enabled 0
nl_kmsg "while-gone $NL_TAG"	# must not crash or hang

# comes back: resumes when it is up
bind
nl_expect_value netconsole "$t" state deactivated
nl_dev_restore_addrs
nl_wait_state netconsole "$t" enabled 20
nl_kmsg "netdev-3 $NL_TAG"
nl_wait_grep "$NL_TMP/rx" "netdev-3 $NL_TAG" 10 || nl_fail "message lost after resume"

# removal again; disabling a deactivated target succeeds and stops resume
unbind
nl_wait_state netconsole "$t" deactivated 10
nl_target_disable netconsole "$t"
nl_expect_value netconsole "$t" state disabled
bind
nl_dev_restore_addrs
nl_expect_value netconsole "$t" state disabled

# no reference left behind: the module goes away and comes back
nl_target_remove netconsole "$t"
NL_TARGETS=()
timeout 20 rmmod netconsole || nl_fail "rmmod netconsole failed"
modprobe netconsole || nl_fail "modprobe netconsole failed"
nl_dmesg_clean "$lines"
exit "$KSFT_PASS"
