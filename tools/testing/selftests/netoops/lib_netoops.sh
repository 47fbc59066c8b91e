#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# lib_netoops.sh - verbs shared by the netoops / netconsole / netpoll_targets
# selftests.  A test is a short script that sources this file and sequences
# the verbs:
#
#   source "$(dirname "$0")"/lib_netoops.sh
#   nl_require_root
#   nl_require_module netconsole
#   trap nl_cleanup EXIT
#   nl_setup_veth                       # netns + veth, 192.0.2.0/24
#   nl_listen_start 6666 "$NL_TMP/out"  # udp_sink in the netns
#   nl_target_create netconsole t0      # dev_name/ips/port from the veth
#   nl_target_enable netconsole t0
#   echo "hello $NL_TAG" > /dev/kmsg
#   nl_wait_grep "$NL_TMP/out" "hello $NL_TAG" 10 || nl_fail "message lost"
#   exit "$KSFT_PASS"
#
# Exit codes are kselftest's: 0 pass, 1 fail, 4 skip.  Every skip says why
# and what would fix it.  Nothing here sleeps for a fixed time: waits poll a
# condition with a deadline (nl_wait_for).
#
# Variables a test may read after nl_setup_veth:
#   NL_NS          network namespace holding the receiving end
#   NL_DEV         sending device in the initial namespace (target dev_name)
#   NL_PEER        receiving device, inside NL_NS
#   NL_LOCAL_IP    192.0.2.1       NL_REMOTE_IP    192.0.2.2
#   NL_LOCAL_IP6   2001:db8::1     NL_REMOTE_IP6   2001:db8::2
#   NL_REMOTE_MAC  MAC of NL_PEER
#   NL_WIRED       1 when NL_DEV/NL_PEER are a wired NIC pair that carries
#                  netpoll, 0 for veth (configfs-only tests)
# Always set:
#   NL_TAG         random tag for this run (unique messages, names)
#   NL_TMP         private temporary directory, removed by nl_cleanup
#                  unless the test failed (then its path is printed)
#   NL_CFS         configfs mount point (/sys/kernel/config)

set -euo pipefail
# A command that set -e ends the test on says where, rather than the test
# ending with exit 1 and no word.
set -E
# (Only under set -e: cleanups run with set +e and expect failures.)
nl__on_err()
{
	local rc=$1 line=$2 cmd=$3

	[[ $- != *e* ]] ||
		echo "# line $line of ${BASH_SOURCE[1]##*/}: \"$cmd\" failed (exit $rc)"
}
trap 'nl__on_err $? $LINENO "$BASH_COMMAND"' ERR

KSFT_PASS=0
KSFT_FAIL=1
KSFT_SKIP=4

# The runner's timeout ends a test with SIGTERM: leave through the EXIT
# trap (the test's cleanup) rather than die with targets, namespaces and
# modules left behind for the next test.
trap 'exit 143' TERM

NL_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
NL_CFS=${NL_CFS:-/sys/kernel/config}
NL_TAG=${NL_TAG:-$(printf '%04x%04x' $RANDOM $RANDOM)}
NL_TMP=${NL_TMP:-$(mktemp -d "/tmp/netoops-ksft.XXXXXX")}
NL_NS=""
NL_DEV=""
NL_PEER=""
NL_LOCAL_IP=192.0.2.1
NL_REMOTE_IP=192.0.2.2
NL_LOCAL_IP6=2001:db8::1
NL_REMOTE_IP6=2001:db8::2
NL_REMOTE_MAC=""
NL_WIRED=0
NL_FAILED=0
NL_LISTEN_PID=""
NL_TARGETS=()		# "subsys/name" of every target we created
NL_SINK=${NL_SINK:-}	# path of udp_sink, found by nl_listen_start

nl_log()
{
	echo "# $*"
}

# nl_skip REASON: skip the test (exit 4), saying why.
nl_skip()
{
	echo "# SKIP: $*"
	exit "$KSFT_SKIP"
}

