#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# crash-lib.sh - one crash run: boot a fresh guest, point a reporter at the
# host, crash the guest, then check what the host received against the
# guest's serial console and the identity the guest printed.
#
#   ct_crash_run VER NAME MODE TRIGGER [APPEND]
#     MODE     netoops    netoops.ko -> netoopsd (the real thing)
#              netconsole Debian's netconsole (plain text) -> UDP listener
#              netconsole-ext  the same in extended mode
#     TRIGGER  shell run in the guest after the target is up, e.g.
#              "echo c > /proc/sysrq-trigger"
#     APPEND   extra kernel command line
#   Sets CT_DIR (the run's directory) and returns 0 when the run's checks
#   passed.  Evidence (serial.log, results.log, received data, collector
#   store and log) stays in CT_DIR.
#
# Environment: CT_LOG_MODE=panic|oops (where the dump is taken, default
# panic), CT_SURVIVES=1 when the guest must live on after the crash,
# CT_EXPECT_DUMPS=N exact number of dumps (default: at least 1),
# CT_EXPECT_REASON=panic|oops, CT_EXPECT_REGS=oops (registers of the
# oopsing context must be present), CT_MODULE=netoops_crashtest to load it,
# CT_EXTRA_CHECK=FUNCTION a further check of the run (CT_DIR set),
# CT_QEMU_ARGS further QEMU arguments (split on blanks),
# CT_EXPECT_PARTIAL=REASON dumps of that reason must be incomplete,
# CT_COLLECTOR_ARGS further netoopsd arguments (split on blanks),
# CT_PRELUDE shell code the guest runs before anything else,
# CT_REBOOTS=1 when the crash reboots the guest in the same QEMU process
# (GH_REBOOT=1) and a second boot ends the run: each log is then cut in
# two, the second boot's part in serial-boot2.log, serial-boot2.ts and
# results-boot2.log.

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

CT_USER_KEY=ct_run

# ct_prepare VER: build the project's modules and the initramfs for VER
# once per harness run (run-all.sh sets GH_PREPARED_<ver> when it did).
ct_prepare()
{
	local ver=$1 flag

	flag=$GH_OUT/prepared-$ver.$PPID
	[ "${GH_PREPARED:-0}" = 1 ] && return 0
	if ! gh_build_modules "$ver"; then
		gh_log "$ver: project modules do not build: $GH_OUT/build-$ver/build.log"
	fi
	gh_initramfs "$ver" >/dev/null
	: > "$flag"
}

# ct_missing VER MODE: print what the MODE needs and does not have.
ct_missing()
{
	local ver=$1 mode=$2 miss=()

	if [ "$mode" = netoops ]; then
		[ -n "$(gh_module_path "$ver" netoops)" ] ||
			miss+=("netoops.ko for $ver (see $GH_OUT/build-$ver/build.log)")
		[ -n "$(gh_module_path "$ver" netpoll_targets)" ] ||
			miss+=("netpoll_targets.ko for $ver")
		gh_have_collector ||
			miss+=("netoopsd/netoops CLI (make -C tools/netoops; $GH_OUT/tools-build.log)")
	fi
	if [ "${CT_MODULE:-}" = netoops_crashtest ]; then
		[ -n "$(gh_module_path "$ver" netoops_crashtest)" ] ||
			miss+=("netoops_crashtest.ko for $ver")
	fi
	[ ${#miss[@]} -eq 0 ] || { local IFS=';'; echo "${miss[*]}"; }
}

ct__guest_script()
{
	local mode=$1 port=$2 trigger=$3 tag=$4

	cat <<EOF
. /etc/guest-lib.sh
set -u
EOF
	[ -z "${CT_PRELUDE:-}" ] || printf '%s\n' "$CT_PRELUDE"
	if [ "${CT_MODULE:-}" = netoops_crashtest ]; then
		echo 'modprobe netoops_crashtest || { echo "CT-ERROR no netoops_crashtest"; exit 1; }'
	fi
	case $mode in
	netoops)
		cat <<EOF
g_load_project || { echo "CT-ERROR project modules do not load"; exit 1; }
g_target netoops t0 10.0.2.2 $port || { echo "CT-ERROR netoops target refused"; exit 1; }
g_netoops_user t0 $CT_USER_KEY $tag || { echo "CT-ERROR cannot set user field"; exit 1; }
echo "ID boot_id=\$(g_netoops_boot_id)"
${CT_NETOOPS_PARAMS:+g_netoops_params $CT_NETOOPS_PARAMS}
EOF
		;;
	netconsole)
		cat <<EOF
g_load_stock_netconsole || { echo "CT-ERROR no netconsole"; exit 1; }
g_target netconsole t0 10.0.2.2 $port || { echo "CT-ERROR netconsole target refused"; exit 1; }
EOF
		;;
	netconsole-ext)
		cat <<EOF
