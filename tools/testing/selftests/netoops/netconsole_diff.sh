#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# netconsole, differentially: the same generated operations against
# upstream 6.12's netconsole and against the project's, every outcome
# compared.
#
#   cfs        every writable attribute of a target, fed valid, boundary and
#              invalid values (one fresh target per value, on a disabled
#              IPv4 and IPv6 target and on an enabled one): the write's
#              result (errno, or a short count) and every attribute read
#              back after it; userdata names, values and limits; mkdir and
#              rmdir of target names; the directory listings with modes
#   params     the module loaded with each form of netconsole= (valid,
#              several targets, missing device, malformed, flags '+', 'r',
#              IPv6, MAC): the load's result, /proc/consoles, what the
#              command-line targets show, and a message's datagrams
#   datagrams  plain, extended, release and userdata targets sent messages
#              of lengths around the 1000-byte datagram and the
#              fragmentation of extended ones: every datagram, byte for byte
#
# The reference is netconsole_diff.ref: this test's transcript of Debian's
# stock 6.12 module.  On 6.12 the stock module in the guest is run too and
# must match the reference exactly (else the reference is stale); on 6.1
# the project's module must still match 6.12's (its ABI is 6.12's there).
# NCDIFF_DUMP=1 prints the project's transcript ("# prj: " lines) and, on
# 6.12, the stock module's ("# ref: "), to regenerate the reference.
#
# Allowed differences, and nothing else (Documentation/networking/
# netpoll_targets.rst lists them for users):
#   ebusy    a write to an enabled target fails with EBUSY where upstream's
#            fails with EINVAL; nothing else changes
#   ip-text  IPv4 text that is not a dotted quad ([ipv4-text]) is refused
#            with EINVAL, where upstream stores what in_aton() made of it;
#            an IPv6 address followed by other text is refused by both, but
#            upstream stores the address: the project keeps the old one.
#            That write's result and that attribute's value differ
#   state    the project's targets have a read-only "state" attribute
#   macdev   (before 6.12) netconsole= naming the device by its MAC: the
#            kernel's netpoll cannot, the target stays disabled
# Normalized in both transcripts: the interface and its peer's MAC, the
# kernel release, printk timestamps and extended sequence numbers.
source "$(dirname "$0")"/lib_netoops.sh

nl_require_root
nl_require_cmd ip insmod rmmod modprobe awk
nl_require_module netconsole
[ -d /sys/module/netpoll_targets ] ||
	nl_skip "netconsole is not the project's (no netpoll_targets): load the project's modules"
HERE=$(cd "$(dirname "$0")" && pwd)
OPS=$HERE/cfs_ops
REF=$HERE/netconsole_diff.ref
[ -x "$OPS" ] || nl_fail "$OPS missing: build the selftests (make)"
[ -r "$REF" ] || nl_fail "$REF missing"
STOCK=$(find "/lib/modules/$(uname -r)/kernel" -name 'netconsole.ko*' -print -quit)
KVER=$(uname -r)
CMP_STOCK=0
case $KVER in
6.12.*) [ -n "$STOCK" ] && CMP_STOCK=1 ;;
esac
# a netconsole= device given by its MAC needs netpoll's dev_mac (6.12)
MACDEV_OK=0
case $KVER in
6.12.*) ;;
*) MACDEV_OK=1 ;;
esac
# NCDIFF_NO_STOCK=1: only the project's module, e.g. to time it
[ "${NCDIFF_NO_STOCK:-0}" = 1 ] && CMP_STOCK=0
trap 'nd_cleanup' EXIT

# rm_userdata TARGET_DIR KEY...: rmdir those userdata entries.
rm_userdata()
{
	local d=$1 k

	shift
	for k in "$@"; do
		rmdir "$d/userdata/$k" || true
	done
}

nd_cleanup()
{
	local rc=$?

	set +e
	for d in "$NL_CFS"/netconsole/nd*/; do
		[ -d "$d" ] || continue
		echo 0 > "$d/enabled" 2>/dev/null
		rmdir "$d" 2>/dev/null
	done
	# the project's netconsole back for the tests after this one
	if ! grep -q '^netconsole ' /proc/modules ||
	   [ -z "$(modinfo -F depends netconsole 2>/dev/null)" ]; then
		rmmod netconsole 2>/dev/null
		modprobe netconsole
	fi
	nl_cleanup "$rc"
}