# nl_fail REASON: fail the test (exit 1); nl_cleanup keeps NL_TMP.
nl_fail()
{
	echo "# FAIL: $*"
	NL_FAILED=1
	trap - ERR
	exit "$KSFT_FAIL"
}

# nl_check COND-DESCRIPTION CMD...: run CMD, fail with the description if it
# does not succeed.
nl_check()
{
	local what=$1

	shift
	"$@" || nl_fail "$what (command: $*)"
}

nl_require_root()
{
	[ "$(id -u)" = 0 ] || nl_skip "must run as root"
}

# nl_require_cmd CMD...: skip unless every command is in PATH.
nl_require_cmd()
{
	local c

	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 ||
			nl_skip "'$c' not found: install it (scripts/install-deps.sh)"
	done
}

# nl_require_module NAME: skip unless module NAME is loaded or loadable.
nl_require_module()
{
	local m=$1

	[ -d "/sys/module/$m" ] && return 0
	modprobe "$m" 2>/dev/null && return 0
	nl_skip "module $m not available: build it (make) and install/load it"
}

# nl_configfs: make sure configfs is mounted at NL_CFS.
# nl_require_crashtest: load the test-only netoops_crashtest module (tests/
# modules), whose control file is /proc/netoops_crashtest, or skip.
nl_require_crashtest()
{
	[ -e /proc/netoops_crashtest ] || modprobe netoops_crashtest 2>/dev/null ||
		nl_skip "netoops_crashtest not available: build tests/modules (test-only module)"
	[ -e /proc/netoops_crashtest ] || nl_skip "/proc/netoops_crashtest missing"
}

nl_configfs()
{
	[ -d "$NL_CFS" ] || nl_skip "$NL_CFS missing: kernel without CONFIG_CONFIGFS_FS"
	if ! grep -q " $NL_CFS configfs " /proc/mounts; then
		modprobe configfs 2>/dev/null || true
		mount -t configfs none "$NL_CFS" ||
			nl_skip "cannot mount configfs on $NL_CFS"
	fi
}

# nl_wait_for TIMEOUT_S CMD...: poll CMD (every 50 ms, backing off to 0.5 s)
# until it succeeds; return 1 if it still fails after TIMEOUT_S seconds.
nl_wait_for()
{
	local timeout=$1 end delay=0.05

	shift
	end=$(( SECONDS + timeout ))
	while ! "$@" 2>/dev/null; do
		[ "$SECONDS" -lt "$end" ] || return 1
		sleep "$delay"
		# Back off to 0.5 s: on a single-CPU debug guest under
		# emulation a tight poll takes the CPU from what it waits for.
		case $delay in
		0.05) delay=0.1 ;;
		0.1) delay=0.2 ;;
		0.2) delay=0.5 ;;
		esac
	done
}

# nl_wait_progress STALL_S DONE_CMD PROGRESS_CMD: poll every 0.5 s until
# DONE_CMD succeeds; return 1 once PROGRESS_CMD's output stayed the same
# for STALL_S seconds.  For work whose length scales with the host (a
# debug guest under emulation on a busy machine): a hang is work that
# stops advancing, not work that takes long.
nl_wait_progress()
{
	local stall=$1 done=$2 prog=$3 last now since=$SECONDS

	last=$($prog 2>/dev/null)
	until $done 2>/dev/null; do
		sleep 0.5
		now=$($prog 2>/dev/null)
		if [ "$now" != "$last" ]; then
			last=$now since=$SECONDS
		elif [ $((SECONDS - since)) -ge "$stall" ]; then
			return 1
		fi
	done
}

# nl_wait_grep FILE PATTERN TIMEOUT_S: wait until FILE contains PATTERN
# (fixed string).
nl_wait_grep()
{
	nl_wait_for "$3" grep -qF -- "$2" "$1"
}

# nl_ns_exec CMD...: run CMD inside NL_NS.
nl_ns_exec()
{
	ip netns exec "$NL_NS" "$@"
}

