#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# capture-guest.sh KERNEL TRIGGER [APPEND] - boot a guest of KERNEL (6.1,
# 6.12 or a full release) with the project's modules, crash it and print
# the path of its serial console: how the real-guest-*.txt logs of this
# directory were captured (a header is then written by hand on top).
#
#   TRIGGER  a netoops_crashtest word (oops, oops_kthread, oops_softirq,
#            bug, warn, softlockup, panic) or "sysrq" (echo c)
#   APPEND   extra kernel command line, e.g. softlockup_panic=1
#
# Uses the guest harness (tests/guest/lib.sh) with its output under
# $GH_OUT (default /tmp/netoops-sig-capture); no network is needed.
set -euo pipefail

[ $# -ge 2 ] || { echo "usage: $0 KERNEL TRIGGER [APPEND]" >&2; exit 2; }
export GH_OUT=${GH_OUT:-/tmp/netoops-sig-capture}
source "$(dirname "$0")/../guest/lib.sh"

ver=$(gh_resolve_kernel "$1")
what=$2
append=${3:-}
case $what in
sysrq) cmd='echo c > /proc/sysrq-trigger' ;;
[a-z_]*) cmd="echo $what > /proc/netoops_crashtest" ;;
*) gh_die "bad trigger '$what'" ;;
esac

[ -s "$GH_OUT/build-$ver/modules.list" ] || gh_build_modules "$ver"
[ -f "$GH_OUT/initramfs-$ver/base.cpio.gz" ] || gh_initramfs "$ver" >/dev/null

script=$(mktemp /tmp/netoops-sig-capture.XXXXXX)
trap 'rm -f "$script"' EXIT
cat > "$script" <<EOS
#!/bin/sh
modprobe netoops_crashtest
sysctl -w kernel.panic_on_oops=1
$cmd
# a soft lockup needs the watchdog's 20 s; the guest powers off (panic=1)
sleep 60
EOS
gh_boot "$ver" "sig-$what-$ver" "$script" 150 "$append" || true
echo "$GH_OUT/runs/sig-$what-$ver/serial.log"
