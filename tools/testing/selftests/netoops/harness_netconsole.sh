#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Self-check of lib_netoops.sh: a netconsole target on a veth whose peer
# sits in a namespace delivers a tagged kernel message to udp_sink there.
# Proves the verbs the other tests are built on (netns/veth setup, target
# create/enable, listener, bounded wait, cleanup).
source "$(dirname "$0")"/lib_netoops.sh

nl_require_root
nl_require_cmd ip
nl_require_module netconsole
trap nl_cleanup EXIT

nl_setup_veth
nl_require_netpoll_dev
NL_PORT=6666
nl_listen_start "$NL_PORT" "$NL_TMP/rx"
nl_target_create netconsole "h$NL_TAG"
nl_target_enable netconsole "h$NL_TAG"
echo "harness-check $NL_TAG" > /dev/kmsg
nl_wait_grep "$NL_TMP/rx" "harness-check $NL_TAG" 10 ||
	nl_fail "message 'harness-check $NL_TAG' not received on $NL_REMOTE_IP:$NL_PORT"
nl_log "received: $(grep -F "harness-check $NL_TAG" "$NL_TMP/rx" | head -n 1)"
exit "$KSFT_PASS"
