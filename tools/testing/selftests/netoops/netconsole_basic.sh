#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# netconsole, plain format: a configfs target over IPv4 and one over IPv6
# deliver kernel messages; oops_only=1 holds ordinary messages back; the
# netconsole= module parameter (upstream syntax) creates an enabled target
# that "mkdir cmdline0" shows in configfs.
source "$(dirname "$0")"/lib_netoops.sh

nl_require_root
nl_require_cmd ip
nl_require_module netconsole
trap nl_cleanup EXIT

nl_reclaim_wired
nl_setup_veth
nl_require_netpoll_dev
nl_configfs

# IPv4 target
NL_PORT=6666
nl_listen_start 6666 "$NL_TMP/rx4"
t4="b4$NL_TAG"
nl_target_create netconsole "$t4"
nl_target_enable netconsole "$t4"
nl_expect_value netconsole "$t4" state enabled
nl_kmsg "basic4 $NL_TAG"
nl_wait_grep "$NL_TMP/rx4" "basic4 $NL_TAG" 10 ||
	nl_fail "IPv4: 'basic4 $NL_TAG' not received"
# Plain format: the text as the console prints it, no extended header.
if grep -F "basic4 $NL_TAG" "$NL_TMP/rx4" | grep -qE '^[0-9]+,[0-9]+,[0-9]+,'; then
	nl_fail "plain target sent an extended header"
fi
mac=$(nl_target_get netconsole "$t4" local_mac)
[ "$mac" = "$(cat "/sys/class/net/$NL_DEV/address")" ] ||
	nl_fail "local_mac '$mac' is not $NL_DEV's address"

# oops_only: ordinary messages are held back.  The second message proves
# the first one would have arrived by then (same path, in order).
echo 1 > /sys/module/netconsole/parameters/oops_only
nl_kmsg "held-back $NL_TAG"
echo 0 > /sys/module/netconsole/parameters/oops_only
nl_kmsg "after-oops-only $NL_TAG"
nl_wait_grep "$NL_TMP/rx4" "after-oops-only $NL_TAG" 10 ||
	nl_fail "'after-oops-only $NL_TAG' not received"
! grep -qF "held-back $NL_TAG" "$NL_TMP/rx4" ||
	nl_fail "oops_only=1 did not hold back an ordinary message"
nl_target_disable netconsole "$t4"

# IPv6 target
# udp_sink bound to :: (nl_listen_start binds 0.0.0.0)
nl__find_sink
: > "$NL_TMP/rx6"
nl_ns_exec "$NL_SINK" -b :: -p 6667 -o "$NL_TMP/rx6" -r "$NL_TMP/ready6" &
NL_LISTEN_PID="$NL_LISTEN_PID $!"
nl_wait_for 10 test -e "$NL_TMP/ready6" || nl_fail "udp_sink did not start on [::]:6667"
t6="b6$NL_TAG"
nl_target_create netconsole "$t6" dev_name="$NL_DEV" \
	local_ip="$NL_LOCAL_IP6" remote_ip="$NL_REMOTE_IP6" \
	remote_port=6667 remote_mac="$NL_REMOTE_MAC"
nl_expect_value netconsole "$t6" remote_ip "$NL_REMOTE_IP6"
nl_target_enable netconsole "$t6"
nl_kmsg "basic6 $NL_TAG"
nl_wait_grep "$NL_TMP/rx6" "basic6 $NL_TAG" 10 ||
	nl_fail "IPv6: 'basic6 $NL_TAG' not received"
! grep -qF "basic6 $NL_TAG" "$NL_TMP/rx4" ||
	nl_fail "disabled IPv4 target still sent"
nl_target_disable netconsole "$t6"

# Module parameter: reload netconsole with a command-line target.
nl_target_remove netconsole "$t4"
nl_target_remove netconsole "$t6"
NL_TARGETS=()
rmmod netconsole || nl_fail "rmmod netconsole failed"
param="+6665@$NL_LOCAL_IP/$NL_DEV,6666@$NL_REMOTE_IP/$NL_REMOTE_MAC"
modprobe netconsole netconsole="$param" ||
	nl_fail "modprobe netconsole netconsole=$param refused"
nl_kmsg "param $NL_TAG"
nl_wait_grep "$NL_TMP/rx4" "param $NL_TAG" 10 ||
	nl_fail "command-line target: 'param $NL_TAG' not received"
grep -F "param $NL_TAG" "$NL_TMP/rx4" | grep -qE '^[0-9]+,[0-9]+,[0-9]+,[^;]*;' ||
	nl_fail "'+' target did not use the extended format"
mkdir "$NL_CFS/netconsole/cmdline0" || nl_fail "mkdir cmdline0 refused"
NL_TARGETS+=("netconsole/cmdline0")
nl_expect_value netconsole cmdline0 enabled 1
nl_expect_value netconsole cmdline0 extended 1
nl_expect_value netconsole cmdline0 dev_name "$NL_DEV"
nl_expect_value netconsole cmdline0 remote_ip "$NL_REMOTE_IP"
nl_expect_value netconsole cmdline0 remote_mac "$NL_REMOTE_MAC"
nl_target_remove netconsole cmdline0
NL_TARGETS=()
rmmod netconsole || nl_fail "rmmod netconsole (after cmdline target) failed"
# A target that does not parse is skipped and the module loads, as
# upstream's with NETCONSOLE_DYNAMIC: cmdline0 is then a new, default one.
modprobe netconsole netconsole="x6665@$NL_LOCAL_IP/$NL_DEV,6666@$NL_REMOTE_IP/" ||
	nl_fail "netconsole refused to load with an unparsable target"
mkdir "$NL_CFS/netconsole/cmdline0" || nl_fail "mkdir cmdline0 refused"
NL_TARGETS+=("netconsole/cmdline0")
nl_expect_value netconsole cmdline0 enabled 0
nl_expect_value netconsole cmdline0 dev_name eth0
nl_target_remove netconsole cmdline0
NL_TARGETS=()
exit "$KSFT_PASS"
