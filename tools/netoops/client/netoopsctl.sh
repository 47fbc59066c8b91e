#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# netoopsctl - apply /etc/netoops/targets.conf to netoops (module
# parameters, configfs targets, user fields, keys), show the state, send a
# test dump.  See netoopsctl(8) and targets.conf(5).
#
# POSIX sh (also busybox): runs from netoops-client.service at boot.
#
# Bad input gets a clear error and loses nothing: `apply` validates the
# whole file (validate, shared with `check`) before it touches the module
# or configfs, and then changes only what differs from the file.
set -eu

CONF=/etc/netoops/targets.conf
# NETOOPSCTL_TEST_ROOT (tests only): a directory standing for /, where a
# fake configfs and module parameters live; netoopsctl then never mounts,
# loads a module or waits for carrier; the log buffer size is read from
# its logbuf-size file if there is one.  See tests/packaging/.
R=${NETOOPSCTL_TEST_ROOT:-}
CFS=$R/sys/kernel/config
NDIR=$CFS/netoops
PARAMS=$R/sys/module/netoops/parameters
SYSNET=$R/sys/class/net
# what apply wrote as each target's key: a SHA-256 of "ID:HEX", never the
# key (auth_key cannot be read back); gone at reboot, with the targets
STATEDIR=$R/run/netoops
LOGBUF_SIZE=@LIBEXECDIR@/netoops/logbuf-size
# Load-time parameters (given to modprobe); every other one is written
# to sysfs after the load.
LOAD_PARAMS="records record_size max_reason pkt_size targets"
# Target attributes, in the order apply writes them (local_ip before
# remote_ip: each sets the target's address family).
TARGET_ATTRS="dev_name local_ip remote_ip local_port remote_port remote_mac"
# record_size bounds of netoops (fs/pstore/netoops_main.c: 4096 to
# KMALLOC_MAX_SIZE, 4 MiB on x86_64)
RS_MIN=4096
RS_MAX=4194304
CARRIER_TIMEOUT=30
failed=0
tmp=""
RS=""

