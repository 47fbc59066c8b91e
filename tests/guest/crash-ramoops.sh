#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# crash-ramoops.sh KERNEL - one panic recorded by two pstore backends at
# once: ramoops (built in, on 1 MiB of RAM that memmap= keeps from the
# kernel) and netoops.  Needs a kernel with pstore's multi-backend patch
# (patches/) and CONFIG_PSTORE_RAM=y: the debug kernel.
#
# The guest loads netoops beside ramoops (both must be registered:
# /sys/module/pstore/parameters/backend reads "ramoops,netoops"), writes a
# marker to the kernel log and crashes with sysrq-c.  The panic reboots it
# in the same QEMU process, RAM kept; the second boot finds the ramoops
# record in /sys/fs/pstore and prints it.  Checks: the collector holds the
# complete dump (the usual crash checks), and the ramoops record holds the
# marker and the panic line of the same crash.
set -euo pipefail
source "$(dirname "$0")/crash-lib.sh"
[ $# -eq 1 ] || gh_die "usage: $0 KERNEL"

# 1 MiB at 496 MiB of the guest's 512: reserved by memmap=, found again by
# ramoops after the reset.  64 KiB records hold the compressed log.
# pstore.backend= names both backends: several are opt-in.
ramoops_append='memmap=0x100000$0x1f000000 ramoops.mem_address=0x1f000000 ramoops.mem_size=0x100000 ramoops.record_size=0x10000 pstore.backend=ramoops,netoops'

# Boot 2 (a ramoops record exists): list pstore, print each ramoops dmesg
# record between markers, power off.  Boot 1 goes on to the crash.
# shellcheck disable=SC2016
export CT_PRELUDE='
if ls /sys/fs/pstore/dmesg-ramoops-* >/dev/null 2>&1; then
	echo "BOOT2 backends=$(cat /sys/module/pstore/parameters/backend)"
	for f in /sys/fs/pstore/*; do echo "PSTORE2 $(basename "$f")"; done
	for f in /sys/fs/pstore/dmesg-ramoops-*; do
		echo "RAMOOPS-BEGIN $(basename "$f")"
		cat "$f"
		echo "RAMOOPS-END"
	done
	exit 0
fi'

# shellcheck disable=SC2016
trigger='echo "BACKENDS $(cat /sys/module/pstore/parameters/backend)"
echo "netoops-ramoops-marker $(cat /proc/sys/kernel/random/boot_id)" > /dev/kmsg
echo "MARKER netoops-ramoops-marker $(cat /proc/sys/kernel/random/boot_id)"
g_out_drain
echo c > /proc/sysrq-trigger'

ramoops_check()
{
	local b2=$CT_DIR/results-boot2.log marker rec

	ct_pstore_backends_check ramoops,netoops || return 1
	grep '^BOOT2 \|^PSTORE2 ' "$b2" || true
	marker=$(sed -n 's/^MARKER //p' "$CT_DIR/results.log" | tr -d '\r')
	rec=$(sed -n '/^RAMOOPS-BEGIN /,/^RAMOOPS-END$/p' "$b2")
	[ -n "$rec" ] || { echo "no ramoops record after the reboot"; return 1; }
	echo "ramoops record: $(echo "$rec" | wc -l) lines"
	ct_pstore_records_check "ramoops record" "$rec" "$marker"
}

export GH_REBOOT=1 CT_REBOOTS=1 CT_LOG_MODE=panic CT_EXPECT_REASON=panic
export CT_EXTRA_CHECK=ramoops_check CT_EXPECT_DUMPS=1
ct_main ramoops "$1" "$trigger" "$ramoops_append"
