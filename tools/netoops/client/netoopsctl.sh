#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# netoopsctl - apply /etc/netoops/targets.conf to netoops (module
# parameters, configfs targets, user fields, keys), show the state, send a
# test dump.  See netoopsctl(8) and targets.conf(5).
#
# POSIX sh (also busybox): runs from netoops-client.service at boot.
set -eu

CONF=/etc/netoops/targets.conf
CFS=/sys/kernel/config
NDIR=$CFS/netoops
PARAMS=/sys/module/netoops/parameters
LOGBUF_SIZE=@LIBEXECDIR@/netoops/logbuf-size
# Load-time parameters (given to modprobe); every other one is written
# to sysfs after the load.
LOAD_PARAMS="records record_size max_reason pkt_size targets"
# Target attributes written before user fields and the key, in this order.
TARGET_ATTRS="dev_name local_ip remote_ip local_port remote_port remote_mac"
CARRIER_TIMEOUT=30
failed=0
tmp=""

usage()
{
	cat <<EOF
Usage: netoopsctl [-c FILE] apply|check|status|test|remove
  apply    load netoops and apply FILE (default $CONF)
  check    parse FILE and print what apply would do, change nothing
  status   module parameters, counters and every target
  test     send a soft dump of the current log to the enabled targets
           and print what was sent
  remove   disable and remove the targets named in FILE
EOF
}

err()
{
	echo "netoopsctl: $*" >&2
}

die()
{
	err "$@"
	exit 1
}

cleanup()
{
	[ -z "$tmp" ] || rm -f "$tmp"
}