usage()
{
	cat <<EOF
Usage: netoopsctl [-c FILE] apply|check|status|test|remove [--all]
  apply    validate FILE (default $CONF), load netoops and apply it;
           an invalid FILE changes nothing
  check    validate FILE as apply does and print what it sets; changes
           nothing
  status   module parameters, counters and every target
  test     send a soft dump of the current log to the enabled targets
           and print what was sent
  remove   disable and remove the targets named in FILE
  remove --all
           disable and remove every netoops target in configfs
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

# parse FILE: check every line of FILE (syntax, known keys, values) and
# print "SECTION<TAB>NAME<TAB>KEY<TAB>VALUE<TAB>LINE" lines; SECTION is
# module, client or target.  Every error is reported as FILE:LINE; any
# error makes it exit 1.
parse()
{
	{ [ -f "$1" ] && [ -r "$1" ]; } || die "cannot read $1"
	awk -v file="$1" '
	function bad(msg) { badat(NR, msg) }
	function badat(l, msg) {
		printf "netoopsctl: %s:%d: %s\n", file, l, msg > "/dev/stderr"
		nbad++
	}
	function uint(v, lo, hi) {
		return v ~ /^[0-9]+$/ && length(v) <= 10 && v + 0 >= lo && v + 0 <= hi
	}
	function ip4(s,  n, a, i) {
		n = split(s, a, ".")
		if (n != 4) return 0
		for (i = 1; i <= 4; i++)
			if (a[i] !~ /^[0-9]+$/ || length(a[i]) > 3 || a[i] + 0 > 255)
				return 0
		return 1
	}
	function ip6(s,  n, a, i, t, dc, g) {
		if (s !~ /^[0-9a-fA-F:.]+$/ || s !~ /:/ || s ~ /:::/) return 0
		if (s ~ /^:[^:]/ || s ~ /[^:]:$/) return 0
		dc = 0; t = s
		while ((i = index(t, "::")) > 0) { dc++; t = substr(t, i + 2) }
		if (dc > 1) return 0
		n = split(s, a, ":"); g = 0
		for (i = 1; i <= n; i++) {
			if (a[i] == "") continue
			if (i == n && index(a[i], ".")) {
				if (!ip4(a[i])) return 0
				g += 2; continue
			}
			if (a[i] !~ /^[0-9a-fA-F]+$/ || length(a[i]) > 4) return 0
			g++
		}
		return dc ? g < 8 : g == 8
	}
	function isbool(v) {
		return v ~ /^(0|1|yes|no|true|false|on|off)$/
	}
	function check(sec, k, v,  t, n, a) {
		if (sec == "module") {
			if (k == "records") return uint(v, 0, 64) ? "" : "0 to 64"
			if (k == "record_size")
				return uint(v, 4096, 4194304) ? "" : "4096 to 4194304 (bytes)"
			if (k == "max_reason") return uint(v, 1, 4) ? "" : "1 to 4"
			if (k == "pkt_size") return uint(v, 0, 65535) ? "" : "a number of bytes"
			if (k == "targets") return v != "" ? "" : "not empty"
			if (k == "oneshot") return isbool(v) ? "" : "0, 1, yes, no, true, false, on or off"
			if (k == "repeat") return uint(v, 1, 16) ? "" : "1 to 16"
			if (k == "pace_us") return uint(v, 0, 10000) ? "" : "0 to 10000"
			if (k == "xmit_timeout_us") return uint(v, 1, 10000000) ? "" : "1 to 10000000"
			if (k == "dump_timeout_ms") return uint(v, 1, 600000) ? "" : "1 to 600000"
			if (k == "fec_k") return uint(v, 0, 254) ? "" : "0 to 254"
			if (k == "fec_m") return uint(v, 0, 255) ? "" : "0 to 255"
			if (k == "boot_id") {
				if (v ~ /^[0-9a-fA-F]+$/ && length(v) == 32) return ""
				n = split(v, a, "-")
				if (n == 5 && length(a[1]) == 8 && length(a[2]) == 4 &&
				    length(a[3]) == 4 && length(a[4]) == 4 &&
				    length(a[5]) == 12 && v ~ /^[0-9a-fA-F-]+$/)
					return ""
				return "32 hex digits or a UUID"
			}
			return "?"
		}
		if (sec == "client") {
			if (k == "carrier_timeout") return uint(v, 0, 3600) ? "" : "0 to 3600 (seconds)"
			return "?"
		}
		if (k == "dev_name")
			return v ~ /^[^\/: \t]+$/ && length(v) <= 15 && v != "." &&
				v != ".." ? "" : "an interface name (at most 15 bytes, no /, : or blank)"
		if (k == "local_ip" || k == "remote_ip")
			return ip4(v) || ip6(v) ? "" : "an IPv4 or IPv6 address"
		if (k == "local_port" || k == "remote_port")
			return uint(v, 1, 65535) ? "" : "a port, 1 to 65535"
		if (k == "remote_mac")
			return length(v) == 17 && v ~ /^[0-9a-fA-F][0-9a-fA-F](:[0-9a-fA-F][0-9a-fA-F])+$/ ? "" : "a MAC address, xx:xx:xx:xx:xx:xx"
		if (k == "enabled")
			return isbool(v) ? "" : "0, 1, yes, no, true, false, on or off"
		if (k == "auth_key_id")
			return uint(v, 0, 4294967295) ||
				(v ~ /^0[xX][0-9a-fA-F]+$/ && length(v) <= 10) ? "" : "a 32-bit number, decimal or 0x hex"
		if (k == "auth_key_file")
			return v ~ /^\// ? "" : "an absolute path"
		if (k ~ /^user\./) {
			t = substr(k, 6)
			if (t !~ /^[A-Za-z0-9_.-]+$/ || length(t) > 63)
				return "user field name: 1 to 63 of A-Z a-z 0-9 _ . -"
			return length(v) <= 255 ? "" : "at most 255 bytes"
		}
		return "?"
	}
	{ sub(/\r$/, "") }
	NR == 1 && index($0, "\357\273\277") == 1 {
		bad("starts with a byte order mark (UTF-8 BOM): save it without one")
		sub(/^\357\273\277/, "")
	}
	/^[ \t]*(#|$)/ { next }
	/^[ \t]*\[/ {
		line = $0
		# a "#" after a blank starts a comment
		sub(/[ \t]+#.*$/, "", line)
		sec = ""; name = ""; skip = 1
		if (line !~ /^[ \t]*\[[^]]*\][ \t]*$/) {
			bad("bad section \"" $0 "\": [module], [client] or [target NAME]")
			next
		}
		gsub(/^[ \t]*\[[ \t]*|[ \t]*\][ \t]*$/, "", line)
		n = split(line, w, /[ \t]+/)
		if (n == 1 && (w[1] == "module" || w[1] == "client")) {
			sec = w[1]; name = "-"; id = sec
		} else if (n == 2 && w[1] == "target" &&
			   w[2] ~ /^[A-Za-z0-9_.-]+$/ && length(w[2]) <= 63 &&
			   w[2] != "." && w[2] != "..") {
			sec = "target"; name = w[2]; id = "target " name
			ntargets++
		} else {
			bad("bad section \"" $0 "\": [module], [client] or [target NAME]")
			next
		}
		if (id in seenline) {
			bad("[" id "] twice (first at line " seenline[id] ")")
			sec = ""; skip = 1
		} else {
			seenline[id] = NR; skip = 0
			if (sec == "target") order[ntargets] = name
		}
		next
	}
	{
		if (skip) next
		if (sec == "") { bad("setting outside a section"); next }
		eq = index($0, "=")
		if (eq == 0) { bad("expected KEY = VALUE"); next }
		key = substr($0, 1, eq - 1)
		val = substr($0, eq + 1)
		gsub(/^[ \t]+|[ \t]+$/, "", key)
		# a "#" after a blank starts a comment
		sub(/[ \t]+#.*$/, "", val)
		gsub(/^[ \t]+|[ \t]+$/, "", val)
		if (key !~ /^[A-Za-z0-9_.-]+$/) { bad("bad key \"" key "\""); next }
		if (val ~ /\t/) { bad("tab in the value of " key); next }
		if ((id, key) in keyline) {
			bad(key " set twice in [" id "] (first at line " keyline[id, key] ")")
			next
		}
		keyline[id, key] = NR
		msg = check(sec, key, val)
		if (msg == "?") { bad("unknown setting " key " in [" id "]"); next }
		if (msg != "") { bad(key " = " val ": must be " msg); next }
		printf "%s\t%s\t%s\t%s\t%d\n", sec, name, key, val, NR
		v4[name, key] = val ~ /:/ ? 6 : 4
	}
	END {
		for (i = 1; i <= ntargets; i++) {
			if (!(i in order)) continue
			t = order[i]; id = "target " t; l = seenline[id]
			if (!((id, "remote_ip") in keyline))
				badat(l, "[target " t "]: remote_ip missing")
			if (((id, "auth_key_id") in keyline) != ((id, "auth_key_file") in keyline))
				badat(l, "[target " t "]: auth_key_id and auth_key_file go together")
			if (((t, "local_ip") in v4) && ((t, "remote_ip") in v4) &&
			    v4[t, "local_ip"] != v4[t, "remote_ip"])
				badat(l, "[target " t "]: local_ip and remote_ip are not both IPv4 or both IPv6")
		}
		if (nbad) exit 1
	}
	' "$1"
}

# get SECTION NAME KEY: the value, empty when not set.
get()
{
	awk -F '\t' -v s="$1" -v n="$2" -v k="$3" \
		'$1 == s && $2 == n && $3 == k { v = $4 } END { print v }' "$tmp"
}

# line SECTION NAME KEY: its line in the file.
line()
{
	awk -F '\t' -v s="$1" -v n="$2" -v k="$3" \
		'$1 == s && $2 == n && $3 == k { v = $5 } END { print v }' "$tmp"
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

# write FILE VALUE [WHAT]: write VALUE to a sysfs/configfs FILE in one
# write(2); on failure say which, with the kernel's error text, and return
# 1.  With WHAT, the message names WHAT instead of VALUE and FILE (keys).
write()
{
	if _e=$(printf '%s\n' "$2" | dd of="$1" bs=4096 2>&1 >/dev/null); then
		return 0
	fi
	_e=$(printf '%s\n' "$_e" | sed -n 's/^dd: .*: //p' | head -n 1)
	if [ $# -ge 3 ]; then
		err "cannot write $3: ${_e:-write error}"
	else
		err "cannot write '$2' to $1: ${_e:-write error}"
	fi
	return 1
}

# rd FILE: its content, empty when it cannot be read.
rd()
{
	cat "$1" 2>/dev/null || true
}

# same KEY A B: A and B are the same value of KEY (addresses, ports,
# MACs and booleans compared as the kernel shows them).
same()
{
	awk -v k="$1" -v a="$2" -v b="$3" '
	function hex4(x) { while (length(x) < 4) x = "0" x; return tolower(x) }
	# grp S ARR: the 16-bit groups of S (colon-separated, an IPv4
	# tail counting two) into ARR; their number
	function grp(s, arr,  n, p, i, c, q) {
		c = 0
		if (s == "") return 0
		n = split(s, p, ":")
		for (i = 1; i <= n; i++)
			if (index(p[i], ".")) {
				split(p[i], q, ".")
				arr[++c] = sprintf("%02x%02x", q[1], q[2])
				arr[++c] = sprintf("%02x%02x", q[3], q[4])
			} else arr[++c] = hex4(p[i])
		return c
	}
	function ip(s,  n, p, i, h, t, hn, tn, ha, ta, out) {
		if (s !~ /:/) {
			n = split(s, p, ".")
			return (p[1] + 0) "." (p[2] + 0) "." (p[3] + 0) "." (p[4] + 0)
		}
		i = index(s, "::")
		if (i) { h = substr(s, 1, i - 1); t = substr(s, i + 2) }
		else { h = s; t = "" }
		hn = grp(h, ha); tn = grp(t, ta); out = ""
		for (i = 1; i <= hn; i++) out = out ":" ha[i]
		if (index(s, "::"))
			for (i = hn + tn; i < 8; i++) out = out ":0000"
		for (i = 1; i <= tn; i++) out = out ":" ta[i]
		return out
	}
	function num(v,  i, c, n) {
		if (v !~ /^0[xX]/) return v + 0
		n = 0
		for (i = 3; i <= length(v); i++)
			n = n * 16 + index("0123456789abcdef", tolower(substr(v, i, 1))) - 1
		return n
	}
	function norm(v) {
		if (k ~ /_ip$/) return ip(v)
		if (k ~ /_port$/) return v + 0
		if (k == "auth_key_id") return v == "none" ? v : num(v)
		if (k ~ /_mac$/) return tolower(v)
		if (k == "oneshot" || k == "enabled")
			return v ~ /^(1|[yY].*|true|on)$/ ? "Y" : "N"
		return v
	}
	BEGIN { exit norm(a) == norm(b) ? 0 : 1 }'
}

is_load_param()
{
	case " $LOAD_PARAMS " in *" $1 "*) return 0 ;; esac
	return 1
}

# record_size: from the config, else the kernel's log buffer size clamped
# to what netoops accepts; sets RS.
record_size()
{
	RS=$(get module - record_size)
	[ -z "$RS" ] || return 0
	# (a test root may hold the size to pretend, in logbuf-size)
	if [ -n "$R" ] && [ -f "$R/logbuf-size" ]; then
		RS=$(cat "$R/logbuf-size")
	else
		RS=$("$LOGBUF_SIZE") ||
			{ err "cannot read the log buffer size ($LOGBUF_SIZE)"; return 1; }
	fi
	if [ "$RS" -gt $RS_MAX ]; then
		err "warning: log buffer is $RS bytes; record_size clamped to netoops' maximum, $RS_MAX (a record may then hold only the newest part of the log)"
		RS=$RS_MAX
	elif [ "$RS" -lt $RS_MIN ]; then
		err "warning: log buffer is $RS bytes; record_size raised to netoops' minimum, $RS_MIN"
		RS=$RS_MIN
	fi
}

# check_key FILE WHERE: FILE is a key file as targets.conf(5) says (root's,
# no access for group or others, 16 to 64 bytes in hex); WHERE prefixes
# the error.
check_key()
{
	if [ ! -e "$1" ]; then
		err "$2: key file $1: not found"; return 1
	fi
	if [ ! -f "$1" ]; then
		err "$2: key file $1: not a regular file"; return 1
	fi
	_own=$(stat -L -c '%u %a' "$1") || { err "$2: key file $1: cannot stat"; return 1; }
	case $_own in
	"0 "[0-7]00|"0 0") ;;
	*)	err "$2: key file $1: owner/mode $_own: must be owned by root (uid 0) with no access for group or others (chmod 0600)"
		return 1 ;;
	esac
	_hex=$(tr -d ' \t\r\n' < "$1") || { err "$2: key file $1: cannot read"; return 1; }
	case $_hex in
	*[!0-9a-fA-F]*|"") err "$2: key file $1: not hex"; return 1 ;;
	esac
	_n=${#_hex}
	if [ $((_n % 2)) != 0 ] || [ "$_n" -lt 32 ] || [ "$_n" -gt 128 ]; then
		err "$2: key file $1: $_n hex digits: must be 16 to 64 bytes (32 to 128 hex digits, an even number)"
		return 1
	fi
}

# validate: the whole file, as apply and check both need it; exits 1 on
# any error, having changed nothing.
validate()
{
	tmp=$(mktemp)
	parse "$CONF" > "$tmp" || die "$CONF: invalid, nothing changed"
	_bad=0
	for _t in $(targets); do
		_kf=$(get target "$_t" auth_key_file)
		[ -n "$_kf" ] || continue
		check_key "$_kf" "$CONF:$(line target "$_t" auth_key_file)" || _bad=1
	done
	[ -n "$(targets)" ] || { err "$CONF: no [target NAME] section"; _bad=1; }
	[ $_bad = 0 ] || die "$CONF: invalid, nothing changed"
	record_size || die "$CONF: not applied, nothing changed"
}

# key_of NAME: the key apply writes for target NAME: "ID:HEX" or none.
key_of()
{
	_kf=$(get target "$1" auth_key_file)
	if [ -z "$_kf" ]; then
		echo none
	else
		echo "$(get target "$1" auth_key_id):$(tr -d ' \t\r\n' < "$_kf")"
	fi
}

mount_configfs()
{
	[ -z "$R" ] || return 0
	grep -q " $CFS configfs " /proc/mounts && return 0
	modprobe configfs 2>/dev/null || true
	mount -t configfs configfs "$CFS" || die "cannot mount configfs on $CFS"
}

# load_module: modprobe netoops with the load-time parameters; when it is
# loaded already, say which of them differ (they cannot change).
load_module()
{
	if [ -d "$PARAMS" ]; then
		for _k in $LOAD_PARAMS; do
			if [ "$_k" = record_size ]; then
				_v=$RS
			else
				_v=$(get module - "$_k")
			fi
			{ [ -n "$_v" ] && [ -r "$PARAMS/$_k" ]; } || continue
			_cur=$(rd "$PARAMS/$_k")
			[ "$_cur" = "$_v" ] ||
				err "warning: netoops already loaded: $_k is $_cur, not $_v (reload the module to change it)"
		done
		return 0
	fi
	[ -z "$R" ] || die "$PARAMS missing (test root)"
	set -- "record_size=$RS"
	for _k in $(keys module -); do
		{ [ "$_k" != record_size ] && is_load_param "$_k"; } || continue
		set -- "$@" "$_k=$(get module - "$_k")"
	done
	modprobe netoops "$@" || die "modprobe netoops $* failed"
	[ -d "$PARAMS" ] || die "netoops loaded but $PARAMS is missing"
}

# set_params: run-time parameters that differ, in file order; boot_id
# defaults to the kernel's boot id.
set_params()
{
	for _k in $(keys module -); do
		is_load_param "$_k" && continue
		_v=$(get module - "$_k")
		if [ ! -e "$PARAMS/$_k" ]; then
			err "netoops has no parameter $_k (an older module?)"
			failed=1
			continue
		fi
		same "$_k" "$(rd "$PARAMS/$_k")" "$_v" ||
			write "$PARAMS/$_k" "$_v" || failed=1
	done
	if [ -z "$(get module - boot_id)" ] &&
	   [ -r /proc/sys/kernel/random/boot_id ] && [ -z "$R" ]; then
		_v=$(cat /proc/sys/kernel/random/boot_id)
		_cur=$(rd "$PARAMS/boot_id")
		# the module shows it as 32 hex digits or as a UUID
		[ "$(echo "$_cur" | tr -d -)" = "$(echo "$_v" | tr -d -)" ] ||
			write "$PARAMS/boot_id" "$_v" || failed=1
	fi
}

wait_carrier()
{
	[ -z "$R" ] || return 0
	_end=$(( $(date +%s) + $2 ))
	while [ "$(rd "$SYSNET/$1/carrier")" != 1 ]; do
		[ "$(date +%s)" -lt "$_end" ] || return 1
		sleep 0.2
	done
}

# want TARGET KEY: the value the target gets: the file's, else the
# attribute's default (a key removed from the file is reset).
want()
{
	_w=$(get target "$1" "$2")
	if [ -n "$_w" ]; then
		echo "$_w"
		return 0
	fi
	case $2 in
	dev_name)	echo eth0 ;;
	local_ip)	case $(get target "$1" remote_ip) in
			*:*) echo :: ;;
			*) echo 0.0.0.0 ;;
			esac ;;
	remote_ip)	echo 0.0.0.0 ;;
	local_port)	echo 6666 ;;
	remote_port)	echo 6667 ;;
	remote_mac)	echo ff:ff:ff:ff:ff:ff ;;
	esac
}

