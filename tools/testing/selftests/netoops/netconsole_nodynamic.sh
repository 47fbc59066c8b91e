#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# netconsole built without CONFIG_NETCONSOLE_DYNAMIC, as upstream's: no
# configfs directory, the netconsole= targets log, and a target that does
# not parse (EPERM, netpoll_parse_options()'s -1) or cannot be enabled
# (ENODEV) fails the load instead of being skipped or kept disabled.
#
# The module is netconsole_nodynamic.ko (module name netconsole), which
# tests/debug-kernel/build.sh builds in the debug kernel's tree with the
# option off; Debian's kernels have it on, so there the test skips.
source "$(dirname "$0")"/lib_netoops.sh

nl_require_root
nl_require_cmd ip insmod rmmod
KO=$(find "/lib/modules/$(uname -r)" -name 'netconsole_nodynamic.ko*' 2>/dev/null |
     head -n 1)
[ -n "$KO" ] ||
	nl_skip "no netconsole_nodynamic.ko for $(uname -r): only the debug kernel's build" \
		"(tests/debug-kernel/build.sh) makes one"
nl_require_module netpoll_targets

nd_cleanup()
{
	local rc=$?

	rmmod netconsole 2>/dev/null
	modprobe netconsole 2>/dev/null
	nl_cleanup "$rc"
}
trap nd_cleanup EXIT

nl_reclaim_wired
nl_setup_veth
nl_require_netpoll_dev
nl_configfs

# nd_load PARAM: insmod the module with netconsole=PARAM; its stderr in
# $NL_TMP/insmod.err.
nd_load()
{
	insmod "$KO" netconsole="$1" 2> "$NL_TMP/insmod.err"
}

# nd_refused WHAT PARAM ERRTEXT: the load fails with ERRTEXT (strerror)
# and leaves no module behind.
nd_refused()
{
	local what=$1 param=$2 text=$3

	if nd_load "$param"; then
		rmmod netconsole
		nl_fail "$what: loaded with netconsole=$param"
	fi
	grep -qF "$text" "$NL_TMP/insmod.err" ||
		nl_fail "$what: insmod said '$(cat "$NL_TMP/insmod.err")', not '$text'"
	[ ! -d /sys/module/netconsole ] ||
		nl_fail "$what: module netconsole left loaded"
}

rmmod netconsole 2>/dev/null
[ ! -d /sys/module/netconsole ] || nl_fail "cannot unload netconsole"

NL_PORT=6666
nl_listen_start 6666 "$NL_TMP/rx"
good="+6665@$NL_LOCAL_IP/$NL_DEV,6666@$NL_REMOTE_IP/$NL_REMOTE_MAC"

nd_load "$good" || nl_fail "insmod $KO netconsole=$good: $(cat "$NL_TMP/insmod.err")"
[ -d /sys/module/netconsole ] || nl_fail "$KO did not load as netconsole"
[ ! -e "$NL_CFS/netconsole" ] ||
	nl_fail "$NL_CFS/netconsole exists without CONFIG_NETCONSOLE_DYNAMIC"
nl_kmsg "nodyn $NL_TAG"
nl_wait_grep "$NL_TMP/rx" "nodyn $NL_TAG" 10 ||
	nl_fail "command-line target: 'nodyn $NL_TAG' not received"
grep -F "nodyn $NL_TAG" "$NL_TMP/rx" | grep -qE '^[0-9]+,[0-9]+,[0-9]+,[^;]*;' ||
	nl_fail "'+' target did not use the extended format"
rmmod netconsole || nl_fail "rmmod netconsole failed"

# Upstream without NETCONSOLE_DYNAMIC fails the whole load on one bad
# target, also after a good one.
nd_refused "missing device" "@/nosuch$NL_TAG,6666@$NL_REMOTE_IP/" \
	"No such device"
nd_refused "unparsable port" "x6665@$NL_LOCAL_IP/$NL_DEV,6666@$NL_REMOTE_IP/" \
	"Operation not permitted"
# "r" without "+": refused, unless NETCONSOLE_EXTENDED_LOG makes every
# target extended (the debug kernel's), as upstream.
rel="r6665@$NL_LOCAL_IP/$NL_DEV,6666@$NL_REMOTE_IP/$NL_REMOTE_MAC"
if [ "$(nl_kconfig_y NETCONSOLE_EXTENDED_LOG)" = 1 ]; then
	nd_load "$rel" ||
		nl_fail "release, extended by default: $(cat "$NL_TMP/insmod.err")"
	nl_kmsg "release $NL_TAG"
	nl_wait_grep "$NL_TMP/rx" "release $NL_TAG" 10 ||
		nl_fail "release target: 'release $NL_TAG' not received"
	grep -F "release $NL_TAG" "$NL_TMP/rx" | grep -qF "$(uname -r)," ||
		nl_fail "release target: no '$(uname -r),' before the message"
	rmmod netconsole || nl_fail "rmmod netconsole failed"
else
	nd_refused "release without extended" "$rel" "Invalid argument"
fi
nd_refused "good then missing device" \
	"$good;@/nosuch$NL_TAG,6666@$NL_REMOTE_IP/" "No such device"
nd_load "$good" || nl_fail "reload after refusals: $(cat "$NL_TMP/insmod.err")"
nl_kmsg "reloaded $NL_TAG"
nl_wait_grep "$NL_TMP/rx" "reloaded $NL_TAG" 10 ||
	nl_fail "after the refused loads: 'reloaded $NL_TAG' not received"
exit "$KSFT_PASS"
