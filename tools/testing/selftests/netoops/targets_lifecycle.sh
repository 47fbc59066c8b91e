#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# netpoll_targets life cycle, for every client subsystem loaded (netconsole,
# netoops): mkdir/rmdir, defaults, valid values read back, every invalid
# value refused with EINVAL keeping the old value, every attribute refused
# with EBUSY while enabled, enable/disable twice refused, rmdir of an
# enabled target.
source "$(dirname "$0")"/lib_netoops.sh

nl_require_root
nl_require_cmd ip
nl_require_module netconsole
trap nl_cleanup EXIT
nl_configfs

subsystems=()
for s in netconsole netoops; do
	[ -d "$NL_CFS/$s" ] && subsystems+=("$s")
done

check_subsys()
{
	local s=$1 t="l$NL_TAG" a v d

	nl_target_create "$s" "$t" dev_name=eth0
	for a in enabled state dev_name local_port remote_port local_ip \
		 remote_ip local_mac remote_mac; do
		[ -f "$(nl_target_dir "$s" "$t")/$a" ] || nl_fail "$s: no attribute $a"
	done
	nl_expect_value "$s" "$t" enabled 0
	nl_expect_value "$s" "$t" state disabled
	nl_expect_value "$s" "$t" remote_mac ff:ff:ff:ff:ff:ff
	nl_expect_value "$s" "$t" local_mac ff:ff:ff:ff:ff:ff
	if [ "$s" = netconsole ]; then
		nl_expect_value "$s" "$t" local_port 6665
		nl_expect_value "$s" "$t" remote_port 6666
		# a new target has the Kconfig defaults, as upstream's
		# (nl_target_create clears them: a bare mkdir here)
		d="$NL_CFS/$s/k$NL_TAG"
		mkdir "$d" || nl_fail "$s: mkdir $d refused"
		[ "$(cat "$d/extended")" = "$(nl_kconfig_y NETCONSOLE_EXTENDED_LOG)" ] ||
			nl_fail "$s: extended defaults to $(cat "$d/extended")"
		[ "$(cat "$d/release")" = "$(nl_kconfig_y NETCONSOLE_PREPEND_RELEASE)" ] ||
			nl_fail "$s: release defaults to $(cat "$d/release")"
		rmdir "$d"
	fi
	# local_mac is read-only, and nothing is world-writable
	[ "$(nl_write_result "$(nl_target_dir "$s" "$t")/local_mac" 00:11:22:33:44:55)" != ok ] ||
		nl_fail "$s: local_mac accepted a write"
	if find "$(nl_target_dir "$s" "$t")" -perm -o+w | grep -q .; then
		nl_fail "$s: world-writable files: $(find "$(nl_target_dir "$s" "$t")" -perm -o+w)"
	fi

	# valid values read back
	for kv in local_port=1 local_port=65535 remote_port=514 \
		  local_ip=198.51.100.7 remote_ip=192.0.2.200 \
		  remote_ip=2001:db8::10 local_ip=2001:db8:0:0::1 \
		  remote_mac=02:00:5e:10:00:01 dev_name=eth0 dev_name=nl-x.1; do
		nl_target_set "$s" "$t" "${kv%%=*}" "${kv#*=}" ||
			nl_fail "$s: valid ${kv%%=*}=${kv#*=} refused"
	done
	nl_expect_value "$s" "$t" local_port 65535
	nl_expect_value "$s" "$t" remote_port 514
	nl_expect_value "$s" "$t" remote_ip 2001:db8::10
	nl_expect_value "$s" "$t" local_ip 2001:db8::1
	nl_expect_value "$s" "$t" remote_mac 02:00:5e:10:00:01
	nl_expect_value "$s" "$t" dev_name nl-x.1
	if [ "$s" = netconsole ]; then
		# upstream's targets stay IPv6 once they are: IPv4 text is
		# refused; a fresh target takes it
		nl_expect_refused "$s" "$t" remote_ip 192.0.2.2 EINVAL
		nl_expect_refused "$s" "$t" local_ip 192.0.2.1 EINVAL
		nl_target_remove "$s" "$t"
		nl_target_create "$s" "$t" dev_name=eth0
	fi
	nl_target_set "$s" "$t" remote_ip 192.0.2.2
	nl_target_set "$s" "$t" local_ip 192.0.2.1
	nl_expect_value "$s" "$t" remote_ip 192.0.2.2

	# invalid values: refused, old value kept.  netconsole answers as
	# upstream's (port 0, "" for 0.0.0.0 and any name that fits are
	# valid there; netconsole_diff.sh compares every value).
	for v in -1 abc 12ab "" " 7"; do
		nl_expect_refused "$s" "$t" local_port "$v" EINVAL
		nl_expect_refused "$s" "$t" remote_port "$v" EINVAL
	done
	for v in 1.2.3 256.1.1.1 1.2.3.4x 1.2.3.4.5 ::g 2001:db8::1::2 \
		 "192.0.2.1 x" example.org; do
		nl_expect_refused "$s" "$t" local_ip "$v" EINVAL
		nl_expect_refused "$s" "$t" remote_ip "$v" EINVAL
	done
	for v in 00:11:22:33:44 00:11:22:33:44:5g 00:11:22:33:44:55:66 \
		 001122334455 "" "00:11:22:33:44:55 "; do
		nl_expect_refused "$s" "$t" remote_mac "$v" EINVAL
	done
	if [ "$s" = netconsole ]; then
		nl_expect_refused "$s" "$t" local_port 65536 ERANGE
		nl_expect_refused "$s" "$t" remote_port 99999 ERANGE
		nl_expect_refused "$s" "$t" dev_name abcdefghijklmnop ENAMETOOLONG
	else
		for v in 0 65536; do
			nl_expect_refused "$s" "$t" local_port "$v" EINVAL
			nl_expect_refused "$s" "$t" remote_port "$v" EINVAL
		done
		nl_expect_refused "$s" "$t" local_ip "" EINVAL
		nl_expect_refused "$s" "$t" remote_ip "" EINVAL
		for v in "" . .. a/b "a b" abcdefghijklmnop; do
			nl_expect_refused "$s" "$t" dev_name "$v" EINVAL
		done
	fi
	for v in 2 maybe ""; do
		nl_expect_refused "$s" "$t" enabled "$v" EINVAL
	done
	nl_expect_refused "$s" "$t" enabled 0 EINVAL	# already disabled
	if [ "$s" = netconsole ]; then
		nl_expect_refused "$s" "$t" extended maybe EINVAL
		nl_expect_refused "$s" "$t" release 7 EINVAL
		# release without extended cannot be enabled
		nl_target_set "$s" "$t" release 1
		nl_target_set "$s" "$t" dev_name "$NL_DEV"
		nl_expect_refused "$s" "$t" enabled 1 EINVAL
		nl_target_set "$s" "$t" release 0
	fi

	# enabled: every attribute refused with EBUSY, values kept
	nl_target_set "$s" "$t" dev_name "$NL_DEV"
	nl_target_set "$s" "$t" remote_mac "$NL_REMOTE_MAC"
	nl_target_enable "$s" "$t"
	nl_expect_value "$s" "$t" enabled 1
	nl_expect_value "$s" "$t" state enabled
	nl_expect_value "$s" "$t" local_mac "$(cat "/sys/class/net/$NL_DEV/address")"
	nl_expect_refused "$s" "$t" enabled 1 EINVAL	# already enabled
	for kv in dev_name=lo local_port=7 remote_port=7 local_ip=192.0.2.9 \
		  remote_ip=192.0.2.9 remote_mac=02:00:00:00:00:09; do
		nl_expect_refused "$s" "$t" "${kv%%=*}" "${kv#*=}" EBUSY
	done
	if [ "$s" = netconsole ]; then
		nl_expect_refused "$s" "$t" extended 1 EBUSY
		nl_expect_refused "$s" "$t" release 1 EBUSY
	fi
	nl_target_disable "$s" "$t"
	nl_expect_value "$s" "$t" state disabled
	nl_expect_value "$s" "$t" local_mac ff:ff:ff:ff:ff:ff
	nl_target_set "$s" "$t" local_port 6000 || nl_fail "$s: write after disable refused"

	# rmdir of an enabled target, and mkdir/rmdir churn
	nl_target_enable "$s" "$t"
	rmdir "$(nl_target_dir "$s" "$t")" || nl_fail "$s: rmdir of an enabled target refused"
	for i in $(seq 1 50); do
		mkdir "$(nl_target_dir "$s" "c$i")" || nl_fail "$s: mkdir c$i"
	done
	for i in $(seq 1 50); do
		rmdir "$(nl_target_dir "$s" "c$i")" || nl_fail "$s: rmdir c$i"
	done
	nl_log "$s: life cycle ok"
}

nl_reclaim_wired
nl_setup_veth
nl_require_netpoll_dev
lines=$(dmesg | wc -l)
for s in "${subsystems[@]}"; do
	check_subsys "$s"
done
nl_dmesg_clean "$lines"
exit "$KSFT_PASS"