# keyhash NAME: what STATEDIR records for the key of NAME.
keyhash()
{
	_k=$(key_of "$1")
	if [ "$_k" = none ]; then
		echo none
	else
		printf '%s' "$_k" | sha256sum | cut -d ' ' -f 1
	fi
}

# rmd DIR: rmdir a configfs directory (in a test root, where the
# attributes are plain files, remove them too).
rmd()
{
	if [ -n "$R" ]; then
		rm -rf "$1"
	else
		rmdir "$1"
	fi
}

# fake_target DIR (tests only): what mkdir makes in the real configfs.
fake_target()
{
	mkdir -p "$1/userfields"
	printf '0\n' > "$1/enabled"
	printf 'disabled\n' > "$1/state"
	printf 'none\n' > "$1/auth_key_id"
	for _a in $TARGET_ATTRS; do
		want "" "$_a" > "$1/$_a"
	done
}

# changed WHAT: add WHAT to what apply_target did to the target.
changed()
{
	case $_what in
	created) ;;
	unchanged) _what="updated: $1" ;;
	*) _what="$_what $1" ;;
	esac
}

# apply_target NAME: create or update the target as the file says,
# disabling it only when an attribute or its key changes.
apply_target()
{
	_t=$1
	_d=$NDIR/$_t
	_what=unchanged
	if [ ! -d "$_d" ]; then
		mkdir "$_d" || { err "cannot create target $_t"; return 1; }
		[ -z "$R" ] || fake_target "$_d"
		_what=created
	fi
	_chg=""
	for _k in $TARGET_ATTRS; do
		same "$_k" "$(rd "$_d/$_k")" "$(want "$_t" "$_k")" || _chg="$_chg $_k"
	done
	_kh=$(keyhash "$_t")
	_kid=$(get target "$_t" auth_key_id)
	# no key: the kernel shows it; a key: the id must match and the hash
	# of what apply wrote last
	if ! same auth_key_id "$(rd "$_d/auth_key_id")" "${_kid:-none}" ||
	   { [ "$_kh" != none ] && [ "$(rd "$STATEDIR/$_t.key")" != "$_kh" ]; }; then
		_chg="$_chg auth_key"
	fi
	case $(get target "$_t" enabled) in
	0|no|false|off) _en=0 ;;
	*) _en=1 ;;
	esac
	if [ -n "$_chg" ]; then
		for _k in $_chg; do changed "$_k"; done
		if [ "$(rd "$_d/enabled")" != 0 ]; then
			write "$_d/enabled" 0 || return 1
		fi
		for _k in $TARGET_ATTRS; do
			case " $_chg " in *" $_k "*) ;; *) continue ;; esac
			write "$_d/$_k" "$(want "$_t" "$_k")" || return 1
		done
		case " $_chg " in
		*" auth_key "*)
			rm -f "$STATEDIR/$_t.key"
			write "$_d/auth_key" "$(key_of "$_t")" "auth_key of target $_t" ||
				return 1
			[ -z "$R" ] || printf '%s\n' "${_kid:-none}" > "$_d/auth_key_id"
			(umask 077; mkdir -p "$STATEDIR" && echo "$_kh" > "$STATEDIR/$_t.key") ||
				err "warning: cannot record the key of $_t in $STATEDIR (the next apply rewrites it)"
			;;
		esac
	fi
	# user fields: exactly those of the file (they may change while
	# the target is enabled)
	for _u in "$_d"/userfields/*; do
		[ -d "$_u" ] || continue
		[ -n "$(line target "$_t" "user.${_u##*/}")" ] && continue
		rmd "$_u" || { err "target $_t: cannot remove user field ${_u##*/}"; return 1; }
		changed "-user.${_u##*/}"
	done
	for _k in $(keys target "$_t"); do
		case $_k in user.*) ;; *) continue ;; esac
		_u=$_d/userfields/${_k#user.}
		_v=$(get target "$_t" "$_k")
		if [ ! -d "$_u" ]; then
			mkdir "$_u" ||
				{ err "target $_t: cannot create user field ${_k#user.}"; return 1; }
			[ -z "$R" ] || : > "$_u/value"
		elif [ "$(rd "$_u/value")" = "$_v" ]; then
			continue
		fi
		write "$_u/value" "$_v" || return 1
		changed "$_k"
	done
	if [ $_en = 1 ] && [ "$(rd "$_d/enabled")" != 1 ]; then
		_dev=$(want "$_t" dev_name)
		_ct=$(get client - carrier_timeout)
		wait_carrier "$_dev" "${_ct:-$CARRIER_TIMEOUT}" ||
			err "target $_t: no carrier on $_dev, enabling anyway"
		write "$_d/enabled" 1 || return 1
		changed enabled
	elif [ $_en = 0 ] && [ "$(rd "$_d/enabled")" != 0 ]; then
		write "$_d/enabled" 0 || return 1
	fi
	_to="$(rd "$_d/dev_name") -> $(rd "$_d/remote_ip"):$(rd "$_d/remote_port")"
	if [ $_en = 1 ]; then
		echo "netoopsctl: target $_t enabled ($_to), $_what"
	else
		echo "netoopsctl: target $_t configured, not enabled ($_to), $_what"
	fi
}