g_load_stock_netconsole || { echo "CT-ERROR no netconsole"; exit 1; }
g_target netconsole t0 10.0.2.2 $port extended=1 || { echo "CT-ERROR netconsole target refused"; exit 1; }
EOF
		;;
	esac
	cat <<EOF
echo "ID release=\$(uname -r)"
echo "ID hostname=\$(hostname)"
echo "ID user=$CT_USER_KEY=$tag"
echo "CT-TRIGGER"
g_out_drain
$trigger
echo "CT-SURVIVED"
# pstore only reads a backend's records at mount: remount to see new ones
umount /sys/fs/pstore 2>/dev/null
mount -t pstore pstore /sys/fs/pstore
for f in /sys/fs/pstore/*; do [ -e "\$f" ] && echo "PSTORE \$(basename "\$f")"; done
EOF
}

# ct_crash_run VER NAME MODE TRIGGER [APPEND]
ct_crash_run()
{
	local ver=$1 name=$2 mode=$3 trigger=$4 append=${5:-}
	local tag port script rc=0 grc

	CT_DIR=$GH_OUT/runs/$name
	tag=$(printf 'r%04x%04x' $RANDOM $RANDOM)
	mkdir -p "$GH_OUT/runs"
	script=$(mktemp "$GH_OUT/runs/.script.XXXXXX")
	case $mode in
	netoops)
		# shellcheck disable=SC2086
		gh_collector_start "$GH_OUT/runs/$name.collector" ${CT_COLLECTOR_ARGS:-} || {
			rm -f "$script"
			echo "netoopsd did not start"
			return 1
		}
		port=$GH_PORT ;;
	*)	port=$(gh_free_port)
		gh_udp_listen_start "$port" "$GH_OUT/runs/$name.udp" ;;
	esac
	ct__guest_script "$mode" "$port" "$trigger" "$tag" > "$script"
	# CT_QEMU_ARGS: further QEMU arguments, split on blanks
	# shellcheck disable=SC2086
	GH_ENV_HOSTNAME="ct-$tag" gh_boot "$ver" "$name" "$script" "${CT_BOOT_TIMEOUT:-300}" "$append" ${CT_QEMU_ARGS:-} || rc=$?
	rm -f "$script"
	# Move the receiver's evidence into the run directory (gh_boot
	# recreated it).
	if [ "$mode" = netoops ]; then
		ct__wait_dumps || true
		gh_collector_stop
		rm -rf "$CT_DIR/collector"
		mv "$GH_OUT/runs/$name.collector" "$CT_DIR/collector"
		GH_DB=$CT_DIR/collector/netoops.db
	else
		# The listener keeps receiving until the guest is gone; QEMU
		# has exited, so whatever slirp forwarded is in the socket.
		gh_wait_for 5 ct__udp_quiet "$GH_OUT/runs/$name.udp" || true
		gh_udp_listen_stop
		mv "$GH_OUT/runs/$name.udp" "$CT_DIR/received.udp"
		rm -f "$GH_OUT/runs/$name.udp.ready"
	fi
	if [ "${CT_REBOOTS:-0}" = 1 ] && ! ct__split_boots; then
		echo "no second boot on the console (serial.log, results.log)"
		return 1
	fi
	grc=$(gh_guest_rc "$name")
	if [ -n "$(gh_netfail "$name")" ]; then
		echo "guest setup failed: $(gh_netfail "$name")"
		return 1
	fi
	if [ "$rc" = 124 ]; then
		ct__timeout_report
		return 1
	fi
	if grep -q '^CT-ERROR' "$CT_DIR/results.log"; then
		grep '^CT-ERROR' "$CT_DIR/results.log"
		return 1
	fi
	if ! grep -q '^CT-TRIGGER' "$CT_DIR/results.log"; then
		ct__console_tail
		echo "guest never reached the trigger"
		return 1
	fi
	if [ "${CT_SURVIVES:-0}" = 1 ]; then
		grep -q '^CT-SURVIVED' "$CT_DIR/results.log" || {
			echo "guest did not survive the crash (panic_on_oops=0)"
			return 1
		}
	elif [ -n "$grc" ]; then
		echo "guest did not crash (script exit $grc)"
		return 1
	fi
	ct__check "$mode"
}

# ct__split_boots: cut serial.log, serial.ts and results.log where the
# second boot begins (its "Linux version" banner; the init's second
# @@GH-BEGIN@@), the second boot's part going to *-boot2.*.
ct__split_boots()
{
	local f n re

	for f in serial.log serial.ts results.log; do
		case $f in
		results.log) re='^@@GH-BEGIN@@$' ;;
		*) re='\] Linux version ' ;;
		esac
		n=$(grep -n -E "$re" "$CT_DIR/$f" | sed -n '2s/:.*//p')
		[ -n "$n" ] || return 1
		tail -n "+$n" "$CT_DIR/$f" > "$CT_DIR/${f%.*}-boot2.${f##*.}"
		head -n "$((n - 1))" "$CT_DIR/$f" > "$CT_DIR/$f.boot1"
		mv "$CT_DIR/$f.boot1" "$CT_DIR/$f"
	done
}

