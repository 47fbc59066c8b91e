#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# demo.sh (`make demo`): crash a Debian 6.12 guest and show the crash the
# collector received.
#
#   1. build the collector and the modules for the newest 6.12 in /boot
#   2. start netoopsd on 127.0.0.1 with the store out/demo/netoops.db
#   3. boot the guest (QEMU, TCG); in it: load netoops, create a target in
#      configfs pointing at the host (10.0.2.2 = host's 127.0.0.1), add a
#      user field, `echo c > /proc/sysrq-trigger`
#   4. print `netoops list` and `netoops show <id>` of the crash received
set -euo pipefail
source "$(dirname "$0")/lib.sh"

dir=$GH_OUT/demo
say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

ver=$(gh_kernel 6.12) || gh_die "no Debian 6.12 kernel in /boot: run make deps"

say "building the collector and the modules for $ver"
gh_build_tools || gh_die "collector build failed: $GH_OUT/tools-build.log"
GH_TOOLS=$GH_OUT/tools
gh_build_modules "$ver" || gh_die "module build failed: $GH_OUT/build-$ver/build.log"
for m in netpoll_targets netoops; do
	[ -n "$(gh_module_path "$ver" "$m")" ] || gh_die "$m.ko did not build"
done
gh_initramfs "$ver" >/dev/null

rm -rf "$dir"
mkdir -p "$dir"
cleanup() { gh_collector_stop; }
trap cleanup EXIT
gh_collector_start "$dir" || gh_die "netoopsd did not start"
say "netoopsd listening on 127.0.0.1:$GH_PORT, store $GH_DB"

guest=$dir/guest.sh
cat > "$guest" <<GUEST
. /etc/guest-lib.sh
run() { echo "guest# \$*"; sh -c "\$*"; }
run modprobe netoops
run mkdir /sys/kernel/config/netoops/demo
run 'echo 10.0.2.2 > /sys/kernel/config/netoops/demo/remote_ip'
run 'echo $GH_PORT > /sys/kernel/config/netoops/demo/remote_port'
run 'echo eth0 > /sys/kernel/config/netoops/demo/dev_name'
run mkdir /sys/kernel/config/netoops/demo/userfields/ticket
run 'echo DEMO-1234 > /sys/kernel/config/netoops/demo/userfields/ticket/value'
run 'echo 1 > /sys/kernel/config/netoops/demo/enabled'
echo "guest# echo c > /proc/sysrq-trigger"
echo c > /proc/sysrq-trigger
GUEST

say "booting $ver under QEMU and crashing it"
rc=0
GH_ENV_HOSTNAME=demo-guest gh_boot "$ver" demo "$guest" 300 || rc=$?
run=$GH_OUT/runs/demo
gh_results demo | sed -n '/^guest#/p;/CT-ERROR/p'
echo "(guest console: $run/serial.log; last kernel lines:)"
grep -E 'sysrq: |Kernel panic - ' "$run/serial.log" | tail -n 2 | sed 's/^/  /'
[ "$rc" != 124 ] || gh_die "guest timed out (log: $run/serial.log)"

say "waiting for the dump to be stored"
have_dump() { [ -n "$(gh_cli list --complete 2>/dev/null | awk 'NR > 1 {print $1}')" ]; }
gh_wait_for 20 have_dump || {
	gh_collector_stop
	gh_die "no complete dump stored; netoopsd log: $dir/netoopsd.log"
}
gh_cli list
id=$(gh_cli list --complete | awk 'NR > 1 {print $1}' | tail -n 1)

say "netoops show $id"
gh_cli show "$id"
gh_collector_stop
say "done: store $GH_DB (try: $GH_TOOLS/netoops --db $GH_DB buckets)"
