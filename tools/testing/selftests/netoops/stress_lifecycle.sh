#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Life-cycle stress of netpoll_targets, netconsole and netoops, made for a
# debug kernel (lockdep, KASAN, debug objects, kmemleak) but useful on any:
# five workers run at once for STRESS_ITERS iterations (default 200) or
# STRESS_SECS seconds (default 45), whichever ends first:
#   targets  mkdir, configure, enable, disable/rmdir-while-enabled, rmdir
#            targets of every client subsystem
#   toggle   enable/disable one long-lived target per subsystem
#   netdev   add/remove veth devices named by a target's dev_name; now and
#            then unbind/rebind the netpoll NIC under the enabled targets
#   dump     netoops soft dumps (/sys/module/netoops/parameters/dump)
#   msg      kernel messages through /dev/kmsg (netconsole traffic)
# Then: every worker must have finished (a stuck one is a deadlock), a
# fresh netconsole target must still deliver, the kernel log must hold no
# splat and kmemleak (if present) no new leak; finally the modules are
# loaded with enabled targets from their parameters and unloaded: that
# must succeed and leave the log clean too.  The phases are reported as
# KTAP subtests.
source "$(dirname "$0")"/lib_netoops.sh

STRESS_ITERS=${STRESS_ITERS:-200}
STRESS_SECS=${STRESS_SECS:-45}
KMEMLEAK=/sys/kernel/debug/kmemleak
SPLATS='WARNING:|BUG:|Oops|general protection|possible circular locking'
SPLATS+='|possible recursive locking|inconsistent lock state'
SPLATS+='|sleeping function called from invalid context|suspicious RCU usage'
SPLATS+='|KASAN|UBSAN|ODEBUG|kmemleak: [0-9]+ new suspected|INFO: task .* blocked'
SPLATS+='|list_(add|del) corruption|unregister_netdevice: waiting'

nl_require_root
nl_require_cmd ip timeout
nl_require_module netconsole
[ -d /sys/module/netpoll_targets ] ||
	nl_skip "netconsole is not the project's (no netpoll_targets): load the project's modules"
trap st_cleanup EXIT
nl_setup_veth
nl_require_netpoll_dev
nl_configfs
modprobe veth 2>/dev/null || true

subsystems=(netconsole)
have_netoops=0
if [ -d /sys/module/netoops ] || modprobe netoops 2>/dev/null; then
	[ -d "$NL_CFS/netoops" ] && { subsystems+=(netoops); have_netoops=1; }
fi
[ "$have_netoops" = 1 ] || nl_log "netoops not loaded: soft dumps and netoops targets left out"

mac=$(cat "/sys/class/net/$NL_DEV/address")
vdev=$(basename "$(readlink -f "/sys/class/net/$NL_DEV/device")")
drv=$(readlink -f "/sys/class/net/$NL_DEV/device/driver")
W=$NL_TMP/work
mkdir -p "$W"
pids=()
fails=0
sub=0

