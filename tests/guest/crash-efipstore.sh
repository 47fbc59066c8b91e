#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# crash-efipstore.sh KERNEL - one panic recorded by two pstore backends at
# once: efi_pstore (built in, writing UEFI variables through OVMF's
# runtime services) and netoops.  Needs a kernel with pstore's
# multi-backend patch (patches/), CONFIG_EFI_STUB, CONFIG_EFIVAR_FS and
# CONFIG_EFI_VARS_PSTORE=y: the debug kernel; and OVMF (Debian's `ovmf`).
#
# QEMU boots OVMF from two pflash drives: the firmware's code, read-only,
# and a private copy of its variable store, writable, made for this run
# (it ends in the run directory: the variables as the run left them).
# OVMF boots the -kernel image through its EFI stub.  The guest loads
# netoops beside efi_pstore (both must be registered:
# /sys/module/pstore/parameters/backend reads "efi_pstore,netoops"),
# marks its first boot in a UEFI variable, writes a marker to the kernel
# log and crashes with sysrq-c.  The panic resets the machine in the same
# QEMU process; the variable store keeps what efi_pstore wrote, and the
# second boot finds the efi_pstore records in /sys/fs/pstore and prints
# them, with the size of the variables that hold them.  Checks: the
# collector holds the complete dump (the usual crash checks), and the
# efi_pstore records hold the marker and the panic line of the same
# crash, and removing them from /sys/fs/pstore erases their variables.
# The run also prints the firmware's share of the reboot: the host's time
# from the panic's last kernel line to the second boot's banner.
#
# Under TCG OVMF costs about 3.5 s a boot: QEMU's start to the debug
# kernel's banner took 4.7-5.1 s against 1.3-1.8 s with SeaBIOS (2 loaded
# cores, December 2026); a run took 27-46 s, crash-ramoops 15-28 s.
set -euo pipefail
source "$(dirname "$0")/crash-lib.sh"
[ $# -eq 1 ] || gh_die "usage: $0 KERNEL"

# OVMF's 4 MiB build without secure boot (secure boot needs SMM, q35).
ovmf_code=${CT_OVMF_CODE:-/usr/share/OVMF/OVMF_CODE_4M.fd}
ovmf_vars=${CT_OVMF_VARS:-/usr/share/OVMF/OVMF_VARS_4M.fd}
ver=$(gh_resolve_kernel "$1")
name=crash-efipstore-$ver
for f in "$ovmf_code" "$ovmf_vars"; do
	[ -r "$f" ] && continue
	gh_record "crash/$ver/efipstore" fail "missing: $f (Debian package ovmf)"
	exit 1
done
# gh_boot makes the run directory afresh: the variable store waits beside
# it and moves in after the run.
mkdir -p "$GH_OUT/runs"
vars=$GH_OUT/runs/$name.vars.fd
cp "$ovmf_vars" "$vars"

# efi_pstore is enabled explicitly (efi_pstore.pstore_disable=0, whatever
# CONFIG_EFI_VARS_PSTORE_DEFAULT_DISABLE says); pstore.backend= names
# both backends: several are opt-in.
efi_append='efi_pstore.pstore_disable=0 pstore.backend=efi_pstore,netoops'

# Boot 1 marks itself in a UEFI variable of the test's own (efivarfs)
# just before the crash: the second boot knows it is the second even when
# efi_pstore kept nothing, and a failure ends the run instead of a crash
# loop.  Boot 2 lists pstore and efi_pstore's variables (efivarfs' size:
# 4 bytes of attributes and the data), prints each efi_pstore dmesg record
# between markers, removes the records (which must erase the variables)
# and powers off.
bootvar=/sys/firmware/efi/efivars/NetoopsCrashTestBoot-8d7b6f0e-3c2a-4e51-9f14-6e65746f6f70
# shellcheck disable=SC2016
export CT_PRELUDE='
mount -t efivarfs efivarfs /sys/firmware/efi/efivars ||
	{ echo "CT-ERROR no efivarfs"; exit 1; }
if [ -e '"$bootvar"' ]; then
	echo "BOOT2 backends=$(cat /sys/module/pstore/parameters/backend)"
	for f in /sys/fs/pstore/*; do
		[ -e "$f" ] && echo "PSTORE2 $(basename "$f")"
	done
	for f in /sys/firmware/efi/efivars/dump-*; do
		[ -e "$f" ] && echo "EFIVAR $(basename "$f") $(wc -c < "$f")"
	done
	for f in /sys/fs/pstore/dmesg-efi_pstore-*; do
		[ -e "$f" ] || continue
		echo "EFIPSTORE-BEGIN $(basename "$f")"
		cat "$f"
		echo "EFIPSTORE-END"
	done
	# removing a record erases its variable (through its own backend);
	# efivarfs lists the variables it found at mount: mount it again
	rm /sys/fs/pstore/dmesg-efi_pstore-*
	umount /sys/firmware/efi/efivars
	mount -t efivarfs efivarfs /sys/firmware/efi/efivars
	echo "EFIVARS-AFTER-RM $(ls /sys/firmware/efi/efivars | grep -c "^dump-")"
	exit 0
fi'

# shellcheck disable=SC2016
trigger='echo "BACKENDS $(cat /sys/module/pstore/parameters/backend)"
printf "\007\000\000\000boot1" > '"$bootvar"' ||
	{ echo "CT-ERROR cannot write '"$bootvar"'"; exit 1; }
echo "netoops-efipstore-marker $(cat /proc/sys/kernel/random/boot_id)" > /dev/kmsg
echo "MARKER netoops-efipstore-marker $(cat /proc/sys/kernel/random/boot_id)"
g_out_drain
echo c > /proc/sysrq-trigger'

efipstore_check()
{
	local b2=$CT_DIR/results-boot2.log marker recs n t0 t1

	ct_pstore_backends_check efi_pstore,netoops || return 1
	grep '^BOOT2 \|^PSTORE2 \|^EFIVAR ' "$b2" || true
	echo "efi_pstore's variables: $(grep -c '^EFIVAR ' "$b2" || true), $(awk '
		/^EFIVAR / { n += $3 } END { print n + 0 }' "$b2") bytes (efivarfs)"
	# the firmware's share of the reboot: the panic's last kernel line
	# ("Rebooting in 1 seconds..", panic=1) to the second boot's banner,
	# on the host's clock (OVMF's own lines come between them)
	t0=$(grep -E '^[0-9.]+ \[ *[0-9.]+\] ' "$CT_DIR/serial.ts" | tail -n 1 |
		cut -d' ' -f1)
	t1=$(head -n 1 "$CT_DIR/serial-boot2.ts" | cut -d' ' -f1)
	[ -n "$t0" ] && [ -n "$t1" ] &&
		echo "last kernel line to the second boot's banner: $(echo "$t1 - $t0" | bc) s (panic=1's 1 s, the reset, OVMF)"
	marker=$(sed -n 's/^MARKER //p' "$CT_DIR/results.log" | tr -d '\r')
	recs=$(sed -n '/^EFIPSTORE-BEGIN /,/^EFIPSTORE-END$/p' "$b2")
	n=$(echo "$recs" | grep -c '^EFIPSTORE-BEGIN ' || true)
	[ "$n" -gt 0 ] || { echo "no efi_pstore record after the reboot"; return 1; }
	echo "efi_pstore records: $n, $(echo "$recs" | grep -v '^EFIPSTORE-' | wc -l) lines"
	ct_pstore_records_check "efi_pstore records" "$recs" "$marker" || return 1
	n=$(sed -n 's/^EFIVARS-AFTER-RM //p' "$b2")
	[ "$n" = 0 ] || {
		echo "efi_pstore variables left after removing the records: '$n'"
		return 1
	}
	echo "removing the records erased their variables"
}

export GH_REBOOT=1 CT_REBOOTS=1 CT_LOG_MODE=panic CT_EXPECT_REASON=panic
export CT_EXTRA_CHECK=efipstore_check CT_EXPECT_DUMPS=1
export CT_QEMU_ARGS="-drive if=pflash,format=raw,unit=0,readonly=on,file=$ovmf_code -drive if=pflash,format=raw,unit=1,file=$vars"
rc=0
ct_main efipstore "$ver" "$trigger" "$efi_append" || rc=$?
mv "$vars" "$GH_OUT/runs/$name/OVMF_VARS.fd" 2>/dev/null || true
exit $rc