cmd_apply()
{
	validate
	mount_configfs
	load_module
	set_params
	[ -d "$NDIR" ] || die "$NDIR missing after loading netoops"
	for _t in $(targets); do
		apply_target "$_t" || { err "target $_t: not applied"; failed=1; }
	done
	for _d in "$NDIR"/*; do
		[ -d "$_d" ] || continue
		[ -n "$(awk -F '\t' -v t="${_d##*/}" '$1 == "target" && $2 == t' "$tmp")" ] ||
			err "warning: target ${_d##*/} is in $NDIR but not in $CONF (left as it is; netoopsctl remove --all removes every target)"
	done
	echo "netoopsctl: record_size $(rd "$PARAMS/record_size"), boot_id $(rd "$PARAMS/boot_id")"
	return $failed
}

cmd_check()
{
	validate
	echo "modprobe netoops record_size=$RS"
	for _k in $(keys module -); do
		echo "module $_k = $(get module - "$_k")"
	done
	for _k in $(keys client -); do
		echo "client $_k = $(get client - "$_k")"
	done
	for _t in $(targets); do
		for _k in $(keys target "$_t"); do
			echo "target $_t $_k = $(get target "$_t" "$_k")"
		done
	done
	echo "netoopsctl: $CONF: valid"
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
			"$(rd "$_d/dev_name")" "$(rd "$_d/remote_ip")" \
			"$(rd "$_d/remote_port")" "$(rd "$_d/auth_key_id")"
		for _u in "$_d"/userfields/*; do
			[ -d "$_u" ] && printf '    %s = %s\n' "${_u##*/}" "$(rd "$_u/value")"
		done
	done
	[ $_n -gt 0 ] || echo "  none"
	if [ -n "$tmp" ]; then
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
		{ [ -d "$_d" ] && [ "$(rd "$_d/enabled")" = 1 ]; } || continue
		_to="$_to ${_d##*/}($(rd "$_d/dev_name") -> $(rd "$_d/remote_ip"):$(rd "$_d/remote_port"))"
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
	echo "boot_id: $(rd "$PARAMS/boot_id")"
	echo "at the collector: netoops list --reason soft; netoops show ID | grep '$_mark'"
	[ "$_e" = 0 ] && [ "$_p" -gt 0 ]
}