st_cleanup()
{
	local rc=$? p d

	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null
	done
	for d in "$NL_CFS"/*/s[0-9a-f]*-"$NL_TAG"*; do
		[ -d "$d" ] || continue
		echo 0 > "$d/enabled" 2>/dev/null
		rmdir "$d" 2>/dev/null
	done
	# Give the NIC back to the next test if it was left unbound.
	if [ -n "${vdev:-}" ] && [ -d "${drv:-}" ] && [ ! -e "$drv/$vdev" ]; then
		echo "$vdev" > "$drv/bind" 2>/dev/null
		nl_wait_for 10 nl_have_dev_by_mac "$mac"
		d=$(nl__dev_by_mac "$mac")
		[ -z "$d" ] || [ "$d" = "$NL_DEV" ] || ip link set "$d" name "$NL_DEV"
	fi
	(exit "$rc")
	nl_cleanup
}

# result NAME OK [WHY]: one KTAP subtest line.
result()
{
	sub=$((sub + 1))
	if [ "$2" = 1 ]; then
		echo "ok $sub $1"
	else
		echo "not ok $sub $1${3:+ # $3}"
		fails=$((fails + 1))
	fi
}

# go: true while the worker may run iteration $1.
go()
{
	[ "$1" -lt "$STRESS_ITERS" ] && [ "$(date +%s)" -lt "$deadline" ]
}

# count WORKER WHAT: one more WHAT for WORKER (read back by total).
count()
{
	echo >> "$W/$1.$2"
}

total()
{
	[ -f "$W/$1.$2" ] && wc -l < "$W/$1.$2" || echo 0
}

# set_target DIR: point a target at the wire (errors are expected while
# another worker moves the device or the target is enabled).
set_target()
{
	echo "$NL_DEV" > "$1/dev_name" &&
		echo "$NL_LOCAL_IP" > "$1/local_ip" &&
		echo "$NL_REMOTE_IP" > "$1/remote_ip" &&
		echo 6666 > "$1/remote_port"
}

w_targets()
{
	local i=0 s d

	set +e	# failures are expected here: other workers race with us
	while go $i; do
		for s in "${subsystems[@]}"; do
			d=$NL_CFS/$s/s$((i % 4))-$NL_TAG
			mkdir "$d" 2>/dev/null && count targets mkdir
			set_target "$d" 2>/dev/null
			echo 1 > "$d/enabled" 2>/dev/null && count targets enable
			# every other time, rmdir while enabled
			[ $((i % 2)) = 0 ] && echo 0 > "$d/enabled" 2>/dev/null
			rmdir "$d" 2>/dev/null && count targets rmdir
		done
		i=$((i + 1))
	done
	echo "$i" > "$W/targets.iters"
}

w_toggle()
{
	local i=0 s d

	set +e
	for s in "${subsystems[@]}"; do
		d=$NL_CFS/$s/sp-$NL_TAG
		mkdir "$d" && set_target "$d" 2>/dev/null
	done
	while go $i; do
		for s in "${subsystems[@]}"; do
			d=$NL_CFS/$s/sp-$NL_TAG
			if echo 1 > "$d/enabled"; then
				count toggle enable
				# must be EBUSY, unless the netdev worker
				# deactivated the target in between
				if echo $((6000 + i)) > "$d/local_port" &&
				   grep -qx enabled "$d/state"; then
					count toggle busy-write-accepted
				fi
			fi
			echo 0 > "$d/enabled" 2>/dev/null
			set_target "$d" 2>/dev/null
		done
		i=$((i + 1))
	done
	echo "$i" > "$W/toggle.iters"
}

w_netdev()
{
	local i=0 s v d

	set +e
	# targets that follow the veth name as it comes and goes
	for s in "${subsystems[@]}"; do
		d=$NL_CFS/$s/sv-$NL_TAG
		mkdir "$d" && echo "sv$NL_TAG" > "$d/dev_name"
	done
	v="sv$NL_TAG"
	while go $i; do
		if ip link add "$v" type veth peer name "sw$NL_TAG" 2>/dev/null; then
			count netdev veth-add
			ip link set "$v" up 2>/dev/null
			for s in "${subsystems[@]}"; do
				# veth cannot carry netpoll: the enable must fail
				echo 1 > "$NL_CFS/$s/sv-$NL_TAG/enabled" 2>/dev/null &&
					count netdev veth-enabled
			done
			ip link del "$v" 2>/dev/null && count netdev veth-del
		fi
		if [ $((i % 5)) = 2 ] && [ -n "$vdev" ] && [ -d "$drv" ]; then
			if timeout 20 sh -c "echo $vdev > $drv/unbind"; then
				count netdev unbind
			else
				count netdev unbind-stuck
			fi
			echo "$vdev" > "$drv/bind" 2>/dev/null
			nl_wait_for 10 nl_have_dev_by_mac "$mac" &&
				count netdev rebind
			d=$(nl__dev_by_mac "$mac")
			[ -z "$d" ] || [ "$d" = "$NL_DEV" ] ||
				ip link set "$d" name "$NL_DEV" 2>/dev/null
			ip addr add "$NL_LOCAL_IP/24" dev "$NL_DEV" 2>/dev/null
			ip link set "$NL_DEV" up 2>/dev/null
		fi
		i=$((i + 1))
	done
	echo "$i" > "$W/netdev.iters"
}

w_dump()
{
	local i=0

	set +e
	while go $i; do
		if echo 1 > /sys/module/netoops/parameters/dump 2>/dev/null; then
			count dump sent
		else
			count dump refused
		fi
		i=$((i + 1))
	done
	echo "$i" > "$W/dump.iters"
}

w_msg()
{
	local i=0

	set +e
	while go $i; do
		echo "<6>stress-msg $i $NL_TAG" > /dev/kmsg && count msg sent
		i=$((i + 1))
	done
	echo "$i" > "$W/msg.iters"
}

# splats_since LINE: the splat lines of the kernel log after LINE.
splats_since()
{
	dmesg | tail -n +"$(( $1 + 1 ))" | grep -E "$SPLATS" || true
}

# leak_scan: kmemleak scan; prints the new-leak report lines, if any.
leak_scan()
{
	local l

	l=$(dmesg | wc -l)
	echo scan > "$KMEMLEAK" 2>/dev/null || return 0
	dmesg | tail -n +"$((l + 1))" | grep -E 'kmemleak: [0-9]+ new suspected' || true
}

echo "KTAP version 1"
echo "1..5"
lines=$(dmesg | wc -l)
if [ -r /proc/lockdep_stats ] && grep -q 'debug_locks: *0' /proc/lockdep_stats; then
	nl_log "lockdep already turned off by an earlier report (see the serial log)"
fi
have_kmemleak=0
if [ ! -e "$KMEMLEAK" ] && [ -d /sys/kernel/debug ]; then
	mount -t debugfs none /sys/kernel/debug 2>/dev/null || true
fi
if [ -w "$KMEMLEAK" ]; then
	have_kmemleak=1
	echo clear > "$KMEMLEAK"	# leaks from before this test are not ours
fi
nl_listen_start 6666 "$NL_TMP/rx"

# 1. the workers
start=$(date +%s)
deadline=$((start + STRESS_SECS))
w_targets 2>/dev/null & pids+=($!)
w_toggle 2>/dev/null & pids+=($!)
w_netdev 2>/dev/null & pids+=($!)
[ "$have_netoops" = 1 ] && { w_dump 2>/dev/null & pids+=($!); }
w_msg 2>/dev/null & pids+=($!)
all_done()
{
	local p

	for p in "${pids[@]}"; do
		kill -0 "$p" 2>/dev/null && return 1
	done
	return 0
}
nl_wait_for $((STRESS_SECS + 60)) all_done || true
stuck=""
for p in "${pids[@]}"; do
	if kill -0 "$p" 2>/dev/null; then
		stuck="$stuck $p(wchan=$(cat "/proc/$p/wchan" 2>/dev/null))"
	fi
done
for p in "${pids[@]}"; do
	wait "$p" 2>/dev/null || true
done
pids=()
nl_log "workers ran $(( $(date +%s) - start ))s; iterations:" \
	"targets=$(cat "$W/targets.iters" 2>/dev/null || echo -)" \
	"toggle=$(cat "$W/toggle.iters" 2>/dev/null || echo -)" \
	"netdev=$(cat "$W/netdev.iters" 2>/dev/null || echo -)" \
	"dump=$(cat "$W/dump.iters" 2>/dev/null || echo -)" \
	"msg=$(cat "$W/msg.iters" 2>/dev/null || echo -)"
nl_log "targets: $(total targets mkdir) mkdir, $(total targets enable) enabled," \
	"$(total targets rmdir) rmdir;" \
	"toggle: $(total toggle enable) enabled," \
	"$(total toggle busy-write-accepted) busy writes accepted;" \
	"netdev: $(total netdev veth-add) veth, $(total netdev unbind) unbind," \
	"$(total netdev rebind) rebind;" \
	"dumps: $(total dump sent) sent, $(total dump refused) refused; msgs: $(total msg sent)"
ok=1 why=""
if [ -n "$stuck" ]; then
	ok=0 why="workers stuck in the kernel:$stuck"
elif [ "$(total targets enable)" = 0 ] || [ "$(total toggle enable)" = 0 ]; then
	ok=0 why="no target was ever enabled: the stress did not stress"
elif [ "$(total netdev veth-enabled)" != 0 ]; then
	ok=0 why="a target enabled on a veth (no netpoll) $(total netdev veth-enabled) times"
elif [ "$(total toggle busy-write-accepted)" != 0 ]; then
	ok=0 why="local_port written while enabled"
	why+=" $(total toggle busy-write-accepted) times (must be EBUSY)"
elif [ "$(total netdev unbind-stuck)" != 0 ]; then
	ok=0 why="unbinding $NL_DEV took more than 20 s (leaked device reference?)"
fi
result workers "$ok" "$why"

# 2. the targets still work: a fresh netconsole target delivers
for d in "$NL_CFS"/*/s[pv]-"$NL_TAG" "$NL_CFS"/*/s[0-9]-"$NL_TAG"; do
	[ -d "$d" ] || continue
	echo 0 > "$d/enabled" 2>/dev/null || true
	rmdir "$d" || true
done
nl_dev_restore_addrs
t="sf-$NL_TAG"
ok=1 why=""
nl_target_create netconsole "$t"
if ! nl_target_set netconsole "$t" enabled 1; then
	ok=0 why="enabling a fresh target after the stress refused"
else
	nl_kmsg "after-stress $NL_TAG"
	nl_wait_grep "$NL_TMP/rx" "after-stress $NL_TAG" 10 ||
		{ ok=0 why="message after the stress lost"; }
fi
nl_target_remove netconsole "$t"
NL_TARGETS=()
result still-delivers "$ok" "$why"

# 3. no splat in the kernel log
bad=$(splats_since "$lines")
if [ -n "$bad" ]; then
	dmesg | tail -n +"$((lines + 1))" | grep -E -B 5 -A 40 "$SPLATS" | head -n 200 |
		sed 's/^/# /'
	result no-splats 0 "$(echo "$bad" | head -n 1)"
else
	result no-splats 1
fi

# 4. no new leak
if [ "$have_kmemleak" = 1 ]; then
	leak=$(leak_scan)
	if [ -n "$leak" ]; then
		head -n 80 "$KMEMLEAK" | sed 's/^/# /'
		result kmemleak 0 "$leak"
	else
		result kmemleak 1
	fi
else
	echo "ok $((sub + 1)) kmemleak # SKIP no $KMEMLEAK (kernel without CONFIG_DEBUG_KMEMLEAK)"
	sub=$((sub + 1))
fi

# 5. unload with targets enabled (from the module parameters)
lines=$(dmesg | wc -l)
ok=1 why=""
mods="netconsole"
[ "$have_netoops" = 1 ] && mods="netoops netconsole"
for m in $mods; do
	timeout 20 rmmod "$m" || { ok=0 why="rmmod $m failed before the test"; }
done
param="6665@$NL_LOCAL_IP/$NL_DEV,6666@$NL_REMOTE_IP/$NL_REMOTE_MAC"
if [ "$ok" = 1 ]; then
	modprobe netconsole netconsole="$param" ||
		{ ok=0 why="modprobe netconsole netconsole=$param refused"; }
	if [ "$have_netoops" = 1 ]; then
		modprobe netoops \
			targets="6667@$NL_LOCAL_IP/$NL_DEV,6666@$NL_REMOTE_IP/$NL_REMOTE_MAC" ||
			{ ok=0 why="modprobe netoops targets=... refused"; }
	fi
	nl_kmsg "before-unload $NL_TAG"
	nl_wait_grep "$NL_TMP/rx" "before-unload $NL_TAG" 10 ||
		{ ok=0 why="the parameter target did not deliver"; }
	if [ "$have_netoops" = 1 ]; then
		echo 1 > /sys/module/netoops/parameters/dump ||
			{ ok=0 why="soft dump to the parameter target refused"; }
	fi
	for m in $mods netpoll_targets; do
		timeout 20 rmmod "$m" ||
			{ ok=0 why="rmmod $m with targets enabled failed"; }
	done
fi
bad=$(splats_since "$lines")
[ -z "$bad" ] || { ok=0 why="kernel complained on unload: $(echo "$bad" | head -n 1)"; }
if [ "$have_kmemleak" = 1 ] && [ "$ok" = 1 ]; then
	leak=$(leak_scan)
	[ -z "$leak" ] || {
		head -n 80 "$KMEMLEAK" | sed 's/^/# /'
		ok=0 why="after unload: $leak"
	}
fi
[ "$ok" = 1 ] || dmesg | tail -n +"$((lines + 1))" | tail -n 60 | sed 's/^/# /'
# back as they were for the next test
for m in netpoll_targets $mods; do
	modprobe "$m" 2>/dev/null || true
done
result unload-enabled "$ok" "$why"

[ "$fails" = 0 ] || nl_fail "$fails of $sub phases failed"
exit "$KSFT_PASS"
