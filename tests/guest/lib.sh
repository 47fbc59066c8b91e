#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/guest/lib.sh - verbs of the guest harness (sourced, not run).
#
#   gh_kernels                 "6.12.x 6.1.y" found in /boot (newest of each)
#   gh_build_tools             make -C tools/netoops (netoopsd, netoops CLI)
#   gh_build_modules VER       project modules for VER in out/build-VER/
#   gh_initramfs VER           base initramfs for VER (busybox, modules,
#                              iproute2, selftests), cached per content
#   gh_boot VER NAME TEST [TIMEOUT] [APPEND] [QEMU ARGS...]
#                              boot a guest that runs script TEST; serial
#                              console in out/runs/NAME/serial.log, the
#                              script's own output (a second serial port) in
#                              out/runs/NAME/results.log, every frame eth0
#                              sent or got in out/runs/NAME/eth0.pcap
#   gh_collector_start DIR     start netoopsd on 127.0.0.1:<free port>
#   gh_collector_stop
#   GH_EXT_ROOT, GH_EXT_FILES  modules and programs from an installed root
#
# Everything a run produces stays under out/ (GH_OUT); callers print the
# paths on failure.  Every QEMU run is bounded by `timeout`; waits poll a
# condition with a deadline, never a fixed sleep.

set -euo pipefail

GH_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
GH_OUT=${GH_OUT:-$GH_ROOT/out}
GH_SELFTESTS=$GH_ROOT/tools/testing/selftests/netoops
# Collector binaries: the snapshot gh_build_tools takes, else the build dir.
if [ -z "${GH_TOOLS:-}" ]; then
	GH_TOOLS=$GH_ROOT/tools/netoops/build
	[ -x "$GH_OUT/tools/netoopsd" ] && GH_TOOLS=$GH_OUT/tools
fi
GH_QEMU=${GH_QEMU:-qemu-system-x86_64}
GH_BOOT_TIMEOUT=${GH_BOOT_TIMEOUT:-90}
# The crash tests (tests/guest/crash-T.sh), in the order run-all.sh runs
# them.
GH_CRASH_TESTS_ALL="sysrq oops softirq bug warn softlockup oneshot auth txlock nomem wedge softpanic nmi mq"
# Guest CPUs: two, so that a crash meets another CPU that was running (and
# that panic() stops wherever it is).
GH_SMP=${GH_SMP:-2}
# eth0: QEMU user networking (guest -> 10.0.2.2 = host 127.0.0.1).  Two more
# virtio NICs on one QEMU hub form a private wire for the selftests (veth
# cannot carry netpoll); lib_netoops.sh finds them by MAC.
GH_USER_MAC=52:54:00:12:34:56
GH_WIRE_MAC1=52:54:00:00:5e:01
GH_WIRE_MAC2=52:54:00:00:5e:02
# Stock modules every guest gets (with their dependencies).
GH_STOCK_MODULES=(configfs virtio_pci virtio_net veth netconsole)

# --- kernels built from a tree (tests/debug-kernel/) ---------------------
# GH_KERNEL_DIR names a directory holding a kernel built from a source tree
# (tests/debug-kernel/build.sh: bzImage, release, modules/ with the
# project's in-tree .ko files, lib/modules/<release>/, build -> the tree).
# Its release is then a kernel like those in /boot: image, modules and
# build tree come from that directory, and the project's modules are the
# ones built in the tree.  Unset: nothing changes.
GH_KERNEL_DIR=${GH_KERNEL_DIR:-}

# gh__tree_kernel VER: true when VER is the kernel in GH_KERNEL_DIR.
gh__tree_kernel()
{
	[ -n "$GH_KERNEL_DIR" ] && [ -f "$GH_KERNEL_DIR/release" ] &&
		[ "$(cat "$GH_KERNEL_DIR/release")" = "$1" ]
}

# gh_kernel_image VER: the bzImage to boot.
gh_kernel_image()
{
	if gh__tree_kernel "$1"; then
		echo "$GH_KERNEL_DIR/bzImage"
	else
		echo "/boot/vmlinuz-$1"
	fi
}