# remove_target DIR: disable it, remove its user fields and it.
remove_target()
{
	_d=$1
	_t=${_d##*/}
	if [ "$(rd "$_d/enabled")" != 0 ]; then
		write "$_d/enabled" 0 || return 1
	fi
	for _u in "$_d"/userfields/*; do
		[ ! -d "$_u" ] || rmd "$_u" ||
			{ err "target $_t: cannot remove user field ${_u##*/}"; return 1; }
	done
	rmd "$_d" || { err "cannot remove target $_t"; return 1; }
	rm -f "$STATEDIR/$_t.key"
	echo "netoopsctl: target $_t removed"
}

cmd_remove()
{
	if [ "$all" = 1 ]; then
		for _d in "$NDIR"/*; do
			[ -d "$_d" ] || continue
			remove_target "$_d" || failed=1
		done
		return $failed
	fi
	for _t in $(targets); do
		[ -d "$NDIR/$_t" ] || continue
		remove_target "$NDIR/$_t" || failed=1
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
all=0
if [ $# = 2 ] && [ "$1" = remove ] && [ "$2" = --all ]; then
	all=1
	set -- remove
fi
[ $# = 1 ] || { usage >&2; exit 2; }

trap cleanup EXIT
case $1 in
apply|check) ;;
remove)
	if [ $all = 0 ]; then
		tmp=$(mktemp)
		parse "$CONF" > "$tmp" || die "$CONF: invalid, nothing removed"
	fi ;;
status|test)
	if [ -r "$CONF" ]; then
		tmp=$(mktemp)
		parse "$CONF" > "$tmp" 2>/dev/null ||
			{ err "warning: $CONF is invalid (netoopsctl check)"; rm -f "$tmp"; tmp=""; }
	fi ;;
*)	usage >&2; exit 2 ;;
esac
"cmd_$1"
