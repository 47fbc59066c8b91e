#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# /init of the harness's guests (busybox).  Mounts the usual filesystems,
# brings the CPUs that maxcpus=1 kept offline online, loads the network
# driver, configures eth0 for QEMU user networking
# (10.0.2.15/24, gateway 10.0.2.2 = the host's 127.0.0.1) and runs the
# host-provided /run.d/test.sh with its output on the second serial port
# (/dev/ttyS1) between markers, so the kernel's console (ttyS0) and the
# results never mix.  Then powers off (QEMU exits).
/bin/busybox --install -s /bin
export PATH=/sbin:/usr/sbin:/bin:/usr/bin
export HOME=/root

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
mkdir -p /run/netns /root
[ -d /sys/fs/pstore ] && mount -t pstore pstore /sys/fs/pstore 2>/dev/null

. /etc/guest-lib.sh
# Export the host's settings to the test script too.
set -a
. /run.d/env
set +a

out=/dev/ttyS1
[ -c "$out" ] || out=/dev/console

[ -n "${HOSTNAME:-}" ] && hostname "$HOSTNAME"
echo "@@GH-BEGIN@@" > "$out"
g_cpus_online || echo "@@GH-NETFAIL@@ CPUs online: $(cat /sys/devices/system/cpu/online), present: $(cat /sys/devices/system/cpu/present)" > "$out"
g_setup_net || echo "@@GH-NETFAIL@@ eth0 did not come up: $(ls /sys/class/net)" > "$out"
/bin/sh /run.d/test.sh > "$out" 2>&1 < /dev/null
rc=$?
echo "@@GH-END $rc@@" > "$out"
sync
poweroff -f