# ct__console_tail: the guest's last console lines and how QEMU ended, for
# a guest that stopped before its trigger (the run directory is gone when a
# CI log is read).
ct__console_tail()
{
	if grep -q -E '(Oops|BUG|Kernel panic)' "$CT_DIR/serial.log" 2>/dev/null; then
		sed -n '/Oops\|BUG:\|Kernel panic/,$p' "$CT_DIR/serial.log" |
			head -n 40 | sed 's/^/console: /'
	else
		tail -n 8 "$CT_DIR/serial.log" 2>/dev/null | sed 's/^/console: /'
	fi
	sed 's/^/qemu: /' "$CT_DIR/qemu.exit" 2>/dev/null
	tail -n 3 "$CT_DIR/qemu.log" 2>/dev/null | sed 's/^/qemu log: /'
}

# ct__timeout_report: say where a guest that QEMU's timeout killed stood:
# the last lines of its console, each with how long before the kill it
# came out (serial.ts and qemu.exit are on the host's clock).
ct__timeout_report()
{
	local kill silent=""

	kill=$(cut -d' ' -f1 "$CT_DIR/qemu.exit" 2>/dev/null)
	if [ -n "$kill" ] && [ -s "$CT_DIR/serial.ts" ]; then
		echo "last console lines, seconds before the kill:"
		tail -n 5 "$CT_DIR/serial.ts" | awk -v k="$kill" \
			'{ t = $1; sub(/^[^ ]* /, ""); printf "  %7.1f %s\n", k - t, $0 }'
		silent=$(tail -n 1 "$CT_DIR/serial.ts" | awk -v k="$kill" \
			'{ printf ", console silent for its last %.1f s", k - $1 }')
	fi
	echo "guest timed out (QEMU killed by its timeout)$(
		grep -q '^CT-TRIGGER' "$CT_DIR/results.log" && echo ', after the trigger')$silent"
}

# ct__udp_quiet FILE: true once FILE stopped growing for 300 ms.
ct__udp_quiet()
{
	local a b

	a=$(stat -c %s "$1")
	sleep 0.3
	b=$(stat -c %s "$1")
	[ "$a" = "$b" ]
}

# ct__wait_dumps: wait until the collector stored a complete dump (or
# CT_EXPECT_DUMPS of them); a partial one is stored when reassembly times
# out (GH_REASSEMBLY_MS), which the wait also covers.
ct__wait_dumps()
{
	gh_wait_for 15 ct__have_dumps
}

