#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The collector's cost targets (issue 15 item 6), each measured in this
# run and printed with its target and PASS or FAIL:
#
#  (a) receive CPU per datagram of netoopsd's receive threads, over that
#      of a bare recvmmsg() sink fed the same storm at the same time
#      (bench/storm): <= 1.5x
#  (b) inflate + signature CPU per 128 KiB dump (dump_bench, thread CPU
#      time, best of 5 rounds): <= 0.25 ms
#  (c) the storm's dumps made durable per second: dumps / time from the
#      first datagram to the last commit (reported; no target yet)
#  (d) peak RSS per dump held in memory: (peak RSS - RSS before the
#      storm) / most dumps in memory at once, over a dump's compressed
#      size: <= 1.2x
#
#   bench/collector/run.sh                      10,000 hosts, SQLite
#   bench/collector/run.sh --db URL             another store (netoopsd
#                                               and netoops take it as
#                                               --db)
#   HOSTS=1000 bench/collector/run.sh           smaller storm
#
# Other knobs are bench/storm/run.sh's (environment).  Exits 1 if a
# target is missed (after printing every figure).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
tools="$top/tools/netoops"

while [ $# -gt 0 ]; do
	case $1 in
	--db) export DB=$2; shift 2 ;;
	--db=*) export DB=${1#--db=}; shift ;;
	*) echo "usage: $0 [--db URL]" >&2; exit 2 ;;
	esac
done

make -s -C "$tools" build/bench/dump_bench >/dev/null
tmp=$(mktemp -d /tmp/netoops-collector-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

kv() { sed -n "s/^$1=//p" "$2"; }
res() { tr ' ' '\n' <"$tmp/storm.out" | sed -n "s/^$1=//p" | tail -n 1; }

echo "== machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)," \
     "$(date -u '+%F %T UTC')"
echo "== (b) inflate + signature per dump (dump_bench)"
"$tools/build/bench/dump_bench" --dumps 640 --rounds 5 >"$tmp/dump.out"
cat "$tmp/dump.out"

echo "== (a), (c), (d): the storm (bench/storm/run.sh)"
"$top/bench/storm/run.sh" | tee "$tmp/storm.full"
grep '^RESULT ' "$tmp/storm.full" >"$tmp/storm.out"
echo "== load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

fail=0
# verdict LABEL VALUE LIMIT UNIT: PASS if VALUE <= LIMIT
verdict() {
	local ok
	ok=$(awk -v v="$2" -v l="$3" 'BEGIN { print (v <= l) ? "PASS" : "FAIL" }')
	[ "$ok" = PASS ] || fail=1
	printf '%-44s %10s %-4s  target <= %s %s  %s\n' "$1" "$2" "$4" "$3" "$4" "$ok"
}

sink_us=$(awk -v c="$(res sink_cpu_ms)" -v p="$(res sink_packets)" \
	  'BEGIN { printf "%.2f", (p ? c * 1000 / p : 0) }')
rx_us=$(awk -v c="$(res rx_cpu_ms)" -v p="$(res rx_packets)" \
	'BEGIN { printf "%.2f", (p ? c * 1000 / p : 0) }')
ratio_a=$(awk -v a="$rx_us" -v b="$sink_us" 'BEGIN { printf "%.2f", (b ? a / b : 99) }')
both_ms=$(awk -v u="$(kv both_us "$tmp/dump.out")" 'BEGIN { printf "%.3f", u / 1000 }')
durable_ms=$(res durable_ms)
dps=$(awk -v n="$(res stored_complete)" -v t="$durable_ms" \
      'BEGIN { printf "%.0f", (t > 0 ? n * 1000 / t : 0) }')
per_kib=$(awk -v p="$(res peak_rss_kib)" -v z="$(res rss0_kib)" \
	  -v n="$(res inflight_max)" \
	  'BEGIN { printf "%.1f", (n ? (p - z) / n : 0) }')
zkib=$(awk -v b="$(res payload_bytes)" 'BEGIN { printf "%.1f", b / 1024 }')
ratio_d=$(awk -v a="$per_kib" -v z="$zkib" 'BEGIN { printf "%.2f", (z ? a / z : 99) }')

echo
echo "== results"
echo "(a) receive CPU: netoopsd $rx_us us/datagram, sink $sink_us us/datagram"
verdict "(a) netoopsd rx CPU / sink CPU per datagram" "$ratio_a" 1.5 x
echo "(b) inflate $(kv inflate_us "$tmp/dump.out") us + signature" \
     "$(kv sign_us "$tmp/dump.out") us (measured apart)"
verdict "(b) inflate + signature per 128 KiB dump" "$both_ms" 0.25 ms
echo "(c) $(res stored_complete) of $(res hosts) dumps durable" \
     "$durable_ms ms after the storm began (store: ${DB:-SQLite, a file})"
printf '%-44s %10s %-4s  (no target: reported)\n' \
       "(c) storm to durable" "$dps" "dumps/s"
echo "(d) peak RSS $(res peak_rss_mib) MiB, $(( $(res rss0_kib) / 1024 )) MiB" \
     "before; $(res inflight_max) dumps in memory at most; $per_kib KiB" \
     "each, compressed $zkib KiB"
verdict "(d) RSS per in-flight dump / compressed size" "$ratio_d" 1.2 x
echo "RESULT a_ratio=$ratio_a b_ms=$both_ms c_dumps_per_s=$dps d_ratio=$ratio_d"
exit $fail