# nl_udp_rcvbuf_errors: UDP datagrams the receiving side (NL_NS, or this
# namespace without one) dropped because a socket's buffer was full.
nl_udp_rcvbuf_errors()
{
	local run=()

	[ -n "$NL_NS" ] && run=(ip netns exec "$NL_NS")
	"${run[@]}" cat /proc/net/snmp |
		awk '/^Udp:/ { if (!h) { for (i = 1; i <= NF; i++) c[$i] = i; h = 1 }
			       else print $c["RcvbufErrors"] }'
}

# nl_setup_veth: network namespace NL_NS holding NL_PEER (192.0.2.2/24,
# 2001:db8::2/64), wired to NL_DEV (192.0.2.1/24, 2001:db8::1/64) in the
# initial namespace; waits until both ends have carrier.
#
# veth cannot carry netpoll (the kernel refuses: "doesn't support
# polling"), so when a pair of NICs wired to each other exists we use it:
# NL_WIRE_MACS="MAC1 MAC2" (the guest harness sets it from
# /etc/netoops-wire: two virtio NICs on one QEMU hub).  Without a pair we
# fall back to veth, which is enough for configfs-only tests; sending tests
# should call nl_require_netpoll_dev after this.
nl_setup_veth()
{
	local m1 m2

	nl_require_cmd ip
	NL_NS="nlns-$NL_TAG"
	if [ -z "${NL_WIRE_MACS:-}" ] && [ -r /etc/netoops-wire ]; then
		NL_WIRE_MACS=$(cat /etc/netoops-wire)
	fi
	ip netns add "$NL_NS" || nl_skip "cannot create a network namespace"
	if [ -n "${NL_WIRE_MACS:-}" ]; then
		read -r m1 m2 <<< "$NL_WIRE_MACS"
		# A previous test's namespace hands its NIC back to the initial
		# namespace asynchronously (cleanup_net): wait for both.
		nl_wait_for 30 nl__both_macs "$m1" "$m2" ||
			nl_fail "wired NICs $NL_WIRE_MACS not found: $(ip -br link | tr '\n' ';')" \
				"netns: $(ip netns list | tr '\n' ' ')"
		NL_DEV=$(nl__dev_by_mac "$m1")
		NL_PEER=$(nl__dev_by_mac "$m2")
		NL_WIRED=1
	else
		modprobe veth 2>/dev/null || true
		NL_DEV="nlv0-$NL_TAG"
		NL_PEER="nlv1-$NL_TAG"
		ip link add "$NL_DEV" type veth peer name "$NL_PEER" ||
			nl_skip "cannot create veth (CONFIG_VETH)"
		NL_WIRED=0
	fi
	if [ "$NL_WIRED" = 1 ]; then
		# A virtio NIC has no receive buffers until it is first up, and
		# QEMU's hub holds back what the other NIC sends until it has:
		# on a slow guest (a debug kernel) the sender's TX queue timed
		# out ("NETDEV WATCHDOG") while the peer was being set up.  Up
		# once here, a NIC keeps its buffers when it goes down or moves.
		ip link set "$NL_DEV" up
		ip link set "$NL_PEER" up
	fi
	ip link set "$NL_PEER" netns "$NL_NS"
	ip addr add "$NL_LOCAL_IP/24" dev "$NL_DEV"
	ip -6 addr add "$NL_LOCAL_IP6/64" dev "$NL_DEV" nodad 2>/dev/null || true
	ip link set "$NL_DEV" up
	nl_ns_exec ip addr add "$NL_REMOTE_IP/24" dev "$NL_PEER"
	nl_ns_exec ip -6 addr add "$NL_REMOTE_IP6/64" dev "$NL_PEER" nodad \
		2>/dev/null || true
	nl_ns_exec ip link set "$NL_PEER" up
	nl_ns_exec ip link set lo up
	nl_wait_for 10 nl__carrier_both ||
		nl_fail "$NL_DEV/$NL_PEER: no carrier after 10 s"
	NL_REMOTE_MAC=$(nl_ns_exec cat "/sys/class/net/$NL_PEER/address")
}

