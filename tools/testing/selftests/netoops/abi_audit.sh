#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ABI audit of netpoll_targets, netconsole and netoops: everything a user
# can write, checked against the project's rules.
#
#   1 modes        no file under the configfs trees, the modules' parameters
#                  or /sys/fs/pstore is world-writable; every mode is listed
#                  as a diagnostic
#   2 cfs-disabled every writable attribute of a disabled target (both
#                  subsystems, netconsole userdata, netoops userfields),
#                  fed the values of the BAD table: each write fails with
#                  the table's errno (EINVAL; netconsole's dev_name
#                  ENAMETOOLONG, userdata EMSGSIZE) and the value read back
#                  is unchanged; read-only attributes refuse every write
#   3 cfs-enabled  the same table on enabled targets: that errno or EBUSY,
#                  value unchanged, the target still enabled
#   4 params       run-time module parameters: bad values refused with
#                  EINVAL, value unchanged; read-only ones refuse writes
#   5 load-params  modprobe netoops with each bad load-time parameter fails
#                  and leaves no module behind
#   6 unload       with enabled targets in configfs, rmmod of every module is
#                  refused (configfs pins the owner) without disturbing the
#                  targets, and so is the stock netconsole's (compared when
#                  its .ko is in the guest); after rmdir of the still-enabled
#                  targets the three modules unload, reload and work; no
#                  splat in the kernel log.
#                  stress_lifecycle.sh covers unloading with enabled
#                  targets created from module parameters.
#
# Values that an attribute accepts by design are not in the table: the value
# of a userdata/userfields entry is free text up to its length limit (only
# the limit, and NUL for netoops, are checked).
source "$(dirname "$0")"/lib_netoops.sh

nl_require_root
nl_require_cmd ip find stat
nl_require_module netconsole
[ -d /sys/module/netpoll_targets ] ||
	nl_skip "netconsole is not the project's (no netpoll_targets): load the project's modules"
nl_require_module netoops
trap au_cleanup EXIT
nl_configfs
[ -d "$NL_CFS/netoops" ] || nl_skip "$NL_CFS/netoops missing: netoops without configfs"

P=/sys/module/netoops/parameters
SPLATS='WARNING:|BUG:|Oops|general protection|KASAN|UBSAN|refcount_t'
SPLATS+='|list_(add|del) corruption|unregister_netdevice: waiting'
SPLATS+='|INFO: task .* blocked'
sub=0
fails=0
nbad=0		# failed checks in the current subtest
nchecks=0	# checks made in the current subtest
L256=$(printf 'x%.0s' $(seq 256))
L300=$(printf 'y%.0s' $(seq 300))
L5000=$(printf 'z%.0s' $(seq 5000))
KEY=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
WITNESS=""	# write_refused reads this file instead (write-only attributes)

au_cleanup()
{
	local rc=$? m

	set +e
	# Modules back as they were for the next test.
	for m in netpoll_targets netconsole netoops; do
		[ -d "/sys/module/$m" ] || modprobe "$m" 2>/dev/null
	done
	nl_cleanup "$rc"
}

# result NAME: one KTAP subtest line from nbad/nchecks; resets them.
result()
{
	sub=$((sub + 1))
	if [ "$nchecks" = 0 ]; then
		echo "not ok $sub $1 # no check was made"
		fails=$((fails + 1))
	elif [ "$nbad" = 0 ]; then
		echo "ok $sub $1 # $nchecks checks"
	else
		echo "not ok $sub $1 # $nbad of $nchecks checks failed"
		fails=$((fails + 1))
	fi
	nbad=0
	nchecks=0
}

bad()
{
	nl_log "FAIL: $*"
	nbad=$((nbad + 1))
}