# parse: FILE -> lines "SECTION<TAB>NAME<TAB>KEY<TAB>VALUE" on stdout;
# SECTION is module, client or target.  Dies with the line number on a
# syntax error.
parse()
{
	[ -r "$1" ] || die "cannot read $1"
	awk -v file="$1" '
	function bad(msg) {
		printf "netoopsctl: %s:%d: %s\n", file, NR, msg > "/dev/stderr"
		failed = 1
		exit 1
	}
	{ sub(/\r$/, "") }
	/^[ \t]*(#|$)/ { next }
	/^[ \t]*\[/ {
		line = $0
		gsub(/^[ \t]*\[[ \t]*|[ \t]*\][ \t]*$/, "", line)
		n = split(line, w, /[ \t]+/)
		if (n == 1 && (w[1] == "module" || w[1] == "client")) {
			sec = w[1]; name = "-"
		} else if (n == 2 && w[1] == "target" &&
			   w[2] ~ /^[A-Za-z0-9_.-]+$/ && length(w[2]) <= 63) {
			sec = "target"; name = w[2]
			if (name in seen) bad("target " name " twice")
			seen[name] = 1
		} else {
			bad("bad section \"" $0 "\": [module], [client] or [target NAME]")
		}
		next
	}
	{
		if (sec == "") bad("setting outside a section")
		eq = index($0, "=")
		if (eq == 0) bad("expected KEY = VALUE")
		key = substr($0, 1, eq - 1)
		val = substr($0, eq + 1)
		gsub(/^[ \t]+|[ \t]+$/, "", key)
		# a "#" after a blank starts a comment
		sub(/[ \t]+#.*$/, "", val)
		gsub(/^[ \t]+|[ \t]+$/, "", val)
		if (key !~ /^[A-Za-z0-9_.-]+$/) bad("bad key \"" key "\"")
		if (val ~ /\t/) bad("tab in value")
		printf "%s\t%s\t%s\t%s\n", sec, name, key, val
	}
	END { if (failed) exit 1 }
	' "$1"
}

# get SECTION NAME KEY: the value, empty when not set.
get()
{
	awk -F '\t' -v s="$1" -v n="$2" -v k="$3" \
		'$1 == s && $2 == n && $3 == k { v = $4 } END { print v }' "$tmp"
}

# keys SECTION NAME: the keys set, in file order.
keys()
{
	awk -F '\t' -v s="$1" -v n="$2" '$1 == s && $2 == n { print $3 }' "$tmp"
}

targets()
{
	awk -F '\t' '$1 == "target" && !seen[$2]++ { print $2 }' "$tmp"
}

# write FILE VALUE: write VALUE to a sysfs/configfs FILE; on failure say
# which and return 1.
write()
{
	if ! (printf '%s\n' "$2" > "$1") 2>/dev/null; then
		err "cannot write '$2' to $1"
		return 1
	fi
}

is_load_param()
{
	case " $LOAD_PARAMS " in *" $1 "*) return 0 ;; esac
	return 1
}

# record_size: from the config, else the kernel's log buffer size.
record_size()
{
	_rs=$(get module - record_size)
	if [ -z "$_rs" ]; then
		_rs=$("$LOGBUF_SIZE") || die "cannot read the log buffer size ($LOGBUF_SIZE)"
	fi
	echo "$_rs"
}

mount_configfs()
{
	grep -q " $CFS configfs " /proc/mounts && return 0
	modprobe configfs 2>/dev/null || true
	mount -t configfs configfs "$CFS" || die "cannot mount configfs on $CFS"
}

# load_module: modprobe netoops with the load-time parameters; when it is
# loaded already, say which of them differ (they cannot change).
load_module()
{
	_rs=$(record_size)
	if [ -d "$PARAMS" ]; then
		for _k in $LOAD_PARAMS; do
			if [ "$_k" = record_size ]; then
				_v=$_rs
			else
				_v=$(get module - "$_k")
			fi
			{ [ -n "$_v" ] && [ -r "$PARAMS/$_k" ]; } || continue
			_cur=$(cat "$PARAMS/$_k")
			[ "$_cur" = "$_v" ] ||
				err "netoops already loaded: $_k is $_cur, not $_v (reload the module to change it)"
		done
		return 0
	fi
	set -- "record_size=$_rs"
	for _k in $(keys module -); do
		{ [ "$_k" != record_size ] && is_load_param "$_k"; } || continue
		set -- "$@" "$_k=$(get module - "$_k")"
	done
	modprobe netoops "$@" || die "modprobe netoops $* failed"
	[ -d "$PARAMS" ] || die "netoops loaded but $PARAMS is missing"
}

# set_params: run-time parameters in file order; boot_id defaults to the
# kernel's boot id.
set_params()
{
	for _k in $(keys module -); do
		is_load_param "$_k" && continue
		if [ ! -e "$PARAMS/$_k" ]; then
			err "unknown netoops parameter $_k"
			failed=1
			continue
		fi
		write "$PARAMS/$_k" "$(get module - "$_k")" || failed=1
	done
	if [ -z "$(get module - boot_id)" ] &&
	   [ -r /proc/sys/kernel/random/boot_id ]; then
		write "$PARAMS/boot_id" "$(cat /proc/sys/kernel/random/boot_id)" ||
			failed=1
	fi
}

# read_key FILE ID: "ID:HEX" from a key file that only root may read.
read_key()
{
	[ -f "$1" ] || { err "key file $1: not found"; return 1; }
	_own=$(stat -L -c '%u %a' "$1")
	case $_own in
	"0 "[0-7]00) ;;
	*)	err "key file $1: owner/mode $_own: must be root's, mode 0600 or 0400"
		return 1 ;;
	esac
	_hex=$(tr -d ' \n' < "$1")
	case $_hex in
	*[!0-9a-fA-F]*|"") err "key file $1: not hex"; return 1 ;;
	esac
	echo "$2:$_hex"
}

wait_carrier()
{
	_end=$(( $(date +%s) + $2 ))
	while [ "$(cat "/sys/class/net/$1/carrier" 2>/dev/null || true)" != 1 ]; do
		[ "$(date +%s)" -lt "$_end" ] || return 1
		sleep 0.2
	done
}