# nl_require_one_txq: skip unless NL_DEV has a single tx queue (a test
# that holds a queue's lock to stall the device holds them all).
nl_require_one_txq()
{
	local n

	n=$(find "/sys/class/net/$NL_DEV/queues" -maxdepth 1 -name 'tx-*' | wc -l)
	[ "$n" = 1 ] || nl_skip "$NL_DEV has $n tx queues; the holder holds one"
}

# nl_require_netpoll_dev: skip unless NL_DEV can carry netpoll (a wired
# NIC pair rather than veth).
nl_require_netpoll_dev()
{
	[ "${NL_WIRED:-0}" = 1 ] ||
		nl_skip "no netpoll-capable NIC pair (veth refuses netpoll): run in the guest" \
			"harness (tests/guest/run-kselftests.sh)"
}

nl__both_macs()
{
	[ -n "$(nl__dev_by_mac "$1")" ] && [ -n "$(nl__dev_by_mac "$2")" ]
}

# nl_have_dev_by_mac MAC: true once a device with MAC exists (a command, so
# that nl_wait_for re-evaluates it on every poll).
nl_have_dev_by_mac()
{
	test -n "$(nl__dev_by_mac "$1")"
}

nl__dev_by_mac()
{
	local d

	for d in /sys/class/net/*; do
		if [ "$(cat "$d/address" 2>/dev/null)" = "$1" ]; then
			basename "$d"
			return 0
		fi
	done
}

nl__carrier_both()
{
	[ "$(cat "/sys/class/net/$NL_DEV/carrier")" = 1 ] &&
		[ "$(nl_ns_exec cat "/sys/class/net/$NL_PEER/carrier")" = 1 ]
}

# nl_target_dir SUBSYS NAME: print the configfs directory of a target.
nl_target_dir()
{
	echo "$NL_CFS/$1/$2"
}

# nl_target_create SUBSYS NAME [ATTR=VALUE...]: mkdir the target and set
# its attributes.  Without attributes given, dev_name, local_ip, remote_ip,
# remote_mac come from nl_setup_veth and remote_port from NL_PORT (6666).
nl_target_create()
{
	local subsys=$1 name=$2 dir kv

	shift 2
	nl_configfs
	[ -d "$NL_CFS/$subsys" ] ||
		nl_skip "$NL_CFS/$subsys missing: load the module providing it"
	dir=$(nl_target_dir "$subsys" "$name")
	mkdir "$dir" || nl_fail "mkdir $dir refused"
	NL_TARGETS+=("$subsys/$name")
	# plain format whatever the Kconfig defaults; attributes may say else
	if [ "$subsys" = netconsole ]; then
		echo 0 > "$dir/release" && echo 0 > "$dir/extended" ||
			nl_fail "cannot clear release/extended on $dir"
	fi
	if [ $# -eq 0 ]; then
		set -- dev_name="$NL_DEV" local_ip="$NL_LOCAL_IP" \
			remote_ip="$NL_REMOTE_IP" remote_port="${NL_PORT:-6666}"
		[ -n "$NL_REMOTE_MAC" ] && set -- "$@" remote_mac="$NL_REMOTE_MAC"
	fi
	for kv in "$@"; do
		nl_target_set "$subsys" "$name" "${kv%%=*}" "${kv#*=}" ||
			nl_fail "cannot set ${kv%%=*}=${kv#*=} on $dir"
	done
}

# nl_target_set SUBSYS NAME ATTR VALUE: write one attribute; returns the
# write's status so tests can assert refusals.
nl_target_set()
{
	local f

	f="$(nl_target_dir "$1" "$2")/$3"
	[ -e "$f" ] || { echo "# no attribute $f"; return 1; }
	echo "$4" > "$f" 2>/dev/null
}

# nl_target_get SUBSYS NAME ATTR: print an attribute's value.
nl_target_get()
{
	cat "$(nl_target_dir "$1" "$2")/$3"
}

nl_target_enable()
{
	nl_target_set "$1" "$2" enabled 1 ||
		nl_fail "enabling $1/$2 refused ($(dmesg | tail -n 3 | tr '\n' ' '))"
}

nl_target_disable()
{
	nl_target_set "$1" "$2" enabled 0 || nl_fail "disabling $1/$2 refused"
}

# nl_target_remove SUBSYS NAME: disable (if enabled) and rmdir.
nl_target_remove()
{
	local dir sub

	dir=$(nl_target_dir "$1" "$2")
	[ -d "$dir" ] || return 0
	if [ -e "$dir/enabled" ] && [ "$(cat "$dir/enabled")" = 1 ]; then
		echo 0 > "$dir/enabled" 2>/dev/null || true
	fi
	# A target with user fields (netoops userfields/, netconsole
	# userdata/) is not empty: a test that failed half way must not
	# leave it (and a reference on the module) to the next test.
	for sub in "$dir"/userfields/*/ "$dir"/userdata/*/; do
		[ -d "$sub" ] && rmdir "$sub"
	done
	rmdir "$dir"
}

nl__find_sink()
{
	local c

	[ -n "$NL_SINK" ] && [ -x "$NL_SINK" ] && return 0
	for c in "$NL_DIR/udp_sink" "$(command -v udp_sink 2>/dev/null || true)"; do
		if [ -n "$c" ] && [ -x "$c" ]; then
			NL_SINK=$c
			return 0
		fi
	done
	nl_skip "udp_sink not built: make -C tools/testing/selftests/netoops"
}

# nl_listen_start PORT OUT [MODE]: receive UDP on PORT inside NL_NS (or in
# the current namespace when nl_setup_veth was not called).  MODE "file"
# (default) appends every datagram to file OUT; MODE "dir" writes each
# datagram to OUT/NNNNNN.bin.  Returns once the socket is bound.
nl_listen_start()
{
	local port=$1 out=$2 mode=${3:-file} ready=$NL_TMP/sink-ready.$1
	local args=(-p "$port" -r "$ready")

	nl__find_sink
	if [ "$mode" = dir ]; then
		mkdir -p "$out"
		args+=(-d "$out")
	else
		: > "$out"
		args+=(-o "$out")
	fi
	rm -f "$ready"
	if [ -n "$NL_NS" ]; then
		ip netns exec "$NL_NS" "$NL_SINK" "${args[@]}" &
	else
		"$NL_SINK" "${args[@]}" &
	fi
	NL_LISTEN_PID="$NL_LISTEN_PID $!"
	nl_wait_for 10 test -e "$ready" || nl_fail "udp_sink did not start on $port"
}

nl_listen_stop()
{
	local p

	for p in $NL_LISTEN_PID; do
		kill "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	NL_LISTEN_PID=""
}

# nl_cleanup [RC]: undo everything nl_* created.  Use as
# `trap nl_cleanup EXIT`, or from a test's own trap as `nl_cleanup "$rc"`
# (not after `(exit $rc)`: under set -e that exits before the cleanup).
nl_cleanup()
{
	local rc=${1:-$?} t

	set +e
	nl_listen_stop
	for t in "${NL_TARGETS[@]}"; do
		nl_target_remove "${t%%/*}" "${t#*/}" 2>/dev/null
	done
	NL_TARGETS=()
	if [ -n "$NL_NS" ]; then
		if [ "${NL_WIRED:-0}" = 1 ]; then
			# Give the NIC back to the initial namespace, unconfigured.
			nl_ns_exec ip link set "$NL_PEER" netns 1 2>/dev/null
			ip addr flush dev "$NL_DEV" 2>/dev/null
			ip addr flush dev "$NL_PEER" 2>/dev/null
			ip link set "$NL_DEV" down 2>/dev/null
			ip link set "$NL_PEER" down 2>/dev/null
		else
			ip link del "$NL_DEV" 2>/dev/null
		fi
		ip netns del "$NL_NS" 2>/dev/null
		NL_NS=""
		# The next test needs the NIC back in this namespace.
		[ "${NL_WIRED:-0}" = 1 ] &&
			nl_wait_for 30 nl__both_macs $NL_WIRE_MACS
	fi
	if [ "$NL_FAILED" = 1 ] || [ "$rc" = "$KSFT_FAIL" ]; then
		echo "# evidence kept in $NL_TMP"
		find "$NL_TMP" -maxdepth 1 -type f -size -8k 2>/dev/null |
		while read -r t; do
			echo "# --- $t"
			sed 's/^/#   /' "$t" | tail -n 40
		done
	else
		rm -rf "$NL_TMP"
	fi
	return "$rc"
}