# show VALUE: a printable, bounded form of VALUE for diagnostics.
show()
{
	local s

	s=$(printf '%q' "$1")
	[ ${#s} -le 40 ] || s="${s:0:24}...(${#1} bytes)"
	printf '%s' "$s"
}

# write1 FILE VALUE: write VALUE and a newline to FILE in ONE write(2); the
# outcome, "ok" or the errno name (as nl_write_result prints), goes to W1.
# Without starting a process where that is safe: a value with no newline
# and under 4000 bytes leaves bash's printf builtin in one write(2) (stdio
# buffers a 4 KiB block and flushes it at the end); others go through dd,
# one read and one write (echo or printf would split them).  A process
# start costs ~0.1 s on the debug kernel under TCG; this runs ~600 times.
write1()
{
	local LC_ALL=C err= tmp=$NL_TMP/value errf=$NL_TMP/write.err

	if [[ $2 != *$'\n'* ]] && [ ${#2} -lt 4000 ]; then
		if { printf '%s\n' "$2" > "$1"; } 2> "$errf"; then
			W1=ok
			return 0
		fi
	else
		printf '%s\n' "$2" > "$tmp"
		if dd if="$tmp" of="$1" bs=1M count=1 conv=notrunc 2> "$errf"; then
			W1=ok
			return 0
		fi
	fi
	IFS= read -r -d '' err < "$errf" || true
	case $err in
	*"Invalid argument"*)		W1=EINVAL ;;
	*"Device or resource busy"*)	W1=EBUSY ;;
	*"Message too long"*)		W1=EMSGSIZE ;;
	*"No space left on device"*)	W1=ENOSPC ;;
	*"Permission denied"*)		W1=EACCES ;;
	*"Operation not permitted"*)	W1=EPERM ;;
	*"No such device"*)		W1=ENODEV ;;
	*"Numerical result out of range"*) W1=ERANGE ;;
	*"File name too long"*)		W1=ENAMETOOLONG ;;
	*)				W1="other:${err%%$'\n'*}" ;;
	esac
	return 0
}

# write_refused FILE VALUE ALLOWED...: writing VALUE (newline-terminated,
# as echo does, in one write) to FILE must fail with one of the ALLOWED
# errno names and leave what FILE reads unchanged.
write_refused()
{
	local f=$1 v=$2 before after got e

	shift 2
	nchecks=$((nchecks + 1))
	# read without starting a process (slow on a debug kernel); a file
	# that cannot be read reads as empty, before and after alike
	before= after=
	IFS= read -r -d '' before 2>/dev/null < "${WITNESS:-$f}" || true
	write1 "$f" "$v"
	got=$W1
	IFS= read -r -d '' after 2>/dev/null < "${WITNESS:-$f}" || true
	for e in "$@"; do
		[ "$got" = "$e" ] && break
	done
	[ "$got" = "$e" ] ||
		bad "${f#"$NL_CFS"/} <- $(show "$v"): expected $*, got $got"
	[ "$before" = "$after" ] ||
		bad "${f#"$NL_CFS"/} <- $(show "$v"): $got but value changed $(show "$before") ->" \
			"$(show "$after")"
}

# ---------------------------------------------------------------------------
# The table of bad values, per attribute.  bad_values SUBSYS ATTR sets BAD
# and ERR, the errno expected.  netconsole takes what upstream's takes
# (netconsole_diff.sh compares every value with the stock module): its
# table holds what upstream refuses too, and the IPv4 text the project
# refuses where upstream stores what in_aton() made of it.

