#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run-kselftests.sh KERNEL - run every tools/testing/selftests/netoops/*.sh
# inside a guest of KERNEL (6.12, 6.1 or a full release) and report each
# test's KTAP result on the host.  The project's modules are built for the
# kernel first and loaded in the guest (netpoll_targets, netconsole,
# netoops); when they do not build, the guest gets Debian's netconsole and
# the run says so loudly.  GH_KSFT_TESTS="a.sh b.sh" runs only those.
# Exit: 0 when nothing failed.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

[ $# -eq 1 ] || gh_die "usage: $0 KERNEL"
ver=$(gh_resolve_kernel "$1")
name=ksft-$ver

mods=project
if [ "${GH_PREPARED:-0}" != 1 ]; then
	gh_build_modules "$ver" || true
	gh_initramfs "$ver" >/dev/null
fi
if [ -z "$(gh_module_path "$ver" netpoll_targets)" ]; then
	gh_log "$ver: project modules did not build (log: $GH_OUT/build-$ver/build.log);"
	gh_log "$ver: running the selftests against Debian's netconsole only"
	mods=stock
fi

test=$(mktemp)
trap 'rm -f "$test"' EXIT
cat > "$test" <<'GUEST'
. /etc/guest-lib.sh
if [ "$MODS" = project ]; then
	g_load_project || echo "# project modules failed to load: dependent tests will skip"
fi
lsmod | sed 's/^/# lsmod: /'
bash /ksft/run_ktap ${KSFT_TESTS:-}
GUEST

GH_ENV_KSFT_TESTS=${GH_KSFT_TESTS:-} GH_ENV_MODS=$mods GH_ENV_HOSTNAME=ksft gh_boot "$ver" "$name" "$test" 2400 || rc=$?
rc=${rc:-0}
results=$(gh_results "$name")
grc=$(gh_guest_rc "$name")
echo "# kselftests on $ver (modules: $mods)"
echo "$results" | sed -n '/^#/p' | sed 's/^/    /' | tail -n 200
fail=0
why=$(gh_netfail "$name")
if [ -n "$why" ]; then
	gh_record "ksft/$ver/guest-network" fail "$why (serial: $GH_OUT/runs/$name/serial.log)"
	fail=1
fi
if [ -z "$grc" ]; then
	gh_record "ksft/$ver/boot" fail "guest did not finish (qemu rc=$rc); serial log: $GH_OUT/runs/$name/serial.log"
	exit 1
fi
ntests=0
while read -r line; do
	case $line in
	"ok "*"# SKIP"*)
		t=$(echo "$line" | sed 's/^ok [0-9]* \([^ ]*\).*/\1/')
		gh_record "ksft/$ver/$t" skip "${line#*# SKIP }" ;;
	"ok "*)
		t=$(echo "$line" | sed 's/^ok [0-9]* \([^ ]*\).*/\1/')
		gh_record "ksft/$ver/$t" pass ;;
	"not ok "*)
		t=$(echo "$line" | sed 's/^not ok [0-9]* \([^ ]*\).*/\1/')
		gh_record "ksft/$ver/$t" fail "${line#*# } (serial: $GH_OUT/runs/$name/serial.log)"
		fail=1 ;;
	*) continue ;;
	esac
	ntests=$((ntests + 1))
done <<< "$(echo "$results" | grep -E '^(not )?ok ')"
if [ "$ntests" = 0 ]; then
	gh_record "ksft/$ver/run" fail "no test result came back; results: $GH_OUT/runs/$name/results.log"
	exit 1
fi
if [ "$mods" = stock ]; then
	gh_record "ksft/$ver/project-modules" fail "project modules do not build for $ver: $GH_OUT/build-$ver/build.log"
	fail=1
fi
exit $fail
