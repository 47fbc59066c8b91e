#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/bandwidth/run.sh [KERNEL] [EXTRA_LINES] - bytes on the wire for one
# panic, sent at the same time by netoops and by Debian's stock netconsole
# in extended mode (`+@/eth0,PORT@10.0.2.2/`), in one guest run.
#
# The guest clears its kernel log (`dmesg -C`: kmsg dumpers start at the
# clear point, netconsole sends what is printed from its enable on), enables
# both senders to two UDP listeners on the host (127.0.0.1, reached through
# QEMU user networking), prints EXTRA_LINES (default 200) kernel messages of
# the shape a busy server logs, then panics with sysrq-c.  The listeners
# count UDP payload bytes; wire bytes add 42 per datagram (Ethernet 14, IPv4
# 20, UDP 8).  The netoops datagrams are then decoded with `netoops decode`
# to show the dump is complete and how many log lines it held.
#
# Prints one table and the ratios netoops/netconsole (lower is better):
# total wire bytes for the panic, and wire bytes per log line delivered.
# The second is the like-for-like figure: netconsole only sends lines
# printed after it is enabled, while the netoops dump holds the whole log
# buffer (pstore's dumper ignores `dmesg -C`).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../../tests/guest/lib.sh"

ver=$(gh_resolve_kernel "${1:-6.12}")
extra=${2:-200}
dir=$GH_OUT/bench-bandwidth
rm -rf "$dir"
mkdir -p "$dir"

gh_build_tools || gh_die "collector build failed: $GH_OUT/tools-build.log"
GH_TOOLS=$GH_OUT/tools
if [ "${GH_PREPARED:-0}" != 1 ]; then
	gh_build_modules "$ver" || gh_die "modules: $GH_OUT/build-$ver/build.log"
	gh_initramfs "$ver" >/dev/null
fi
[ -n "$(gh_module_path "$ver" netoops)" ] || gh_die "netoops.ko not built for $ver"

p_nc=$(gh_free_port)
gh_udp_listen_start "$p_nc" "$dir/netconsole.udp"
nc_pid=$GH_UDP_PID
p_no=$(gh_free_port)
gh_udp_listen_start "$p_no" "$dir/netoops.udp"
no_pid=$GH_UDP_PID
cleanup() { kill "$nc_pid" "$no_pid" 2>/dev/null || true; }
trap cleanup EXIT

cat > "$dir/guest.sh" <<GUEST
. /etc/guest-lib.sh
g_load_stock_netconsole || { echo "CT-ERROR stock netconsole"; exit 1; }
modprobe netoops || { echo "CT-ERROR netoops"; exit 1; }
dmesg -C
g_target netconsole nc 10.0.2.2 $p_nc extended=1 || { echo "CT-ERROR netconsole target"; exit 1; }
g_target netoops no 10.0.2.2 $p_no || { echo "CT-ERROR netoops target"; exit 1; }
i=0
while [ \$i -lt $extra ]; do
	echo "<6>bench: eth0: rx queue \$i: dropped \$((i * 7)) packets, ring 4096/4096, napi budget 64, irq 4\$((i % 10))" > /dev/kmsg
	i=\$((i + 1))
done
echo c > /proc/sysrq-trigger
GUEST

rc=0
GH_ENV_HOSTNAME=bench gh_boot "$ver" bench-bandwidth "$dir/guest.sh" 300 || rc=$?
[ "$rc" != 124 ] || gh_die "guest timed out: $GH_OUT/runs/bench-bandwidth/serial.log"
if grep -q CT-ERROR "$GH_OUT/runs/bench-bandwidth/results.log"; then
	gh_die "$(grep CT-ERROR "$GH_OUT/runs/bench-bandwidth/results.log")"
fi
# QEMU has exited; wait until both files stop growing (slirp drained).
quiet() { local a b; a=$(cat "$dir"/*.udp | wc -c); sleep 0.3; b=$(cat "$dir"/*.udp | wc -c); [ "$a" = "$b" ]; }
gh_wait_for 5 quiet || true
cleanup

read -r nc_n nc_b < <(gh_udp_payloads "$dir/netconsole.udp")
read -r no_n no_b < <(gh_udp_payloads "$dir/netoops.udp")
# Raw datagrams, concatenated, for `netoops decode`.
python3 - "$dir/netoops.udp" "$dir/netoops.raw" <<'PY'
import sys
data = open(sys.argv[1], "rb").read()
out = open(sys.argv[2], "wb")
i = 0
while i < len(data):
    j = data.index(b"\n", i)
    n = int(data[i:j]); i = j + 1
    out.write(data[i:i + n]); i += n
PY
"$GH_TOOLS/netoops" --json decode "$dir/netoops.raw" > "$dir/decoded.json" 2>"$dir/decode.err" || true
python3 - "$dir/decoded.json" "$dir/netconsole.udp" "$nc_n" "$nc_b" "$no_n" "$no_b" <<'PY'
import json, sys
dec = json.load(open(sys.argv[1])) if open(sys.argv[1]).read().strip() else []
dumps = dec if isinstance(dec, list) else dec.get("dumps", [])
nc_n, nc_b, no_n, no_b = map(int, sys.argv[3:7])
raw = open(sys.argv[2], "rb").read()
nc_lines = 0
i = 0
while i < len(raw):
    j = raw.index(b"\n", i); n = int(raw[i:j]); i = j + 1
    if b";" in raw[i:i + n].split(b"\n")[0]: nc_lines += 1
    i += n
lines = sum(len([l for l in (d.get("log") or "").split("\n") if "] " in l]) for d in dumps)
complete = all(d.get("complete") for d in dumps) and bool(dumps)
def row(name, n, b, ln):
    w = b + 42 * n
    print(f"{name:<24}{n:>10}{b:>12}{w:>12}{ln:>11}{w / max(ln, 1):>12.1f}")
print(f"{'sender':<24}{'datagrams':>10}{'UDP bytes':>12}{'wire bytes':>12}"
      f"{'log lines':>11}{'wire B/line':>12}")
row('netconsole (extended)', nc_n, nc_b, nc_lines)
row('netoops', no_n, no_b, lines)
print(f"netoops dumps decoded: {len(dumps)} ({'complete' if complete else 'INCOMPLETE'}; "
      f"compression {', '.join(str(d.get('compression')) for d in dumps)})")
if nc_b == 0 or no_b == 0 or not complete:
    print("bandwidth: FAILED (a sender delivered nothing or the dump is incomplete)")
    sys.exit(1)
nc_w, no_w = nc_b + 42 * nc_n, no_b + 42 * no_n
print(f"ratio netoops/netconsole: wire bytes {no_w / nc_w:.3f} "
      f"(UDP payload {no_b / nc_b:.3f}); wire bytes per log line delivered "
      f"{(no_w / max(lines, 1)) / (nc_w / max(nc_lines, 1)):.3f}")
print("note: netconsole sends only what is printed after it is enabled; "
      "netoops sends the whole kernel log (pstore ignores dmesg -C), so the "
      "per-line figure is the like-for-like one")
PY