# ---------------------------------------------------------------------------
# netpoll_targets / netconsole verbs (targets_*.sh, netconsole_*.sh)
# ---------------------------------------------------------------------------

# nl_write_result FILE VALUE: write VALUE (echo, so newline-terminated) to
# FILE and print "ok" or the errno name the kernel returned (EINVAL, EBUSY,
# ...), "other:<message>" for anything else.
nl_write_result()
{
	local err

	if err=$( { echo "$2" > "$1"; } 2>&1 ); then
		echo ok
		return 0
	fi
	case $err in
	*"Invalid argument"*)		echo EINVAL ;;
	*"Device or resource busy"*)	echo EBUSY ;;
	*"Message too long"*)		echo EMSGSIZE ;;
	*"No space left on device"*)	echo ENOSPC ;;
	*"File name too long"*)		echo ENAMETOOLONG ;;
	*"Numerical result out of range"*) echo ERANGE ;;
	*"Argument list too long"*)	echo E2BIG ;;
	*"Permission denied"*)		echo EACCES ;;
	*)				echo "other:$err" ;;
	esac
}

# nl_kconfig_y OPTION: 1 if the running kernel was built with CONFIG_OPTION=y
# (from /proc/config.gz; Debian's kernels have none and set neither of the
# options asked about here), else 0.
nl_kconfig_y()
{
	# not "grep -q": it leaves early, and pipefail would fail zcat
	if [ -r /proc/config.gz ] &&
	   [ "$(zcat /proc/config.gz | grep -cx "CONFIG_$1=y")" != 0 ]; then
		echo 1
	else
		echo 0
	fi
}