nl_reclaim_wired
nl_setup_veth
nl_require_netpoll_dev
nl_configfs
DEVMAC=$(cat "/sys/class/net/$NL_DEV/address")
NC=$NL_CFS/netconsole
L300=$(printf 'y%.0s' $(seq 300))
L5000=$(printf 'z%.0s' $(seq 5000))

# ---------------------------------------------------------------------------
# Operations.  op LINE...: append cfs_ops lines to $OPSF.

OPSF=$NL_TMP/ops
: > "$OPSF"
op() { printf '%s\n' "$@" >> "$OPSF"; }
# esc VALUE: VALUE in cfs_ops' escapes (so a line holds any byte).
esc() {
	local v=$1
	v=${v//\\/\\\\}
	v=${v//$'\n'/\\n}
	v=${v//$'\t'/\\t}
	printf '%s' "$v"
}

# case_value NAME ATTR VALUE [SETUP_ATTR=VALUE...]: fresh target, setup,
# one write, a snapshot, rmdir.  VALUE is in cfs_ops escapes already.
NCASE=0
case_value()
{
	local name=$1 attr=$2 val=$3 kv t

	shift 3
	NCASE=$((NCASE + 1))
	t=nd$NCASE
	op "# case $name" "mkdir	$t"
	for kv in "$@"; do
		op "write	$t/${kv%%=*}	${kv#*=}"
	done
	op "write	$t/$attr	$val" "snap	$t"
	case " $* " in
	*" enabled=1 "*) op "write	$t/enabled	0" ;;
	esac
	op "rmdir	$t"
}

BOOLS=("" 0 1 2 -1 y Y n N yes no on ON On off OFF of o t T f F true false
       1x 10 "yes please" 0abc " 1" "1 " 01 0x1 '\0' '1\0x' '\n' '1\n\n'
       "$L300" "$L5000")
NAMES=("" eth0 lo "$NL_DEV" . .. a/b "a b" eth0:1 '\t' 'a\nb' 123456789012345
       1234567890123456 12345678901234567 "$L300" 'eth0\0xyz' 'abc\n\n' '\n'
       '\xc3\xa9' '\n\n')
PORTS=("" 0 1 80 6665 65535 65536 -1 +1 " 7" "7 " '7\n' '7\n\n' 0x10 010 1.5
       abc 1x 12ab 99999999999999999999 '\0' '7\0x' "$L300")
IPS=("" '\n' 0.0.0.0 192.0.2.1 192.0.2.2 255.255.255.255 1.2.3 256.1.1.1
     1.2.3.4x 1.2.3.4.5 "192.0.2.1 " " 192.0.2.1" '192.0.2.1\nx' example.org
     -1 ::1 :: 2001:db8::1 2001:db8::2 '2001:db8::1\nx' '2001:db8::1\n'
     "2001:db8::1 " 2001:db8::1::2 2001:db8:::1 ::g 1:2:3:4:5:6:7:8
     1:2:3:4:5:6:7:8:9 ::ffff:192.0.2.1 "$L300")
MACS=("" 00:11:22:33:44:55 '00:11:22:33:44:55\n' '00:11:22:33:44:55\nx'
      ff:ff:ff:ff:ff:ff 00:11:22:33:44 00:11:22:33:44:5g 00:11:22:33:44:55:66
      001122334455 "00:11:22:33:44:55 " " 00:11:22:33:44:55" 0:11:22:33:44:55
      00-11-22-33-44-55 00:11:22:33:44:55: "$L300")

gen_cfs()
{
	local v a ctx setup

	op "# section cfs" "list	." "mkdir	nd0" "list	nd0"
	op "list	nd0/userdata"
	op "snap	nd0" "rmdir	nd0"
	for v in "${BOOLS[@]}"; do
		for a in extended release; do
			case_value "$a" "$a" "$v"
		done
	done
	for v in "${NAMES[@]}"; do
		case_value dev_name dev_name "$v"
	done
	for v in "${PORTS[@]}"; do
		case_value local_port local_port "$v"
		case_value remote_port remote_port "$v"
	done
	for v in "${IPS[@]}"; do
		for a in local_ip remote_ip; do
			case_value "$a" "$a" "$v"
			case_value "$a-on-ipv6" "$a" "$v" remote_ip=2001:db8::2
		done
	done
	for v in "${MACS[@]}"; do
		case_value remote_mac remote_mac "$v"
	done
	for a in local_mac enabled; do
		for v in 1 0 00:11:22:33:44:55 "" '\n'; do
			case_value "$a" "$a" "$v"
		done
	done
	# enabling: with and without a usable device, release without extended
	setup=("dev_name=$NL_DEV" remote_ip=192.0.2.2 "remote_mac=$NL_REMOTE_MAC")
	for v in "${BOOLS[@]}"; do
		case_value enable enabled "$v" "${setup[@]}"
	done
	case_value enable-nodev enabled 1 dev_name=nd-none
	case_value enable-release enabled 1 "${setup[@]}" release=1 extended=0
	case_value enable-release-ext enabled 1 "${setup[@]}" release=1 extended=1
	case_value enable-ipv6 enabled 1 "dev_name=$NL_DEV" remote_ip=2001:db8::2 \
		local_ip=2001:db8::1 "remote_mac=$NL_REMOTE_MAC"
	# every attribute of an enabled target
	ctx=("${setup[@]}" enabled=1)
	for v in 0 1 6666 eth0 192.0.2.9 2001:db8::9 00:11:22:33:44:55 "" \
		 abc "$L300"; do
		for a in extended release dev_name local_port remote_port \
			 local_ip remote_ip remote_mac enabled; do
			case_value "$a-enabled" "$a" "$v" "${ctx[@]}"
		done
	done
	gen_userdata
	gen_names
}

gen_userdata()
{
	local n k v

	op "# section userdata" "mkdir	nd0"
	for k in a k1 "$(printf 'n%.0s' $(seq 53))" "$(printf 'n%.0s' $(seq 54))" \
		 "$L300" "a b" 'x=y' '.dot' ; do
		op "mkdir	nd0/userdata/$(esc "$k")" "list	nd0/userdata"
		op "rmdir	nd0/userdata/$(esc "$k")"
	done
	op "mkdir	nd0/userdata/v" "list	nd0/userdata/v"
	for n in 0 1 198 199 200 201 256 4095 5000; do
		# n v's; one v for n = 0 (printf's format runs once)
		v=$(printf 'v%.0s' $(seq "$n"))
		op "write	nd0/userdata/v/value	$v" \
		   "write	nd0/userdata/v/value	$v\\n"
	done
	for v in '' '\n' 'a\nb' 'a\0b' 'a\n\n' 'tab\there' '\xc3\xa9'; do
		op "write	nd0/userdata/v/value	$v"
	done
	op "rmdir	nd0/userdata/v"
	for n in $(seq 1 17); do
		op "mkdir	nd0/userdata/i$n"
	done
	op "list	nd0/userdata"
	for n in $(seq 1 17); do
		op "rmdir	nd0/userdata/i$n"
	done
	op "rmdir	nd0"
}

gen_names()
{
	local n

	op "# section names"
	for n in cmdline0 cmdline9 cmdlineX cmdline "$(printf 'd%.0s' $(seq 19))" \
		 "$(printf 'd%.0s' $(seq 20))" "$(printf 'd%.0s' $(seq 255))" \
		 "$(printf 'd%.0s' $(seq 256))" .hidden 'a b'; do
		op "mkdir	$(esc "$n")" "list	." "rmdir	$(esc "$n")"
	done
	op "mkdir	nd0" "mkdir	nd0" "rmdir	nd0" "rmdir	nd0"
}

# ---------------------------------------------------------------------------
# Normalization: what differs between runs and kernels, not modules.

normalize()
{
	sed -e "s/$NL_DEV/<dev>/g" -e "s/$DEVMAC/<devmac>/g" \
	    -e "s/$NL_REMOTE_MAC/<peermac>/g" \
	    -e "s/$(printf '%s' "$KVER" | sed 's/[.]/\\&/g')/<release>/g" \
	    -e 's/\[ *[0-9]*\.[0-9]*\]/[T]/g' -e 's/ndm[0-9]*-/ndm-/g' \
	    -e 's/\([0-9]\),[0-9][0-9]*,[0-9][0-9]*,\([-c]\)/\1,S,T,\2/g'
}

# ---------------------------------------------------------------------------
# Datagrams.  dgrams CASE DIR: one line with every datagram since the last
# call, then empties DIR.

RX=$NL_TMP/rx
SINK_PORTS="6666 6667"

sink_start()
{
	local p

	for p in $SINK_PORTS; do
		nl_listen_start "$p" "$RX/$p" dir
	done
}

# wait_marker TEXT [PORT...]: wait until a datagram holding TEXT arrived
# on each PORT, or on any port when none is given.  Each sink is its own
# process: one having written its datagram says nothing of the others.
has_marker() { grep -rqF -- "$1" "$2" 2>/dev/null; }
wait_marker()
{
	local text=$1 p

	shift
	[ $# -gt 0 ] || set -- ""
	for p in "$@"; do
		nl_wait_for 10 has_marker "$text" "$RX/$p" || return 1
	done
}

# dump_dgrams CASE PATTERN: "dgrams CASE: <d> | <d> ..." of the datagrams
# received since the last call (emptied): those holding PATTERN and the
# fragments of their extended messages.  Fragments are joined into one
# "<header>,ncfrag(ok)/<total>;<text>" ("ok": each fragment's offset is
# the bytes before it, none is over 1000 bytes, they add up to <total>),
# because where the text is cut depends on the width of the sequence
# number and timestamp, which differ from run to run.
dump_dgrams()
{
	local p f

	# one cfs_ops for all: a command-line target's replay of the log
	# brings a thousand datagrams
	step "dump: list"
	for p in $SINK_PORTS; do
		printf '# @%s\n' "$p"
		for f in "$RX/$p"/*.bin; do
			[ -e "$f" ] && printf 'read\t%s\n' "$f"
		done
	done > "$NL_TMP/dump.ops"
	step "dump: read $(wc -l < "$NL_TMP/dump.ops")"
	"$OPS" < "$NL_TMP/dump.ops" > "$NL_TMP/dump.out"
	step "dump: filter"
	sed 's/^# //; s/^read [^:]*: //' "$NL_TMP/dump.out" |
		awk '{ printf "%s | ", $0 } END { print "" }' |
		awk -v pat="$2" -v name="$1" '
	function blen(s) {
		gsub(/\\x[0-9a-f][0-9a-f]/, "X", s); gsub(/\\./, "X", s)
		return length(s)
	}
	function key(s) {
		if (s !~ /^([^,;]*,)?[0-9]+,[0-9]+,[0-9]+,[^;]*;/) return ""
		sub(/;.*/, "", s); sub(/,ncfrag=.*/, "", s)
		return s
	}
	{
		n = split($0, d, / [|] /)
		for (i = 1; i <= n; i++)
			if (index(d[i], pat) && key(d[i]) != "") seqs[key(d[i])] = 1
		m = 0
		for (i = 1; i <= n; i++) {
			if (d[i] == "") continue
			if (d[i] ~ /^@/) { o[++m] = d[i]; continue }
			k = key(d[i])
			if (k != "" && (k in seqs) && d[i] ~ /,ncfrag=[0-9]+\/[0-9]+;/) {
				hdr = d[i]; sub(/;.*/, "", hdr); sub(/.*,ncfrag=/, "", hdr)
				split(hdr, ot, "/")
				body = d[i]; sub(/^[^;]*;/, "", body)
				if (!(k in fr)) {
					o[++m] = "FRAG " k; fr[k] = ""; want[k] = 0
					ok[k] = 1; tot[k] = ot[2]
				}
				if (ot[1] + 0 != want[k] || ot[2] != tot[k] || blen(d[i]) > 1000)
					ok[k] = 0
				want[k] += blen(body); fr[k] = fr[k] body
			} else if (index(d[i], pat) || (k != "" && (k in seqs))) {
				o[++m] = d[i]
			}
		}
		out = "dgrams " name ":"
		for (i = 1; i <= m; i++) {
			if (o[i] ~ /^FRAG /) {
				k = substr(o[i], 6)
				st = ok[k] && want[k] == tot[k] ? "ok" : "BAD"
				o[i] = k ",ncfrag(" st ")/" tot[k] ";" fr[k]
			}
			out = out " " o[i] " |"
		}
		print out
	}'
	step "dump: rm"
	for p in $SINK_PORTS; do
		rm -f "$RX/$p"/*.bin
	done
}

# step TEXT: with NCDIFF_TRACE=1, say where the test is on the console.
step()
{
	[ "${NCDIFF_TRACE:-0}" = 1 ] && echo "<4>nd-step: $*" > /dev/kmsg
	return 0
}

# kmsg TEXT: one message at level 6.
kmsg() { printf '<6>%s\n' "$1" > /dev/kmsg; }

gen_dgram_target()
{
	local t=$1

	shift
	mkdir "$NC/$t" || return 1
	local kv
	for kv in "dev_name=$NL_DEV" remote_ip=192.0.2.2 \
		  "remote_mac=$NL_REMOTE_MAC" extended=0 release=0 "$@"; do
		printf '%s\n' "${kv#*=}" > "$NC/$t/${kv%%=*}" || return 1
	done
}

run_datagrams()
{
	local fmt n t kv i m keys
	# total lengths of the text: with the longest release and header
	# (22 + 22 bytes) 940 stays under 1000 bytes; with one userdata line
	# (about 165 bytes) 700 never fragments and 900 always does
	local lens=(60 100 500 700 900 940)

	sink_start
	for fmt in plain extended release userdata release-userdata \
		   fragments; do
		t=ndd-$fmt
		keys=()
		case $fmt in
		plain)		gen_dgram_target "$t" ;;
		extended)	gen_dgram_target "$t" extended=1 ;;
		release)	gen_dgram_target "$t" extended=1 release=1 ;;
		userdata|release-userdata|fragments)
			if [ "$fmt" = userdata ]; then
				gen_dgram_target "$t" extended=1
			else
				gen_dgram_target "$t" extended=1 release=1
			fi
			n=1
			[ "$fmt" = fragments ] && n=6
			for i in $(seq 1 "$n"); do
				keys+=("key$i")
				mkdir "$NC/$t/userdata/key$i"
				printf 'value%s-%s\n' "$i" "$(printf 'u%.0s' $(seq 150))" \
					> "$NC/$t/userdata/key$i/value"
			done ;;
		esac || { echo "dgrams $fmt: target setup failed"; continue; }
		step "$fmt: enable"
		echo 1 > "$NC/$t/enabled" || { echo "dgrams $fmt: enable failed"; continue; }
		step "$fmt: send"
		for n in "${lens[@]}"; do
			m="$MARK-$fmt-$n "
			while [ ${#m} -lt "$n" ]; do m+=m; done
			kmsg "${m:0:$n}"
		done
		kmsg "$MARK-$fmt-end"
		step "$fmt: wait"
		wait_marker "$MARK-$fmt-end" || echo "dgrams $fmt: end marker not received"
		step "$fmt: dump"
		dump_dgrams "$fmt" "$MARK-$fmt-"
		step "$fmt: disable"
		echo 0 > "$NC/$t/enabled" || echo "dgrams $fmt: disable failed"
		step "$fmt: rm userdata"
		rm_userdata "$NC/$t" "${keys[@]}"
		step "$fmt: rmdir"
		rmdir "$NC/$t" || echo "dgrams $fmt: rmdir failed"
		step "$fmt: done"
	done
	nl_listen_stop
}

# ---------------------------------------------------------------------------
# Module parameters.  load_case NAME PARAM: load the module under test with
# netconsole=PARAM, then what it shows.

PARAMS=(
	"6665@192.0.2.1/$NL_DEV,6666@192.0.2.2/$NL_REMOTE_MAC"
	"@/$NL_DEV,@192.0.2.2/$NL_REMOTE_MAC"
	"+@/$NL_DEV,@192.0.2.2/$NL_REMOTE_MAC"
	"+r@/$NL_DEV,@192.0.2.2/$NL_REMOTE_MAC"
	"r@/$NL_DEV,@192.0.2.2/$NL_REMOTE_MAC"
	"r+@/$NL_DEV,@192.0.2.2/$NL_REMOTE_MAC"
	"++@/$NL_DEV,@192.0.2.2/$NL_REMOTE_MAC"
	"x@/$NL_DEV,@192.0.2.2/$NL_REMOTE_MAC"
	"@/nd-none,@192.0.2.2/;@/$NL_DEV,6667@192.0.2.2/$NL_REMOTE_MAC"
	"@/$NL_DEV,@192.0.2.2/$NL_REMOTE_MAC;+@/$NL_DEV,6667@192.0.2.2/$NL_REMOTE_MAC"
	"garbage;@/$NL_DEV,6667@192.0.2.2/$NL_REMOTE_MAC"
	"@/$NL_DEV,@192.0.2.2/$NL_REMOTE_MAC;"
	";;"
	"@/$NL_DEV,@2001:db8::2/$NL_REMOTE_MAC"
	"@2001:db8::1/$NL_DEV,@2001:db8::2/$NL_REMOTE_MAC"
	"@192.0.2.1/$NL_DEV,@2001:db8::2/$NL_REMOTE_MAC"
	"@/$NL_DEV,@192.0.2.2/"
	"@/$NL_DEV,@192.0.2.2/00:11:22"
	"@/$NL_DEV,@192.0.2.2"
	"70000@/$NL_DEV,@192.0.2.2/$NL_REMOTE_MAC"
	"@/$NL_DEV,0@192.0.2.2/$NL_REMOTE_MAC"
	"@/$NL_DEV, 6666@192.0.2.2/$NL_REMOTE_MAC"
	"@/$DEVMAC,@192.0.2.2/$NL_REMOTE_MAC"
	"@/,@192.0.2.2/$NL_REMOTE_MAC"
)

# load MODULE [PARAM]: the module under test, with netconsole=PARAM.
load()
{
	local m=$1

	shift
	rmmod netconsole 2>/dev/null
	if [ "$m" = stock ]; then
		insmod "$STOCK" "$@"
	else
		modprobe netconsole "$@"
	fi
}

run_params()
{
	local m=$1 i p rc ports

	sink_start
	for i in "${!PARAMS[@]}"; do
		p=${PARAMS[$i]}
		rc=0
		load "$m" netconsole="$p" 2>/dev/null || rc=$?
		echo "param $i '$p': load rc=$rc"
		[ "$rc" = 0 ] || continue
		echo "param $i consoles:$(grep -o 'netcon[a-z_]*' /proc/consoles | sort |
			tr '\n' ' ' | sed 's/ $//')"
		kmsg "$MARK-param-$i"
		ports=()
		for t in cmdline0 cmdline1 cmdline2; do
			mkdir "$NC/$t" 2>/dev/null || continue
			printf 'snap\t%s\n' "$NC/$t" | "$OPS" | sed "s|$NC/||"
			[ "$(cat "$NC/$t/enabled")" = 1 ] &&
				ports+=("$(cat "$NC/$t/remote_port")")
		done
		if [ ${#ports[@]} -gt 0 ]; then
			wait_marker "$MARK-param-$i" "${ports[@]}" ||
				echo "param $i: marker not received"
		fi
		dump_dgrams "param-$i" "$MARK-param-$i"
		for t in cmdline0 cmdline1 cmdline2; do
			[ -d "$NC/$t" ] || continue
			echo 0 > "$NC/$t/enabled" 2>/dev/null || true
			rmdir "$NC/$t" || echo "param $i: rmdir $t failed"
		done
	done
	nl_listen_stop
	load "$m"
}

# transcript MODULE: the whole transcript of MODULE (stock or project).
transcript()
{
	local m=$1

	# markers unique to this run (a command-line target replays the log),
	# of one width: the messages' lengths must not change
	MARK=$(printf 'ndm%05d%05d' $RANDOM $RANDOM)
	load "$m" || { echo "cannot load $m"; return; }
	(cd "$NC" && "$OPS" < "$OPSF")
	run_datagrams
	run_params "$m"
}

gen_cfs
nops=$(grep -vc '^#' "$OPSF")
nl_log "$nops configfs operations, $NCASE cases, ${#PARAMS[@]} parameter forms"

# the stock module's transcript is the reference on 6.12 only
if [ "$CMP_STOCK" = 1 ]; then
	# to a file: the sinks it starts must not hold a pipe open
	transcript stock > "$NL_TMP/stock.raw" 2>&1
	normalize < "$NL_TMP/stock.raw" > "$NL_TMP/stock"
	if [ "${NCDIFF_DUMP:-0}" = 1 ]; then
		sed 's/^/# ref: /' "$NL_TMP/stock"
	fi
fi
transcript project > "$NL_TMP/project.raw" 2>&1
normalize < "$NL_TMP/project.raw" > "$NL_TMP/project"
if [ "${NCDIFF_DUMP:-0}" = 1 ]; then
	sed 's/^/# prj: /' "$NL_TMP/project"
fi

# compare A B LABEL: print the undocumented differences of B against A;
# the number of them goes to NDIFF, of allowed ones to NALLOWED.
compare()
{
	local out

	out=$(paste -d '\n' "$1" "$2" | awk -v label="$3" -v macdev_ok="$MACDEV_OK" '
	function strip_state(s) {
		gsub(/ state=[a-z-]*(\\n)?/, "", s); gsub(/ state:[0-9]+/, "", s)
		return s
	}
	function tokens(s, t,   n, i, k, w) {
		split("", t)
		n = split(s, w, / /)
		for (i = 1; i <= n; i++) { k = w[i]; sub(/=.*/, "", k); t[k] = w[i] }
	}
	# the snapshot after an allowed ip-text write may differ in that
	# attribute only
	function snap_ok(a, b, attr,   ta, tb, k) {
		tokens(a, ta); tokens(b, tb)
		for (k in ta) if (k != attr && ta[k] != tb[k]) return 0
		for (k in tb) if (k != attr && ta[k] != tb[k]) return 0
		return 1
	}
	NR % 2 == 1 { a = $0; next }
	{
		b = $0
		if (a ~ /^# case /) { cs = a; ipattr = ""; enabled_case = 0 }
		if (a ~ /^param [0-9]+ .*: load rc=/) {
			cs = a; macdev = (index(a, "@/<devmac>,") > 0)
		}
		if (a ~ /write [^ ]*\/enabled .1.: ok/) enabled_case = 1
		if (a ~ /write [^ ]*\/enabled .0.: ok/ && a ~ /^write/) enabled_case = 0
		nb = strip_state(b)
		if (a == nb) next
		ea = a; eb = nb
		# macdev: a device named by its MAC needs the netpoll of 6.12
		if (macdev && macdev_ok) { allowed++; next }
		if (enabled_case && sub(/: EINVAL -> /, ": X -> ", ea) &&
		    sub(/: EBUSY -> /, ": X -> ", eb) && ea == eb) {
			allowed++; next
		}
		# refused IP text: upstream stores what in_aton() made of IPv4
		# text that is not a dotted quad, and an IPv6 address followed
		# by other text (then says EINVAL); the project keeps the old
		# address
		if (a ~ /^write [^ ]*\/(local|remote)_ip / && nb ~ /: EINVAL -> / &&
		    ((a ~ /\[ipv4-text\]$/ && a ~ /: ok -> /) || a ~ /: EINVAL -> /)) {
			ipattr = a; sub(/^write [^ ]*\//, "", ipattr); sub(/ .*/, "", ipattr)
			allowed++; next
		}
		if (ipattr != "" && a ~ /^snap / && snap_ok(a, nb, ipattr)) {
			allowed++; next
		}
		und++
		if (und <= 40)
			printf "# %s: %s\n#   reference: %s\n#   project:   %s\n", label, cs, a, b
	}
	END { printf "NDIFF=%d NALLOWED=%d\n", und, allowed }')
	printf '%s\n' "$out" | grep '^# ' || true	# none: no differences
	eval "$(printf '%s\n' "$out" | grep '^NDIFF=')"
}

fail=0
if [ "$(wc -l < "$REF")" != "$(wc -l < "$NL_TMP/project")" ]; then
	nl_log "project transcript has $(wc -l < "$NL_TMP/project") lines, the reference" \
		"$(wc -l < "$REF")"
	# without the project's own "state" attribute, as compare() reads
	# it, so the first line shown is the missing or extra one; awk
	# reads it all: "head" would leave diff to die of SIGPIPE
	sed -E 's/ state=[a-z-]*(\\n)?//g; s/ state:[0-9]+//g' \
		"$NL_TMP/project" > "$NL_TMP/project.nostate"
	diff "$REF" "$NL_TMP/project.nostate" | awk 'NR <= 40 { print "# " $0 }'
	fail=1
else
	compare "$REF" "$NL_TMP/project" project
	nl_log "project vs stock 6.12 reference: $NDIFF undocumented differences, $NALLOWED" \
		"allowed, over $(wc -l < "$REF") outcomes ($nops configfs operations)"
	[ "$NDIFF" = 0 ] || fail=1
fi
if [ "$CMP_STOCK" = 1 ]; then
	if ! diff -q "$REF" "$NL_TMP/stock" >/dev/null; then
		nl_log "the stock module in this guest no longer matches netconsole_diff.ref:"
		diff "$REF" "$NL_TMP/stock" | awk 'NR <= 40 { print "# " $0 }'
		fail=1
	else
		nl_log "stock module ($STOCK) matches the reference"
	fi
fi
[ "$fail" = 0 ] || nl_fail "netconsole differs from upstream 6.12's beyond the allowed list"
exit "$KSFT_PASS"