# gh_modroot VER: the root holding lib/modules/VER ("" for /).
gh_modroot()
{
	if gh__tree_kernel "$1"; then
		echo "$GH_KERNEL_DIR"
	fi
}

# gh__build_modules_tree VER: the project's modules are the tree's; only
# the test module is built, out of tree, against the tree.
gh__build_modules_tree()
{
	local ver=$1 dir=$GH_OUT/build-$1 rc=0

	rm -rf "$dir/src"
	mkdir -p "$dir/src"
	cp -a "$GH_ROOT/tests/modules" "$dir/src/"
	rm -f "$dir/src/modules/"*.ko "$dir/src/modules/"*.o
	{
		echo "### make -C $GH_KERNEL_DIR/build M=$dir/src/modules W=1 modules"
		make -C "$GH_KERNEL_DIR/build" M="$dir/src/modules" W=1 modules || rc=$?
	} >"$dir/build.log" 2>&1
	{
		ls "$GH_KERNEL_DIR/modules/"*.ko
		find "$dir/src/modules" -name '*.ko'
	} 2>/dev/null | sort > "$dir/modules.list"
	[ -s "$dir/modules.list" ] || rc=1
	return $rc
}
# --- end of kernels built from a tree ------------------------------------

# GH_EXT_ROOT names a root filesystem with the project installed from
# packages (tests/packaging/): the project's modules for VER are then its
# DKMS-built lib/modules/VER/updates/dkms/*.ko*, not gh_build_modules'
# ones, and the files GH_EXT_FILES lists (absolute paths inside that
# root, blank-separated) go into the initramfs at the same paths, with
# their libraries.  Unset: nothing changes.
GH_EXT_ROOT=${GH_EXT_ROOT:-}
GH_EXT_FILES=${GH_EXT_FILES:-}

# gh__project_modules VER: the project's .ko files to put in the initramfs.
gh__project_modules()
{
	if [ -n "$GH_EXT_ROOT" ]; then
		find "$GH_EXT_ROOT/lib/modules/$1/updates/dkms" -name '*.ko*' | sort
	elif [ -s "$GH_OUT/build-$1/modules.list" ]; then
		cat "$GH_OUT/build-$1/modules.list"
	fi
}

# gh__stage_ext_files DEST: GH_EXT_FILES from GH_EXT_ROOT into DEST.
gh__stage_ext_files()
{
	local dest=$1 f lib

	for f in $GH_EXT_FILES; do
		install -D -m 0755 "$GH_EXT_ROOT$f" "$dest$f"
		# ldd (the host's loader: the same Debian release) names the
		# libraries; copied from the root where it has them.  ldd fails
		# on scripts and static programs: no libraries then.
		for lib in $(ldd "$GH_EXT_ROOT$f" 2>/dev/null | grep -o '/[^ ]*'); do
			[ -e "$dest$lib" ] && continue
			if [ -e "$GH_EXT_ROOT$lib" ]; then
				install -D -m 0755 "$GH_EXT_ROOT$lib" "$dest$lib"
			else
				install -D -m 0755 "$lib" "$dest$lib"
			fi
		done
	done
}

mkdir -p "$GH_OUT"

gh_log()
{
	echo "guest: $*" >&2
}

gh_die()
{
	echo "guest: error: $*" >&2
	exit 1
}

# gh_kernels: print the newest Debian 6.12 and the newest 6.1 kernel found
# in /boot (both must have modules and headers installed).
gh_kernels()
{
	local series v found out=()

	for series in 6.12 6.1; do
		found=""
		for v in $(ls /boot/vmlinuz-"$series".* 2>/dev/null |
			   sed 's|^/boot/vmlinuz-||' | sort -V -r); do
			[ -d "/lib/modules/$v/kernel" ] || continue
			[ -d "/usr/src/linux-headers-$v" ] || continue
			found=$v
			break
		done
		[ -n "$found" ] && out+=("$found")
	done
	echo "${out[@]}"
}

# gh_kernel SERIES: newest installed kernel of SERIES (6.12 or 6.1).
gh_kernel()
{
	local v

	for v in $(gh_kernels); do
		case $v in "$1".*) echo "$v"; return 0 ;; esac
	done
	return 1
}