ct__have_dumps()
{
	local n

	n=$(gh_cli --json list 2>/dev/null | python3 -c 'import json,sys
print(sum(1 for d in json.load(sys.stdin)))') || return 1
	[ "$n" -ge "${CT_EXPECT_DUMPS:-1}" ]
}

ct__check()
{
	local mode=$1 lmode=${CT_LOG_MODE:-panic}

	case $mode in
	netconsole|netconsole-ext)
		gh_udp_payloads "$CT_DIR/received.udp" --text > "$CT_DIR/received.txt"
		echo "received: $(gh_udp_payloads "$CT_DIR/received.udp") (datagrams bytes)"
		python3 "$GH_ROOT/tests/guest/verify_log.py" --serial "$CT_DIR/serial.log" \
			--mode "$lmode" "$CT_DIR/received.txt"
		;;
	netoops)
		ct_check_netoops
		;;
	esac || return 1
	if [ -n "${CT_EXTRA_CHECK:-}" ]; then
		"$CT_EXTRA_CHECK" || return 1
	fi
	case ${CT_MIN_OOPSES:-} in
	'') ;;
	*)	local n
		# every oops's die() header ends in "[#N]": "Oops: 0000 [#1]" for
		# the NULL dereference on Debian's kernels, "Oops: general
		# protection fault, ...: 0000 [#1]" under inline KASAN
		n=$(grep -cE ': [0-9a-f]{4} \[#[0-9]+\]' "$CT_DIR/serial.log" || true)
		echo "oopses on the console: $n (at least $CT_MIN_OOPSES wanted)"
		[ "$n" -ge "$CT_MIN_OOPSES" ] || return 1
		;;
	esac
}

# ct_check_netoops: dumps in the store vs. the guest's serial log and
# identity (results.log "ID key=value" lines).
ct_check_netoops()
{
	gh_cli --json list > "$CT_DIR/list.json" 2>"$CT_DIR/cli.err" || {
		echo "netoops list failed: $(cat "$CT_DIR/cli.err")"
		return 1
	}
	rm -f "$CT_DIR"/dump-*.json
	python3 -c 'import json,sys
for d in json.load(open(sys.argv[1])):
    json.dump(d, open("%s/dump-%d.json" % (sys.argv[2], d["id"]), "w"), indent=1)' \
		"$CT_DIR/list.json" "$CT_DIR"
	python3 "$GH_ROOT/tests/guest/verify_dump.py" \
		--results "$CT_DIR/results.log" --serial "$CT_DIR/serial.log" \
		--mode "${CT_LOG_MODE:-panic}" \
		${CT_EXPECT_DUMPS:+--dumps "$CT_EXPECT_DUMPS"} \
		${CT_EXPECT_REASON:+--reason "$CT_EXPECT_REASON"} \
		${CT_EXPECT_REGS:+--regs "$CT_EXPECT_REGS"} \
		${CT_EXPECT_PARTIAL:+--partial "$CT_EXPECT_PARTIAL"} \
		${CT_SURVIVES:+--pstore} \
		$(ls "$CT_DIR"/dump-*.json 2>/dev/null) || {
		ct__diag
		return 1
	}
}

# ct__diag: what a failed dump check needs in the log itself (a CI run's
# directory is gone when its log is read): the collector's counters, the
# guest's console from the panic on, and how QEMU ended.
ct__diag()
{
	local m=$CT_DIR/collector/metrics.prom

	[ -f "$m" ] && echo "collector: $(awk '
		/^netoops_packets_(received|accepted|duplicate)_total / {
			sub(/^netoops_packets_/, ""); sub(/_total/, ""); printf "%s ", $0 }
		/^netoops_packets_dropped_total/ && $2 != 0 { printf "dropped %s ", $0 }
		/^netoops_kernel_drops_total/ { printf "kernel_drops %s", $2 }' "$m")"
	grep -h -v '^netoopsd: listening' "$CT_DIR/collector/netoopsd.log" 2>/dev/null |
		tail -n 4 | sed 's/^/collector log: /'
	sed -n '/Kernel panic\|BUG:\|Oops:/,$p' "$CT_DIR/serial.ts" 2>/dev/null |
		grep -v -E '^[0-9.]+ \[ *[0-9.]+\] ( |([A-Z][A-Z0-9]{1,2}|Code): )' |
		sed -n '1p;2,$H;${x;s/^\n//;p}' | tail -n 8 | sed 's/^/console: /'
	sed 's/^/qemu: /' "$CT_DIR/qemu.exit" 2>/dev/null
}