# nl_expect_refused SUBSYS NAME ATTR VALUE ERRNO: writing VALUE to ATTR must
# fail with ERRNO and leave the attribute's value unchanged.
nl_expect_refused()
{
	local f before after got

	f="$(nl_target_dir "$1" "$2")/$3"
	before=$(cat "$f")
	got=$(nl_write_result "$f" "$4")
	after=$(cat "$f")
	[ "$got" = "$5" ] ||
		nl_fail "$1/$2/$3 <- '$4': expected $5, got $got"
	[ "$before" = "$after" ] ||
		nl_fail "$1/$2/$3 <- '$4' refused but value changed: '$before' -> '$after'"
}

# nl_expect_value SUBSYS NAME ATTR EXPECTED: the attribute reads EXPECTED.
nl_expect_value()
{
	local got

	got=$(nl_target_get "$1" "$2" "$3")
	[ "$got" = "$4" ] || nl_fail "$1/$2/$3 is '$got', expected '$4'"
}

# nl_wait_state SUBSYS NAME STATE TIMEOUT_S: wait until the target's
# read-only "state" attribute reads STATE.
nl_wait_state()
{
	local f

	f="$(nl_target_dir "$1" "$2")/state"
	nl_wait_for "$4" grep -qx "$3" "$f" ||
		nl_fail "$1/$2 state is '$(cat "$f")' after $4 s, expected '$3'"
}

