# SPDX-License-Identifier: GPL-2.0
#
# guest-lib.sh - helpers for the guest side of the harness (busybox sh).
# Sourced by /init before /run.d/test.sh; test scripts source it again
# (". /etc/guest-lib.sh") for the verbs.
#
# The host passes settings in /run.d/env (GH_ENV_FOO=bar on the host
# becomes FOO=bar here): HOSTNAME, PORT, MODS (stock|project) ...

CFS=/sys/kernel/config

g_log()
{
	echo "guest: $*"
}

# g_out_drain: return once what the script wrote to its standard output, a
# serial port, has left the port.  Call it right before a crash: the crash
# stops the port's transmit interrupt, and the lines still queued then
# never reach the host.  busybox stty sets the terminal with TCSETSW,
# which waits for the output to drain (onlcr is on already).
g_out_drain()
{
	if [ -t 1 ]; then
		stty onlcr <&1
	fi
	return 0
}

# g_cpus_online: bring every CPU the kernel booted offline (maxcpus=1, see
# gh_boot) online, before any module loads.
g_cpus_online()
{
	for _c in /sys/devices/system/cpu/cpu[0-9]*/online; do
		[ "$(cat "$_c")" = 1 ] || echo 1 > "$_c" || return 1
	done
	[ "$(cat /sys/devices/system/cpu/online)" = "$(cat /sys/devices/system/cpu/present)" ]
}

# g_setup_net: virtio_net up, 10.0.2.15/24 via 10.0.2.2, carrier waited.
# IPv6 is off on eth0: nothing but what the test sends goes out.  Its
# single tx queue's lock is stuck when panic() stops a CPU inside the
# driver's transmit, and no dump leaves eth0 then (a crash-fec run on 6.1
# panicked 16 ms after IPv6's link-up MLD reports and DAD probes began,
# and sent nothing).
g_setup_net()
{
	modprobe configfs 2>/dev/null
	grep -q " $CFS configfs " /proc/mounts ||
		mount -t configfs configfs "$CFS" 2>/dev/null
	# 6.1: virtio_pci is a module that virtio_net does not pull in
	modprobe virtio_pci 2>/dev/null
	modprobe virtio_net || return 1
	ip link set lo up
	g_wait_for 10 test -e /sys/class/net/eth0 || return 1
	echo 1 > /proc/sys/net/ipv6/conf/eth0/disable_ipv6 || return 1
	ip link set eth0 up
	ip addr add 10.0.2.15/24 dev eth0
	ip route add default via 10.0.2.2
	g_wait_for 10 g__carrier eth0
}

# g_nic_up MAC ADDR/LEN: bring up the NIC whose address is MAC, with IPv6
# off (nothing but what the test sends goes out) and ADDR, and wait for its
# carrier.  Sets G_NIC to its name; prints why and returns 1 if it cannot.
g_nic_up()
{
	G_NIC=""
	for _d in /sys/class/net/*; do
		[ "$(cat "$_d/address")" = "$1" ] && G_NIC=${_d##*/}
	done
	[ -n "$G_NIC" ] || { g_log "no NIC with address $1"; return 1; }
	echo 1 > "/proc/sys/net/ipv6/conf/$G_NIC/disable_ipv6"
	ip link set "$G_NIC" up && ip addr add "$2" dev "$G_NIC" || return 1
	g_wait_for 10 g__carrier "$G_NIC" || {
		g_log "no carrier on $G_NIC"
		return 1
	}
}

# g_fill_log N TAG: log N lines of about 940 characters (920 of base64
# random bytes) at debug level (kept out of the console), so that a dump
# needs many datagrams.  6.1 refuses a /dev/kmsg write over 992 bytes
# with EINVAL.
g_fill_log()
{
	echo on > /proc/sys/kernel/printk_devkmsg || return 1
	_i=0
	while [ $_i -lt "$1" ]; do
		echo "<7>$2 $_i $(head -c 690 /dev/urandom | base64 | tr -d "\n")" > /dev/kmsg ||
			return 1
		_i=$((_i + 1))
	done
}

g__carrier()
{
	[ "$(cat "/sys/class/net/$1/carrier" 2>/dev/null)" = 1 ]
}

# g_wait_for TIMEOUT_S CMD...: poll CMD every 50 ms until it succeeds.
g_wait_for()
{
	_end=$(( $(date +%s) + $1 ))
	shift
	until "$@" >/dev/null 2>&1; do
		[ "$(date +%s)" -lt "$_end" ] || return 1
		sleep 0.05
	done
}

# g_load_stock_netconsole: insmod Debian's netconsole even when the
# project's (which modprobe prefers) is present.
g_load_stock_netconsole()
{
	insmod "$(find /lib/modules/"$(uname -r)"/kernel -name netconsole.ko)"
}

# g_load_project: the project's modules, in dependency order.  Prints what
# is missing and returns 1 if netoops cannot be loaded.
g_load_project()
{
	_rc=0
	for _m in netpoll_targets netconsole netoops; do
		if ! modprobe "$_m"; then
			g_log "cannot load project module $_m"
			_rc=1
		fi
	done
	return $_rc
}

# g_target SUBSYS NAME IP PORT [ATTR=VALUE...]: configure and enable a
# target (netconsole or netoops) on eth0.
g_target()
{
	_d=$CFS/$1/$2
	_ip=$3
	_port=$4
	shift 4
	mkdir "$_d" || return 1
	# netconsole: plain format whatever the Kconfig defaults
	[ ! -e "$_d/release" ] || echo 0 > "$_d/release" || return 1
	[ ! -e "$_d/extended" ] || echo 0 > "$_d/extended" || return 1
	echo eth0 > "$_d/dev_name" || return 1
	echo "$_ip" > "$_d/remote_ip" || return 1
	echo "$_port" > "$_d/remote_port" || return 1
	for _kv in "$@"; do
		echo "${_kv#*=}" > "$_d/${_kv%%=*}" || {
			g_log "cannot set ${_kv%%=*} on $_d"
			return 1
		}
	done
	echo 1 > "$_d/enabled"
}

# g_netoops_user TARGET KEY VALUE: a user field sent with every dump.
g_netoops_user()
{
	mkdir "$CFS/netoops/$1/userfields/$2" &&
		echo "$3" > "$CFS/netoops/$1/userfields/$2/value"
}

# g_netoops_boot_id: give netoops this boot's id (the kernel's random
# boot_id, as systemd would) and print it.
g_netoops_boot_id()
{
	_id=$(cat /proc/sys/kernel/random/boot_id)
	echo "$_id" > /sys/module/netoops/parameters/boot_id || return 1
	echo "$_id"
}

# g_netoops_params NAME=VALUE...: set netoops module parameters.
g_netoops_params()
{
	for _kv in "$@"; do
		echo "${_kv#*=}" > "/sys/module/netoops/parameters/${_kv%%=*}" ||
			echo "CT-ERROR cannot set netoops parameter $_kv"
	done
}