# apply_target NAME: create or update the target, then enable it.
apply_target()
{
	_t=$1
	_d=$NDIR/$_t
	[ -d "$_d" ] || mkdir "$_d" || { err "cannot create target $_t"; return 1; }
	if [ "$(cat "$_d/enabled")" != 0 ]; then
		write "$_d/enabled" 0 || return 1
	fi
	_dev=$(get target "$_t" dev_name)
	if [ -n "$_dev" ]; then
		_ct=$(get client - carrier_timeout)
		wait_carrier "$_dev" "${_ct:-$CARRIER_TIMEOUT}" ||
			err "target $_t: no carrier on $_dev, enabling anyway"
	fi
	for _k in $TARGET_ATTRS; do
		_v=$(get target "$_t" "$_k")
		[ -z "$_v" ] || write "$_d/$_k" "$_v" || return 1
	done
	# user fields: exactly those of the file
	for _u in "$_d"/userfields/*; do
		[ -d "$_u" ] || continue
		[ -n "$(get target "$_t" "user.${_u##*/}")" ] ||
			rmdir "$_u" || return 1
	done
	for _k in $(keys target "$_t"); do
		case $_k in
		user.*)	_u=$_d/userfields/${_k#user.}
			[ -d "$_u" ] || mkdir "$_u" ||
				{ err "target $_t: cannot create user field ${_k#user.}"; return 1; }
			write "$_u/value" "$(get target "$_t" "$_k")" || return 1 ;;
		enabled|auth_key_id|auth_key_file) ;;
		*)	case " $TARGET_ATTRS " in
			*" $_k "*) ;;
			*) err "target $_t: unknown setting $_k"; return 1 ;;
			esac ;;
		esac
	done
	_kf=$(get target "$_t" auth_key_file)
	_kid=$(get target "$_t" auth_key_id)
	if [ -n "$_kf" ] || [ -n "$_kid" ]; then
		{ [ -n "$_kf" ] && [ -n "$_kid" ]; } ||
			{ err "target $_t: auth_key_file and auth_key_id go together"; return 1; }
		_key=$(read_key "$_kf" "$_kid") || return 1
		write "$_d/auth_key" "$_key" || return 1
	else
		write "$_d/auth_key" none || return 1
	fi
	case $(get target "$_t" enabled) in
	0|no|false) echo "netoopsctl: target $_t configured, not enabled" ;;
	*)	write "$_d/enabled" 1 || return 1
		echo "netoopsctl: target $_t enabled ($(cat "$_d/dev_name") -> $(cat "$_d/remote_ip"):$(cat "$_d/remote_port"))" ;;
	esac
}

cmd_apply()
{
	[ "$(targets)" ] || die "$CONF: no [target NAME] section"
	mount_configfs
	load_module
	set_params
	[ -d "$NDIR" ] || die "$NDIR missing after loading netoops"
	for _t in $(targets); do
		apply_target "$_t" || { err "target $_t: not applied"; failed=1; }
	done
	echo "netoopsctl: record_size $(cat "$PARAMS/record_size"), boot_id $(cat "$PARAMS/boot_id")"
	return $failed
}

cmd_check()
{
	echo "modprobe netoops record_size=$(record_size)"
	for _k in $(keys module -); do
		echo "module $_k = $(get module - "$_k")"
	done
	for _t in $(targets); do
		for _k in $(keys target "$_t"); do
			echo "target $_t $_k = $(get target "$_t" "$_k")"
		done
		_kf=$(get target "$_t" auth_key_file)
		[ -z "$_kf" ] || read_key "$_kf" x >/dev/null || failed=1
	done
	return $failed
}