# ct_report NAME RUNDIR CMD...: run a check, print its output as KTAP
# diagnostics and record its result; a failure points at RUNDIR.
ct_report()
{
	local name=$1 dir=$2 out rc=0

	shift 2
	out=$("$@" 2>&1) || rc=$?
	echo "$out" | sed 's/^/    # /'
	if [ $rc = 0 ]; then
		gh_record "$name" pass
	else
		# the summary says why too: a CI log is often cut to its end
		gh_record "$name" fail "$(echo "$out" | grep -v '^ *$' |
			grep -v '^  ' | tail -n 1 | tr '\t' ' ' | cut -c1-160); evidence: $dir"
	fi
	return $rc
}

# ct_reboot_check MAX REGEX: the guest reset (panic=1; QEMU exits) within
# MAX seconds of the first console line matching REGEX (ERE), on the host's
# clock (serial.ts, qemu.exit): the guest's printk clock stands still
# during a panic on 6.1 under TCG.  Prints the time it took, and the
# guest's own figure up to "Rebooting in" where it has one.
ct_reboot_check()
{
	local max=$1 re=$2 t0 t1 g0 g1

	t0=$(grep -E "^[0-9.]+ \[ *[0-9.]+\] ($re)" "$CT_DIR/serial.ts" | head -n 1 |
		cut -d' ' -f1)
	t1=$(sed -n 's/^\([0-9.]*\) QEMU exited with 0$/\1/p' "$CT_DIR/qemu.exit" 2>/dev/null)
	if [ -z "$t0" ] || [ -z "$t1" ]; then
		echo "no trigger line on the console, or QEMU did not exit by itself"
		return 1
	fi
	g0=$(grep -E "^\[ *[0-9.]+\] ($re)" "$CT_DIR/serial.log" | head -n 1 |
		sed 's/^\[ *\([0-9.]*\)\].*/\1/')
	g1=$(sed -n 's/^\[ *\([0-9.]*\)\] Rebooting in .*/\1/p' "$CT_DIR/serial.log" | head -n 1)
	echo "trigger to reset: $(echo "$t1 - $t0" | bc) s on the host's clock (bound $max s, 1 s of it panic=1's)${g1:+; guest clock to 'Rebooting in': $(echo "$g1 - $g0" | bc) s}"
	[ "$(echo "$t1 - $t0 <= $max" | bc)" = 1 ]
}

# ct_pstore_backends_check LIST: the first boot's BACKENDS line (pstore's
# backend parameter) reads LIST: every backend named there registered.
ct_pstore_backends_check()
{
	local got

	got=$(sed -n 's/^BACKENDS //p' "$CT_DIR/results.log" | tr -d '\r')
	echo "boot 1: pstore backends '$got'"
	[ "$got" = "$1" ] || {
		echo "pstore backends '$got', not '$1': not all registered"
		return 1
	}
}

# ct_pstore_records_check WHAT TEXT MARKER: TEXT, the pstore records
# (WHAT) the second boot printed, holds MARKER and the panic line of a
# sysrq crash; says which is missing.
ct_pstore_records_check()
{
	local what=$1 text=$2 marker=$3

	echo "$text" | grep -qF "$marker" || {
		echo "$what: no marker '$marker'"
		return 1
	}
	echo "$text" | grep -q 'Kernel panic - not syncing: sysrq triggered crash' || {
		echo "$what: no panic line"
		return 1
	}
	echo "$what: the marker and the panic line"
}

# ct_main SCENARIO KERNEL TRIGGER [APPEND]: one netoops crash test in a
# fresh guest of KERNEL, recorded as crash/<ver>/SCENARIO.  A missing piece
# (module, collector) is a failure that names it, never a silent pass.
ct_main()
{
	local scen=$1 ver trigger=$3 append=${4:-} miss

	ver=$(gh_resolve_kernel "$2")
	ct_prepare "$ver"
	miss=$(ct_missing "$ver" netoops)
	if [ -n "$miss" ]; then
		gh_record "crash/$ver/$scen" fail "missing: $miss"
		return 1
	fi
	ct_report "crash/$ver/$scen" "$GH_OUT/runs/crash-$scen-$ver" \
		ct_crash_run "$ver" "crash-$scen-$ver" netoops "$trigger" "$append"
}