# nl_dev_restore_addrs: put the addresses nl_setup_veth gave NL_DEV back
# (after the device was re-registered) and bring it up, waiting for carrier.
nl_dev_restore_addrs()
{
	ip addr add "$NL_LOCAL_IP/24" dev "$NL_DEV" 2>/dev/null || true
	ip -6 addr add "$NL_LOCAL_IP6/64" dev "$NL_DEV" nodad 2>/dev/null || true
	ip link set "$NL_DEV" up
	nl_wait_for 10 nl__carrier_both ||
		nl_fail "$NL_DEV/$NL_PEER: no carrier after 10 s"
}

# nl_kmsg TEXT: log TEXT at KERN_INFO through /dev/kmsg.
nl_kmsg()
{
	echo "<6>$*" > /dev/kmsg
}

# nl_dmesg_clean SINCE_LINE: fail if the kernel log after line SINCE_LINE
# (from `dmesg | wc -l` taken earlier) holds a warning, BUG or oops.
nl_dmesg_clean()
{
	local bad splats

	splats='WARNING:|BUG:|Oops|general protection|INFO: task .* blocked'
	splats+='|unregister_netdevice: waiting'
	bad=$(dmesg | tail -n +"$(( $1 + 1 ))" | grep -E "$splats" || true)
	if [ -n "$bad" ]; then
		dmesg | tail -n 60 > "$NL_TMP/dmesg"
		nl_fail "kernel complained: $bad"
	fi
}

# nl_ncfrag_rebuild DIR PREFIX SEQ TOTAL OUT: from the datagrams in DIR (one
# file each, nl_listen_start ... dir), rebuild the extended message SEQ that
# was split into "ncfrag=<off>/TOTAL" fragments, into OUT.  PREFIX is what
# precedes the level ("" or "<release>," as a basic regex).  Succeeds once
# the fragments are contiguous from 0 and cover TOTAL bytes (at least two
# of them); fails the test if one datagram exceeds 1000 bytes.
nl_ncfrag_rebuild()
{
	local dir=$1 pre=$2 seq=$3 total=$4 out=$5 g h off got=0 cur=0

	: > "$out"
	for off in $(grep -l "^$pre[0-9]*,$seq,[0-9]*,[^;]*,ncfrag=" "$dir"/*.bin |
		     xargs -r grep -ho ',ncfrag=[0-9]*/' | tr -dc '0-9\n' | sort -n); do
		[ "$off" = "$cur" ] || return 1
		g=$(grep -l "^$pre[0-9]*,$seq,[0-9]*,[^;]*,ncfrag=$off/$total;" "$dir"/*.bin |
		    head -n 1)
		[ "$(stat -c %s "$g")" -le 1000 ] ||
			nl_fail "datagram $g is $(stat -c %s "$g") bytes, more than 1000"
		h=$(head -c 160 "$g" | sed -n '1s/;.*//p')
		tail -c +$(( ${#h} + 2 )) "$g" >> "$out"
		cur=$(stat -c %s "$out")
		got=$((got + 1))
	done
	[ "$cur" = "$total" ] && [ "$got" -ge 2 ]
}

# nl_reclaim_wired: bring the wired NIC pair back to the initial namespace,
# unconfigured, if an earlier test died (e.g. killed by its timeout) and
# left one inside its namespace.  Call before nl_setup_veth.
nl_reclaim_wired()
{
	local ns m d

	[ -r /etc/netoops-wire ] || return 0
	for ns in $(ip netns list 2>/dev/null | awk '{print $1}'); do
		for m in $(cat /etc/netoops-wire); do
			d=$(ip netns exec "$ns" sh -c \
				"grep -l '^$m\$' /sys/class/net/*/address 2>/dev/null" |
			    head -n 1 | awk -F/ '{print $5}')
			[ -n "$d" ] || continue
			nl_log "reclaiming $d ($m) left in namespace $ns"
			ip netns exec "$ns" ip link set "$d" netns 1 || true
		done
	done
	for m in $(cat /etc/netoops-wire); do
		d=$(nl__dev_by_mac "$m")
		[ -n "$d" ] && ip addr flush dev "$d" 2>/dev/null
	done
	return 0
}