bad_values()
{
	ERR=EINVAL
	if [ "$1" = netconsole ]; then
		case $2 in
		enabled|extended|release)
			BAD=("" 2 -1 maybe " 1" o ox "$L5000") ;;
		dev_name)
			BAD=(abcdefghijklmnop "$L300")
			ERR=ENAMETOOLONG ;;
		local_port|remote_port)
			BAD=("" -1 abc 1x 12ab " 7" "7 7" 0x10 1.5 "$L300"
			     "$L5000") ;;
		local_ip|remote_ip)
			BAD=(1.2.3 256.1.1.1 1.2.3.4x 1.2.3.4.5 ::g
			     2001:db8::1::2 2001:db8:::1 "192.0.2.1 x" example.org
			     " 192.0.2.1" "192.0.2.1 " $'192.0.2.1\nx' -1 1x
			     "$L300") ;;
		*)	bad_values - "$2" ;;
		esac
		return
	fi
	case $2 in
	enabled|extended|release)
		# kstrtobool() would take "1x", "10", "yes please" for 1 and
		# "0abc", "no way" for 0: only whole words are valid.
		BAD=("" 2 -1 maybe 1x 10 "yes please" 0abc "no way" " 1"
		     "$L300") ;;
	dev_name)
		BAD=("" . .. a/b "a b" eth0:1 $'a\tb' $'a\nb' abcdefghijklmnop
		     "$L300") ;;
	local_port|remote_port)
		BAD=("" 0 65536 -1 abc 1x 12ab " 7" "7 7" 0x10 1.5
		     99999999999999999999 "$L300" "$L5000") ;;
	local_ip|remote_ip)
		BAD=("" 1.2.3 256.1.1.1 1.2.3.4x 1.2.3.4.5 ::g 2001:db8::1::2
		     2001:db8:::1 "192.0.2.1 x" example.org " 192.0.2.1"
		     "192.0.2.1 " $'192.0.2.1\nx' -1 1x "$L300") ;;
	remote_mac)
		BAD=("" 00:11:22:33:44 00:11:22:33:44:5g 00:11:22:33:44:55:66
		     001122334455 "00:11:22:33:44:55 " " 00:11:22:33:44:55"
		     0:11:22:33:44:555 00:11:22:33:44:55: 1x -1 "$L300") ;;
	auth_key)
		# "ID:HEX", 16 to 64 key bytes; "" and "none" (no key) are
		# valid, "NONE" is not
		BAD=(1x abc NONE ":$KEY" 7: 7 "7:${KEY:1}" "7:${KEY:0:30}"
		     "7:$KEY$KEY${KEY:0:2}" "x:$KEY" "-1:$KEY"
		     "4294967296:$KEY" "7:${KEY:0:62}zz" "7:$KEY " " 7:$KEY"
		     "7: $KEY" "7:$KEY:1" "$L300") ;;
	*)	BAD=() ;;
	esac
}