# gh_build_tools: build the collector and snapshot netoopsd and the CLI
# into out/tools/ (others rebuild tools/netoops/build/ while we run; a run
# must not pick up a half-written binary or a daemon and CLI of different
# versions).  Returns make's status; the snapshot is taken only on success.
gh_build_tools()
{
	local rc=0

	[ -f "$GH_ROOT/tools/netoops/Makefile" ] || return 1
	make -s -C "$GH_ROOT/tools/netoops" -j2 >"$GH_OUT/tools-build.log" 2>&1 || rc=$?
	if [ $rc = 0 ]; then
		mkdir -p "$GH_OUT/tools.new"
		cp "$GH_ROOT/tools/netoops/build/netoopsd" \
		   "$GH_ROOT/tools/netoops/build/netoops" "$GH_OUT/tools.new/"
		rm -rf "$GH_OUT/tools"
		mv "$GH_OUT/tools.new" "$GH_OUT/tools"
	fi
	return $rc
}

# gh_have_collector: true when netoopsd and the netoops CLI are built.
gh_have_collector()
{
	[ -x "$GH_TOOLS/netoopsd" ] && [ -x "$GH_TOOLS/netoops" ]
}

# gh_build_modules VER: copy the sources to out/build-VER/src (so two
# kernels never share objects) and build them W=1 against VER's headers.
# The .ko files are listed in out/build-VER/modules.list; the build log is
# out/build-VER/build.log.  Returns non-zero when the build fails.
gh_build_modules()
{
	local ver=$1 dir=$GH_OUT/build-$1 kdir=/usr/src/linux-headers-$1 rc=0

	gh__tree_kernel "$ver" && { gh__build_modules_tree "$ver"; return; }
	[ -d "$kdir" ] || gh_die "no headers for $ver in $kdir (make deps)"
	# A fresh copy each time: a module build takes seconds and a stale
	# object from a deleted source must never end up in a guest.
	rm -rf "$dir/src"
	mkdir -p "$dir/src"
	tar -C "$GH_ROOT" --exclude=./out --exclude=./.git \
		--exclude='./tools/netoops/build*' --exclude='*.o' \
		--exclude='*.ko' --exclude='.*.cmd' --exclude='*.mod' \
		--exclude='*.mod.c' -cf - . | tar -C "$dir/src" -xf -
	: > "$dir/modules.list"
	{
		echo "### make -C $kdir M=$dir/src W=1 modules"
		make -C "$kdir" M="$dir/src" W=1 -j2 modules || rc=$?
		# The crash-test module may live in its own kbuild directory.
		if [ -f "$dir/src/tests/modules/Kbuild" ] ||
		   [ -f "$dir/src/tests/modules/Makefile" ]; then
			if ! ls "$dir/src/tests/modules/"*.ko >/dev/null 2>&1; then
				echo "### make -C $kdir M=$dir/src/tests/modules W=1 modules"
				make -C "$kdir" M="$dir/src/tests/modules" W=1 modules ||
					rc=$?
			fi
		fi
	} >"$dir/build.log" 2>&1
	find "$dir/src" -name '*.ko' | sort > "$dir/modules.list"
	if grep -q 'warning:' "$dir/build.log"; then
		gh_log "$ver: W=1 warnings in $dir/build.log"
	fi
	return $rc
}

# gh_module_path VER NAME: path of the project's NAME.ko built for VER.
gh_module_path()
{
	grep "/$2\.ko$" "$GH_OUT/build-$1/modules.list" 2>/dev/null | head -n 1
}

# gh__copy_bin DEST BIN: copy a dynamically linked program and its
# libraries into the staging root DEST.
gh__copy_bin()
{
	local dest=$1 bin=$2 lib

	install -D -m 0755 "$bin" "$dest$bin"
	for lib in $(ldd "$bin" | grep -o '/[^ ]*'); do
		[ -e "$dest$lib" ] || install -D -m 0755 "$lib" "$dest$lib"
	done
}