cmd_status()
{
	if [ ! -d "$PARAMS" ]; then
		echo "netoops: not loaded"
		return 3
	fi
	echo "netoops: loaded"
	for _p in "$PARAMS"/*; do
		case ${_p##*/} in dump|rearm|stats) continue ;; esac
		[ -r "$_p" ] || continue
		printf '  %-16s %s\n' "${_p##*/}" "$(cat "$_p" 2>/dev/null || echo '?')"
	done
	echo "counters:"
	sed 's/^/  /' "$PARAMS/stats"
	echo "targets:"
	_n=0
	for _d in "$NDIR"/*; do
		[ -d "$_d" ] || continue
		_n=$((_n + 1))
		printf '  %s: %s, %s -> %s:%s, key %s\n' "${_d##*/}" \
			"$(cat "$_d/state" 2>/dev/null || cat "$_d/enabled")" \
			"$(cat "$_d/dev_name")" "$(cat "$_d/remote_ip")" \
			"$(cat "$_d/remote_port")" "$(cat "$_d/auth_key_id")"
		for _u in "$_d"/userfields/*; do
			[ -d "$_u" ] && printf '    %s = %s\n' "${_u##*/}" "$(cat "$_u/value")"
		done
	done
	[ $_n -gt 0 ] || echo "  none"
	if [ -r "$CONF" ] && [ -n "$tmp" ]; then
		for _t in $(targets); do
			[ -d "$NDIR/$_t" ] || echo "  $_t: in $CONF, not applied"
		done
	fi
}

# stat_of NAME: one counter of the stats parameter.
stat_of()
{
	awk -v k="$1" '$1 == k { print $2 }' "$PARAMS/stats"
}

cmd_test()
{
	[ -d "$PARAMS" ] || die "netoops is not loaded (netoopsctl apply)"
	_to=""
	for _d in "$NDIR"/*; do
		{ [ -d "$_d" ] && [ "$(cat "$_d/enabled")" = 1 ]; } || continue
		_to="$_to ${_d##*/}($(cat "$_d/dev_name") -> $(cat "$_d/remote_ip"):$(cat "$_d/remote_port"))"
	done
	[ -n "$_to" ] || die "no enabled target"
	_mark="netoopsctl test $(date -u +%Y%m%dT%H%M%SZ)-$$"
	write /dev/kmsg "<6>netoops: $_mark" || die "cannot write to /dev/kmsg"
	_p0=$(stat_of packets) _b0=$(stat_of bytes) _e0=$(stat_of errors)
	_log=$(dmesg | wc -c)
	write "$PARAMS/dump" 1 || die "soft dump not sent (no target took it)"
	_p=$(( $(stat_of packets) - _p0 ))
	_b=$(( $(stat_of bytes) - _b0 ))
	_e=$(( $(stat_of errors) - _e0 ))
	echo "sent: soft dump of the current log (about $_log bytes of text), marked \"$_mark\""
	echo "to:  $_to"
	echo "datagrams: $_p, UDP payload bytes: $_b, errors: $_e"
	echo "boot_id: $(cat "$PARAMS/boot_id")"
	echo "at the collector: netoops list --reason soft; netoops show ID | grep '$_mark'"
	[ "$_e" = 0 ] && [ "$_p" -gt 0 ]
}

cmd_remove()
{
	for _t in $(targets); do
		_d=$NDIR/$_t
		[ -d "$_d" ] || continue
		write "$_d/enabled" 0 || { failed=1; continue; }
		for _u in "$_d"/userfields/*; do
			[ ! -d "$_u" ] || rmdir "$_u" || failed=1
		done
		if rmdir "$_d"; then
			echo "netoopsctl: target $_t removed"
		else
			failed=1
		fi
	done
	return $failed
}

while [ $# -gt 0 ]; do
	case $1 in
	-c|--config) [ $# -ge 2 ] || { usage >&2; exit 2; }
		CONF=$2; shift 2 ;;
	-h|--help) usage; exit 0 ;;
	-*)	usage >&2; exit 2 ;;
	*)	break ;;
	esac
done
[ $# = 1 ] || { usage >&2; exit 2; }

trap cleanup EXIT
case $1 in
apply|check|remove)
	tmp=$(mktemp)
	parse "$CONF" > "$tmp" || exit 1 ;;
status|test)
	if [ -r "$CONF" ]; then
		tmp=$(mktemp)
		parse "$CONF" > "$tmp" || exit 1
	fi ;;
*)	usage >&2; exit 2 ;;
esac
"cmd_$1"