# audit_target SUBSYS NAME ENABLED: every attribute of the target.
audit_target()
{
	local s=$1 t=$2 en=$3 dir f a v allowed

	dir=$(nl_target_dir "$s" "$t")
	for f in "$dir"/*; do
		[ -f "$f" ] || continue
		a=$(basename "$f")
		if [ "$(( 0$(stat -c %a "$f") & 0222 ))" = 0 ]; then
			# read-only: every write refused, value unchanged
			for v in 1 00:11:22:33:44:55 enabled; do
				# shellcheck disable=SC2086
				write_refused "$f" "$v" EACCES EPERM EINVAL
			done
			continue
		fi
		bad_values "$s" "$a"
		# a write-only attribute is checked through what shows it
		WITNESS=""
		if [ "$(( 0$(stat -c %a "$f") & 0444 ))" = 0 ]; then
			WITNESS=$dir/${a}_id
			[ -e "$WITNESS" ] || {
				bad "$s: write-only $a has no ${a}_id to check it by"
				WITNESS=/dev/null
			}
		fi
		if [ ${#BAD[@]} = 0 ]; then
			bad "$s: attribute $a has no row in the table of bad values"
			nchecks=$((nchecks + 1))
			continue
		fi
		allowed=$ERR
		[ "$en" = 1 ] && allowed="$ERR EBUSY"
		for v in "${BAD[@]}"; do
			# shellcheck disable=SC2086
			write_refused "$f" "$v" $allowed
			# a lenient parser may have toggled the target
			if [ "$a" = enabled ] && [ "$(cat "$f")" != "$en" ]; then
				echo "$en" > "$f" 2>/dev/null
			fi
		done
		WITNESS=""
	done
	if [ "$en" = 1 ]; then
		nchecks=$((nchecks + 1))
		[ "$(cat "$dir/state")" = enabled ] ||
			bad "$s/$t: state $(cat "$dir/state") after the bad writes, expected" \
				"enabled"
	fi
}

# audit_userdata SUBSYS NAME: free-text values of netconsole userdata and
# netoops userfields; only their limits are checked.
audit_userdata()
{
	local s=$1 t=$2 dir f k

	dir=$(nl_target_dir "$s" "$t")
	if [ "$s" = netconsole ]; then
		f=$dir/userdata/site/value
		# 200 bytes at most; same errno as the stock netconsole
		write_refused "$f" "$L256" EMSGSIZE
		write_refused "$f" "$L5000" EMSGSIZE
		nchecks=$((nchecks + 1))
		mkdir "$dir/userdata/$L300" 2>/dev/null &&
			{ rmdir "$dir/userdata/$L300"; bad "netconsole: userdata key of 300 bytes" \
				"accepted"; }
		nl_log "netconsole userdata value: free text up to 200 bytes by design (not in" \
			"the table)"
	else
		f=$dir/userfields/site/value
		write_refused "$f" "$L256" EINVAL
		write_refused "$f" "$L5000" EINVAL
		# a NUL inside the value
		nchecks=$((nchecks + 1))
		if printf 'a\0b\n' > "$f" 2>/dev/null; then
			bad "netoops: userfields value with a NUL accepted: $(show "$(cat "$f")")"
		fi
		[ "$(cat "$f")" = "dc-$NL_TAG" ] ||
			bad "netoops: userfields value changed by a refused write:" \
				"$(show "$(cat "$f")")"
		# keys: [A-Za-z0-9_.-]{1,63}
		for k in "a b" "a=b" 'a:b' $'a\tb' "$(printf 'k%.0s' $(seq 64))" \
			 "é"; do
			nchecks=$((nchecks + 1))
			if mkdir "$dir/userfields/$k" 2>/dev/null; then
				rmdir "$dir/userfields/$k"
				bad "netoops: userfields key $(show "$k") accepted"
			fi
		done
		# The fields' wire budget (640 bytes, 260 per field of 250
		# bytes): the value that would exceed it gets ENOSPC and is
		# not stored; earlier fields are kept.
		nchecks=$((nchecks + 1))
		n=0 got=none
		for k in 1 2 3 4; do
			mkdir "$dir/userfields/b$k" 2>/dev/null ||
				{ got=mkdir-refused; break; }
			write1 "$dir/userfields/b$k/value" "${L256:0:250}"
			got=$W1
			[ "$got" = ok ] || break
			n=$((n + 1))
		done
		[ "$got" = ENOSPC ] ||
			bad "netoops: after $n user fields of 250 bytes expected ENOSPC, got $got"
		[ $((20 + n * 260)) -le 640 ] ||
			bad "netoops: $n user fields of 250 bytes accepted (budget 640)"
		[ -z "$(cat "$dir/userfields/b$k/value" 2>/dev/null)" ] ||
			bad "netoops: the refused value was stored"
		[ "$(cat "$f")" = "dc-$NL_TAG" ] ||
			bad "netoops: userfields value changed by the budget overflow"
		for k in 1 2 3 4; do
			[ -d "$dir/userfields/b$k" ] && rmdir "$dir/userfields/b$k"
		done
		nl_log "netoops userfields value: free text up to 255 bytes without NUL by design" \
			"(not in the table)"
	fi
}

# make_target SUBSYS NAME: a target on the wired NIC, disabled, with one
# userdata/userfields entry.
make_target()
{
	local s=$1 t=$2 dir

	nl_target_create "$s" "$t"
	dir=$(nl_target_dir "$s" "$t")
	if [ "$s" = netconsole ]; then
		mkdir "$dir/userdata/site"
		echo "dc-$NL_TAG" > "$dir/userdata/site/value"
	else
		mkdir "$dir/userfields/site"
		echo "dc-$NL_TAG" > "$dir/userfields/site/value"
		# a key, so that a refused key write visibly keeps it
		if [ -e "$dir/auth_key" ]; then
			echo "7:$KEY" > "$dir/auth_key"
			nl_expect_value "$s" "$t" auth_key_id 7
		fi
	fi
}

# ---------------------------------------------------------------------------

echo "KTAP version 1"
echo "1..6"
nl_reclaim_wired
nl_setup_veth
nl_require_netpoll_dev
lines=$(dmesg | wc -l)
for s in netconsole netoops; do
	make_target "$s" "a$NL_TAG"
done

# 1. modes
# (no process substitution: the guest has no /dev/fd)
find "$NL_CFS/netconsole" "$NL_CFS/netoops" \
	/sys/module/netoops/parameters /sys/module/netconsole/parameters \
	/sys/module/netpoll_targets /sys/fs/pstore -maxdepth 4 \
	\( -type f -o -type d \) -exec stat -c '%a %n' {} + 2>/dev/null |
	grep -v '^[0-7]* /sys/module/netpoll_targets/\(sections\|notes\|holders\)/' \
	> "$NL_TMP/modes" || true
while read -r mode path; do
	nl_log "mode $mode $path"
	nchecks=$((nchecks + 1))
done < "$NL_TMP/modes"
ww=$(find "$NL_CFS/netconsole" "$NL_CFS/netoops" \
	/sys/module/netoops/parameters /sys/module/netconsole/parameters \
	/sys/module/netpoll_targets /sys/fs/pstore -perm -0002 ! -type l \
	2>/dev/null || true)
[ -z "$ww" ] || bad "world-writable: $(echo "$ww" | tr '\n' ' ')"
if ! grep -q ' /sys/fs/pstore ' /proc/mounts; then
	nl_log "/sys/fs/pstore not mounted: not audited"
fi
result modes

# 2. disabled targets
for s in netconsole netoops; do
	audit_target "$s" "a$NL_TAG" 0
	audit_userdata "$s" "a$NL_TAG"
done
result cfs-disabled

# 3. enabled targets
for s in netconsole netoops; do
	nl_target_enable "$s" "a$NL_TAG"
	audit_target "$s" "a$NL_TAG" 1
	audit_userdata "$s" "a$NL_TAG"
done
result cfs-enabled

# 4. run-time module parameters
# param_refused NAME VALUE: as write_refused (EINVAL, or ERANGE from
# kstrtouint() for a number above UINT_MAX); puts the old value back when a
# bad one was accepted, so that later dumps stay bounded.
param_refused()
{
	local before

	before=$(cat "$P/$1")
	write_refused "$P/$1" "$2" EINVAL ERANGE
	[ "$(cat "$P/$1")" = "$before" ] || echo "$before" > "$P/$1"
}
for v in "" 2 maybe -1; do
	param_refused oneshot "$v"
	write_refused /sys/module/netconsole/parameters/oops_only "$v" EINVAL
done
nl_log "oneshot, oops_only: bool parameters parsed by kstrtobool (\"1x\" reads as 1): the" \
	"kernel's convention for bool parameters"
# Documented ranges (Documentation/admin-guide/netoops.rst): repeat 1-16,
# pace_us 0-10000, xmit_timeout_us 1-10000000, dump_timeout_ms 1-600000;
# everything must parse as an unsigned int.
for v in "" -1 1x abc 4294967296 0 17 100000; do
	param_refused repeat "$v"
done
for v in "" -1 1x 10001 4294967295; do
	param_refused pace_us "$v"
done
for v in "" -1 1x abc 4294967296 0 10000001; do
	param_refused xmit_timeout_us "$v"
done
for v in "" -1 1x abc 4294967296 0 600001; do
	param_refused dump_timeout_ms "$v"
done
# FEC: fec_k <= 254, and when fec_k > 0: 1 <= fec_m, fec_k + fec_m <= 255
if [ -e "$P/fec_k" ]; then
	for v in "" -1 1x abc 255 256 4294967296; do
		param_refused fec_k "$v"
	done
	k=$(cat "$P/fec_k")
	if [ "$k" -gt 0 ]; then
		for v in "" -1 1x abc 0 $((256 - k)) 4294967296; do
			param_refused fec_m "$v"
		done
	else
		bad "fec_k is 0 by default: fec_m's range cannot be checked"
	fi
fi
hex=0123456789abcdef0123456789abcdef
for v in "" 123 "${hex}0" "${hex:1}g" "$(printf 'g%.0s' $(seq 32))" \
	 01234567-89ab-cdef-0123-456789abcdeX 01234567+89ab-cdef-0123-456789abcdef \
	 "$hex " " $hex" $'0123456789abcdef0123456789abcdef\ngarbage' "$L300"; do
	param_refused boot_id "$v"
done
# write-only controls: a bad value does nothing (no dump counted)
d0=$(sed -n 's/^dumps //p' "$P/stats")
for v in "" maybe 2 -1; do
	nchecks=$((nchecks + 1))
	write1 "$P/dump" "$v"
	got=$W1
	[ "$got" = EINVAL ] || bad "dump <- $(show "$v"): expected EINVAL, got $got"
	write1 "$P/rearm" "$v"
	got=$W1
	[ "$got" = EINVAL ] || bad "rearm <- $(show "$v"): expected EINVAL, got $got"
done
nchecks=$((nchecks + 1))
[ "$(sed -n 's/^dumps //p' "$P/stats")" = "$d0" ] ||
	bad "a refused dump write sent a dump (stats dumps $d0 ->" \
		"$(sed -n 's/^dumps //p' "$P/stats"))"
# read-only parameters refuse writes
for p in records record_size max_reason pkt_size targets stats; do
	[ -e "$P/$p" ] || continue
	write_refused "$P/$p" 1 EACCES EPERM
done
result params

# The rest needs the modules unloaded: targets down first.
for s in netconsole netoops; do
	nl_target_disable "$s" "a$NL_TAG"
done

# 5. load-time parameters: modprobe refuses, nothing left loaded
nl_check "rmdir of the audit targets" rmdir \
	"$(nl_target_dir netconsole "a$NL_TAG")/userdata/site" \
	"$(nl_target_dir netoops "a$NL_TAG")/userfields/site"
for s in netconsole netoops; do
	rmdir "$(nl_target_dir "$s" "a$NL_TAG")"
done
NL_TARGETS=()
nchecks=$((nchecks + 1))
timeout 20 rmmod netoops || bad "rmmod netoops without targets failed"
for a in pkt_size=255 pkt_size=65508 records=65 max_reason=0 max_reason=5 \
	 record_size=100 "targets=garbage" "targets=6667@192.0.2.1/eth0,x@y/z" \
	 repeat=abc repeat=17 pace_us=10001 dump_timeout_ms=0; do
	nchecks=$((nchecks + 1))
	if modprobe netoops "$a" 2>/dev/null; then
		bad "modprobe netoops $a accepted"
		rmmod netoops
	elif [ -d /sys/module/netoops ]; then
		bad "modprobe netoops $a refused but the module stayed"
	fi
done
nchecks=$((nchecks + 1))
modprobe netoops || bad "modprobe netoops with defaults failed after the refusals"
result load-params

# 6. unload with enabled targets in configfs
nl_listen_start 6666 "$NL_TMP/rx"
for s in netconsole netoops; do
	make_target "$s" "u$NL_TAG"
	nl_target_enable "$s" "u$NL_TAG"
done
refs=""
for m in netoops netconsole netpoll_targets; do
	refs="$refs $m=$(cat "/sys/module/$m/refcnt")"
done
nl_log "refcnt with enabled targets:$refs"
for m in netoops netconsole netpoll_targets; do
	nchecks=$((nchecks + 1))
	if timeout 20 rmmod "$m" 2>"$NL_TMP/rmmod.err"; then
		bad "rmmod $m succeeded with enabled targets in configfs"
	else
		nl_log "rmmod $m refused: $(head -n 1 "$NL_TMP/rmmod.err")"
	fi
	[ -d "/sys/module/$m" ] || bad "module $m gone after a refused rmmod"
done
nchecks=$((nchecks + 1))
nl_kmsg "abi-still-there $NL_TAG"
nl_wait_grep "$NL_TMP/rx" "abi-still-there $NL_TAG" 10 ||
	bad "netconsole target stopped delivering after the refused rmmods"
nchecks=$((nchecks + 1))
echo 1 > "$P/dump" || bad "soft dump refused after the refused rmmods"
# rmdir while enabled (entries first: configfs wants an empty group)
rmdir "$(nl_target_dir netconsole "u$NL_TAG")/userdata/site" \
	"$(nl_target_dir netoops "u$NL_TAG")/userfields/site"
for s in netconsole netoops; do
	nchecks=$((nchecks + 1))
	rmdir "$(nl_target_dir "$s" "u$NL_TAG")" ||
		bad "$s: rmdir of an enabled target refused"
done
NL_TARGETS=()
nl_listen_stop
for m in netoops netconsole netpoll_targets; do
	nchecks=$((nchecks + 1))
	timeout 20 rmmod "$m" || bad "rmmod $m after rmdir failed"
	[ ! -d "/sys/module/$m" ] || bad "module $m still loaded after rmmod"
done
# What the stock netconsole does with a target in configfs: the project's
# modules must behave the same (refused above).
stock=$(find "/lib/modules/$(uname -r)/kernel" -name 'netconsole.ko*' 2>/dev/null |
	head -n 1)
if [ -n "$stock" ] && insmod "$stock" 2>/dev/null; then
	mkdir "$NL_CFS/netconsole/s$NL_TAG"
	if timeout 20 rmmod netconsole 2>/dev/null; then
		stock_rm=allowed
	else
		stock_rm=refused
	fi
	nl_log "stock netconsole ($stock): rmmod with a target in configfs $stock_rm"
	nchecks=$((nchecks + 1))
	[ "$stock_rm" = refused ] ||
		bad "the stock netconsole allows rmmod with a target; the project's refuses"
	[ -d "$NL_CFS/netconsole/s$NL_TAG" ] && rmdir "$NL_CFS/netconsole/s$NL_TAG"
	[ -d /sys/module/netconsole ] && rmmod netconsole
else
	nl_log "stock netconsole not loadable here: behaviour not compared"
fi
for m in netpoll_targets netconsole netoops; do
	nchecks=$((nchecks + 1))
	modprobe "$m" || bad "reload of $m failed"
done
nl_listen_start 6666 "$NL_TMP/rx2"
nl_target_create netconsole "r$NL_TAG"
nl_target_enable netconsole "r$NL_TAG"
nchecks=$((nchecks + 1))
nl_kmsg "abi-reloaded $NL_TAG"
nl_wait_grep "$NL_TMP/rx2" "abi-reloaded $NL_TAG" 10 ||
	bad "netconsole after reload did not deliver"
nl_target_remove netconsole "r$NL_TAG"
NL_TARGETS=()
nchecks=$((nchecks + 1))
splat=$(dmesg | tail -n +"$((lines + 1))" | grep -E "$SPLATS" || true)
if [ -n "$splat" ]; then
	dmesg | tail -n +"$((lines + 1))" | grep -E -B 5 -A 30 "$SPLATS" |
		head -n 120 | sed 's/^/# /'
	bad "kernel log: $(echo "$splat" | head -n 1)"
fi
result unload

[ "$fails" = 0 ] || nl_fail "$fails of $sub subtests failed"
exit "$KSFT_PASS"