# gh__stage_module DEST VER SRC SUBDIR: place SRC (maybe .xz) as a plain
# .ko under DEST/lib/modules/VER/SUBDIR/.
gh__stage_module()
{
	local dest=$1 ver=$2 src=$3 sub=$4 base

	base=$(basename "$src")
	base=${base%.xz}
	mkdir -p "$dest/lib/modules/$ver/$sub"
	case $src in
	*.xz)	xz -dc "$src" > "$dest/lib/modules/$ver/$sub/$base" ;;
	*.zst)	zstd -qdc "$src" > "$dest/lib/modules/$ver/$sub/${base%.zst}" ;;
	*)	cp "$src" "$dest/lib/modules/$ver/$sub/$base" ;;
	esac
}

# gh_initramfs VER: build out/initramfs-VER/base.cpio.gz and print its path.
# Content: busybox-static, the stock modules in GH_STOCK_MODULES and their
# dependencies (kernel/...), the project's modules (updates/..., so modprobe
# prefers the project's netconsole over the stock one), modules.dep from
# depmod, iproute2 (busybox ip has no netns/veth), the selftests directory
# at /ksft and the guest init.
gh_initramfs()
{
	local ver=$1 dir=$GH_OUT/initramfs-$1 stage m line ko mroot

	mroot=$(gh_modroot "$ver")

	stage=$dir/root
	rm -rf "$stage"
	mkdir -p "$stage"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,run,etc,ksft}
	mkdir -p "$stage"/sys/kernel/config "$stage"/run/netns "$stage"/var/run
	cp /bin/busybox "$stage/bin/busybox"
	ln -s busybox "$stage/bin/sh"
	# iproute2 (netns, veth) and bash (the selftests are bash scripts).
	gh__copy_bin "$stage" "$(readlink -f /sbin/ip)"
	[ "$(readlink -f /sbin/ip)" = /sbin/ip ] ||
		ln -sf "$(readlink -f /sbin/ip)" "$stage/sbin/ip"
	gh__copy_bin "$stage" "$(readlink -f /bin/bash)"
	[ "$(readlink -f /bin/bash)" = /bin/bash ] ||
		ln -sf "$(readlink -f /bin/bash)" "$stage/bin/bash"

	for m in "${GH_STOCK_MODULES[@]}"; do
		modprobe ${mroot:+-d "$mroot"} -S "$ver" --show-depends "$m" 2>/dev/null |
		while read -r line; do
			case $line in
			insmod\ *)
				ko=$(echo "$line" | awk '{print $2}')
				rel=${ko#"$mroot"}
				rel=${rel#/lib/modules/$ver/}
				gh__stage_module "$stage" "$ver" "$ko" "$(dirname "$rel")"
				;;
			esac
		done
	done
	cp "$mroot/lib/modules/$ver/modules.builtin" "$mroot/lib/modules/$ver/modules.order" \
		"$stage/lib/modules/$ver/" 2>/dev/null || true
	cp "$mroot/lib/modules/$ver/modules.builtin.modinfo" \
		"$stage/lib/modules/$ver/" 2>/dev/null || true
	gh__project_modules "$ver" | while read -r ko; do
		gh__stage_module "$stage" "$ver" "$ko" updates/netoops
	done
	gh__stage_ext_files "$stage"
	depmod -b "$stage" "$ver"

	make -s -C "$GH_SELFTESTS" >/dev/null
	cp -a "$GH_SELFTESTS/." "$stage/ksft/"
	install -m 0755 "$GH_ROOT/tests/guest/guest-init.sh" "$stage/init"
	install -m 0644 "$GH_ROOT/tests/guest/guest-lib.sh" "$stage/etc/guest-lib.sh"

	(cd "$stage" && find . -print0 | LC_ALL=C sort -z |
		cpio --null -o -H newc --quiet) | gzip -1 > "$dir/base.cpio.gz.tmp"
	mv "$dir/base.cpio.gz.tmp" "$dir/base.cpio.gz"
	echo "$dir/base.cpio.gz"
}

# gh_accel: "tcg", or "kvm" when GH_TRY_KVM=1 and a KVM guest really boots
# (PLATFORM.md: /dev/kvm exists here but cannot run these kernels).
gh_accel()
{
	local cache=$GH_OUT/accel.cache key

	if [ "${GH_TRY_KVM:-0}" != 1 ] || [ ! -w /dev/kvm ]; then
		echo tcg
		return
	fi
	key=$(cat /proc/sys/kernel/random/boot_id)
	if [ -f "$cache" ] && [ "$(head -n 1 "$cache")" = "$key" ]; then
		tail -n 1 "$cache"
		return
	fi
	local k v
	v=$(gh_kernel 6.12)
	k=tcg
	if GH_ACCEL_FORCE=kvm gh_boot "$v" kvm-probe /dev/null 30 >/dev/null 2>&1 &&
	   [ "$(gh_guest_rc kvm-probe)" = 0 ]; then
		k=kvm
	fi
	printf '%s\n%s\n' "$key" "$k" > "$cache"
	echo "$k"
}

# gh_boot VER NAME TEST [TIMEOUT] [APPEND] [QEMU ARGS...]
# Boots VER with the base initramfs plus a per-run archive holding TEST
# (run by /init as /run.d/test.sh) and /run.d/env (GH_ENV_* variables of
# the caller's environment, without the prefix).  Returns QEMU's status
# (124 on timeout).  The run directory is out/runs/NAME.
gh_boot()
{
	local ver=$1 name=$2 test=$3 tmo=${4:-$GH_BOOT_TIMEOUT} append=${5:-}
	local run=$GH_OUT/runs/$name base accel rc=0 v

	shift $(( $# < 5 ? $# : 5 ))
	# tree kernels (GH_KERNEL_DIR) may be debug kernels, several times slower
	gh__tree_kernel "$ver" && tmo=$(( tmo * ${GH_TREE_TIMEOUT_SCALE:-5} ))
	base=$GH_OUT/initramfs-$ver/base.cpio.gz
	[ -f "$base" ] || gh_initramfs "$ver" >/dev/null
	rm -rf "$run"
	mkdir -p "$run/stage/run.d"
	if [ "$test" != /dev/null ]; then
		install -m 0755 "$test" "$run/stage/run.d/test.sh"
	else
		printf '#!/bin/sh\necho probe-ok\n' > "$run/stage/run.d/test.sh"
	fi
	: > "$run/stage/run.d/env"
	mkdir -p "$run/stage/etc"
	echo "$GH_WIRE_MAC1 $GH_WIRE_MAC2" > "$run/stage/etc/netoops-wire"
	for v in $(compgen -e | grep '^GH_ENV_' || true); do
		printf '%s=%q\n' "${v#GH_ENV_}" "${!v}" >> "$run/stage/run.d/env"
	done
	(cd "$run/stage" && find . | cpio -o -H newc --quiet) | gzip -1 > "$run/run.cpio.gz"
	cat "$base" "$run/run.cpio.gz" > "$run/initramfs.gz"

	accel=${GH_ACCEL_FORCE:-$(gh_accel)}
	local accel_args=(-accel tcg -cpu "qemu64,+rdrand")
	[ "$accel" = kvm ] && accel_args=(-enable-kvm -cpu host)
	: > "$run/serial.log"
	: > "$run/results.log"
	echo "$ver" > "$run/kernel"
	# serial.ts: each console line with the host time it came out at
	python3 "$GH_ROOT/tests/guest/serial_ts.py" "$run/serial.log" "$run/serial.ts" &
	local stamper=$!
	# GH_REBOOT=1: a reset reboots the guest in the same QEMU process
	# (RAM kept), the init runs the script again; poweroff ends QEMU.
	local reboot=(-no-reboot)
	[ "${GH_REBOOT:-0}" = 1 ] && reboot=()
	# maxcpus=1: the kernel boots on one vCPU and the init brings the
	# others online (g_cpus_online) before it loads a module.  Multi-
	# threaded TCG can keep a stale translation of kernel text that
	# another vCPU patches (text_poke_bp(): static keys, DO_ONCE) and run
	# its int3 after the patch is done: "Oops: int3", about one boot in
	# 130 (key_set_index_key's DO_ONCE, disabled by a kworker while
	# kernel_init loads keys).  On one vCPU no boot-time patch races;
	# no_ipi_broadcast=1 keeps the apic_use_ipi_shorthand key, which the
	# first onlining would flip, as it is.  Module loads after the
	# onlining still patch text (their own, and keys their init enables);
	# RDRAND (TCG emulates it) lets the kernel fill the random pool at
	# boot: else crng_is_ready, a static key, is enabled when the pool
	# fills later, under a running second vCPU.  tsc=unstable: TCG's TSC
	# may be found unstable at any time by the clocksource watchdog or at
	# onlining, and that disables the __sched_clock_stable key (enabled
	# at boot when the TSC looked stable); marked unstable from the
	# start, the key is never enabled and the clocksource is hpet.
	# tests/guest/boot-patching.sh checks that nothing else does.
	timeout --kill-after=5 "$tmo" "$GH_QEMU" "${accel_args[@]}" \
		-m 512 -smp "$GH_SMP" "${reboot[@]}" -display none -monitor none \
		-kernel "$(gh_kernel_image "$ver")" -initrd "$run/initramfs.gz" \
		-append "console=ttyS0,115200 panic=1 no_timer_check maxcpus=1 no_ipi_broadcast=1 tsc=unstable $append" \
		-serial "file:$run/serial.log" -serial "file:$run/results.log" \
		-netdev user,id=n0 \
		-object "filter-dump,id=d0,netdev=n0,file=$run/eth0.pcap" \
		-device virtio-net-pci,netdev=n0,mac=$GH_USER_MAC \
		-netdev hubport,id=w1,hubid=1 \
		-device virtio-net-pci,netdev=w1,mac=$GH_WIRE_MAC1 \
		-netdev hubport,id=w2,hubid=1 \
		-device virtio-net-pci,netdev=w2,mac=$GH_WIRE_MAC2 \
		"$@" > "$run/qemu.log" 2>&1 || rc=$?
	echo "$(date +%s.%N) QEMU exited with $rc" > "$run/qemu.exit"
	kill "$stamper" 2>/dev/null || true
	wait "$stamper" 2>/dev/null || true
	sed -i 's/\r$//' "$run/serial.log" "$run/results.log"
	return $rc
}

# gh_results NAME: the guest script's output (between the init's markers).
gh_results()
{
	sed -n '/^@@GH-BEGIN@@$/,/^@@GH-END /p' "$GH_OUT/runs/$1/results.log" |
		sed '1d;$d' | { grep -v '^@@GH-NETFAIL@@' || true; }
}

# gh_netfail NAME: print why the guest's setup (CPUs online, network)
# failed, if it did.
gh_netfail()
{
	sed -n 's/^@@GH-NETFAIL@@ //p' "$GH_OUT/runs/$1/results.log"
}

# gh_guest_rc NAME: exit status of the guest script, or empty if it never
# finished (crash, timeout).
gh_guest_rc()
{
	sed -n 's/^@@GH-END \([0-9]*\)@@$/\1/p' "$GH_OUT/runs/$1/results.log" |
		tail -n 1
}

# gh_free_port: an unused UDP port on 127.0.0.1.
gh_free_port()
{
	python3 -c 'import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])'
}

# gh_wait_for TIMEOUT_S CMD...: poll CMD every 100 ms until it succeeds.
gh_wait_for()
{
	local end=$(( $(date +%s) + $1 ))

	shift
	until "$@" >/dev/null 2>&1; do
		[ "$(date +%s)" -lt "$end" ] || return 1
		sleep 0.1
	done
}

# gh_udp_listen_start PORT FILE: python3 listener on 127.0.0.1:PORT that
# appends every datagram to FILE (length-prefixed: "<len>\n<bytes>") and
# counts payload bytes.  Used with stock netconsole and for the bandwidth
# comparison.  Sets GH_UDP_PID.
gh_udp_listen_start()
{
	local port=$1 file=$2

	rm -f "$file" "$file.ready"
	python3 - "$port" "$file" <<'PY' &
import socket, sys, os
port, path = int(sys.argv[1]), sys.argv[2]
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", port))
out = open(path, "ab", buffering=0)
open(path + ".ready", "w").close()
while True:
    data = s.recv(65536)
    out.write(b"%d\n" % len(data) + data)
PY
	GH_UDP_PID=$!
	gh_wait_for 10 test -e "$file.ready" || gh_die "UDP listener did not start"
}

gh_udp_listen_stop()
{
	[ -n "${GH_UDP_PID:-}" ] || return 0
	kill "$GH_UDP_PID" 2>/dev/null || true
	wait "$GH_UDP_PID" 2>/dev/null || true
	GH_UDP_PID=""
}

# gh_udp_payloads FILE [--text]: read a listener file; print "DATAGRAMS
# BYTES" (UDP payload bytes), or with --text the payloads one per line.
gh_udp_payloads()
{
	python3 - "$@" <<'PY'
import sys
path = sys.argv[1]
text = len(sys.argv) > 2 and sys.argv[2] == "--text"
data = open(path, "rb").read()
i = n = total = 0
chunks = []
while i < len(data):
    j = data.index(b"\n", i)
    ln = int(data[i:j]); i = j + 1
    chunks.append(data[i:i + ln]); i += ln
    n += 1; total += ln
if text:
    sys.stdout.buffer.write(b"\n".join(c.rstrip(b"\n") for c in chunks) + b"\n")
else:
    print(n, total)
PY
}

# gh_collector_start DIR [ARGS...]: run netoopsd storing into
# DIR/netoops.db on a free 127.0.0.1 port (netoopsd picks it: --port 0,
# told through its ready file), with ARGS after the defaults (a repeated
# option: the last one counts); sets GH_PORT, GH_DB and GH_COLLECTOR_PID.
# Evidence: DIR/netoopsd.log, every valid datagram received in
# DIR/received.dgrams (netoops decode --packets reads it), the metrics at
# exit in DIR/metrics.prom.
gh_collector_start()
{
	local dir=$1

	shift
	gh_have_collector || return 1
	mkdir -p "$dir"
	GH_DB=$dir/netoops.db
	rm -f "$dir/ready"
	"$GH_TOOLS/netoopsd" --port 0 --listen 127.0.0.1 --db "$GH_DB" \
		--ready-file "$dir/ready" --timeout-ms "${GH_REASSEMBLY_MS:-3000}" \
		--archive "$dir/received.dgrams" --metrics-file "$dir/metrics.prom" \
		--verbose "$@" > "$dir/netoopsd.log" 2>&1 &
	GH_COLLECTOR_PID=$!
	if ! gh_wait_for 10 grep -q '^port=' "$dir/ready"; then
		gh_log "netoopsd did not start; log: $dir/netoopsd.log"
		gh_collector_stop
		return 1
	fi
	GH_PORT=$(sed -n 's/^port=//p' "$dir/ready")
}

# gh_collector_stop: SIGTERM makes netoopsd store every open dump (as
# partial) and commit before it exits.
gh_collector_stop()
{
	[ -n "${GH_COLLECTOR_PID:-}" ] || return 0
	kill "$GH_COLLECTOR_PID" 2>/dev/null || true
	wait "$GH_COLLECTOR_PID" 2>/dev/null || true
	GH_COLLECTOR_PID=""
}

# gh_cli ARGS...: the netoops CLI on GH_DB.
gh_cli()
{
	"$GH_TOOLS/netoops" --db "$GH_DB" "$@"
}

# gh_resolve_kernel ARG: "6.12", "6.1" or a full release -> full release.
gh_resolve_kernel()
{
	case $1 in
	6.12|6.1)	gh_kernel "$1" || gh_die "no $1 kernel in /boot (make deps)" ;;
	*)		gh__tree_kernel "$1" && { echo "$1"; return 0; }
			[ -f "/boot/vmlinuz-$1" ] || gh_die "no /boot/vmlinuz-$1"
			echo "$1" ;;
	esac
}

# gh_record NAME STATUS [REASON]: one test result (pass|fail|skip) for the
# summary; appended to GH_RESULTS (a TSV file) when set, printed as a KTAP
# line either way.
gh_record()
{
	local name=$1 st=$2 why=${3:-}

	case $st in
	pass)	echo "ok - $name${why:+ # $why}" ;;
	skip)	echo "ok - $name # SKIP ${why:-no reason given}" ;;
	*)	echo "not ok - $name${why:+ # $why}" ;;
	esac
	if [ -n "${GH_RESULTS:-}" ]; then
		printf '%s\t%s\t%s\n' "$name" "$st" "$why" >> "$GH_RESULTS"
	fi
}
