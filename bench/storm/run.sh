#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Crash-storm benchmark on loopback, one run, two receivers fed the same
# storm at the same time (storm_gen sends every datagram to both):
#   storm_sink   count-only recvmmsg() baseline
#   netoopsd     decode, verify, reassemble, inflate, sign, store (SQLite)
# Same socket buffer size for both.  Prints packets/s of each (packets
# divided by the time from the start of the storm to the last datagram the
# receiver handled), their ratio, dumps stored complete, time until the last
# dump is durable (committed) and netoopsd's peak RSS.
#
#   bench/storm/run.sh                 10,000 hosts x 128 KiB
#   HOSTS=1000 bench/storm/run.sh      smaller
#
# Knobs (environment): HOSTS, SIZE (log bytes per dump), WINDOW (hosts
# interleaved), RATE (packets/s, 0 = as fast as possible), RCVBUF (socket
# buffer bytes, SO_RCVBUFFORCE as root), WORKERS, SYNC (full|normal),
# ARCHIVE=1 (netoopsd --archive, its defaults), KEEP=1 keeps the temporary
# directory, DB (netoopsd's and the CLI's --db; default a SQLite file in
# the temporary directory: another store backend is given here).
set -euo pipefail

HOSTS=${HOSTS:-10000}
SIZE=${SIZE:-131072}
WINDOW=${WINDOW:-256}
RATE=${RATE:-0}
RCVBUF=${RCVBUF:-1073741824}
WORKERS=${WORKERS:-2}
SYNC=${SYNC:-full}
DB=${DB:-}
LIMIT_S=${LIMIT_S:-150}		# whole run bound

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
tools="$top/tools/netoops"
make -s -C "$tools" build/netoopsd build/netoops build/bench/storm_gen \
	build/bench/storm_sink >/dev/null
gen="$tools/build/bench/storm_gen"
sink="$tools/build/bench/storm_sink"
netoopsd="$tools/build/netoopsd"
cli="$tools/build/netoops"

tmp=$(mktemp -d /tmp/netoops-storm.XXXXXX)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	if [ "${KEEP:-0}" = 1 ]; then echo "kept $tmp"; else rm -rf "$tmp"; fi
}
trap cleanup EXIT
t_begin=$(date +%s)

# Waits (bounded) until a file exists.
wait_file() {
	local f=$1 end=$((SECONDS + 20))
	until [ -s "$f" ]; do
		[ $SECONDS -lt $end ] || { echo "timeout waiting for $f" >&2; exit 1; }
		sleep 0.02
	done
}

kv() { sed -n "s/^$1=//p" "$2"; }

# GET /metrics over bash's /dev/tcp into $tmp/metrics; metric prints the
# value of metric $1 (name and labels as rendered) from it.
fetch_metrics() {
	exec 3<>"/dev/tcp/127.0.0.1/$mport"
	printf 'GET /metrics HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' >&3
	cat <&3 >"$tmp/metrics"
	exec 3<&-
}
metric() {
	awk -v m="$1" '$1 == m { v = $2 } END { print v == "" ? 0 : v }' "$tmp/metrics"
}

echo "== storm: $HOSTS hosts x $SIZE bytes of log, window $WINDOW," \
     "rcvbuf $RCVBUF, rate ${RATE:-0} (0 = unpaced)"

"$sink" --port 0 --ready-file "$tmp/sink.ready" --rcvbuf "$RCVBUF" \
	--idle-ms 3000 --max-ms $((LIMIT_S * 1000)) >"$tmp/sink.out" &
sink_pid=$!
pids+=("$sink_pid")
db=${DB:-$tmp/storm.db}
"$netoopsd" --listen 127.0.0.1 --port 0 --db "$db" \
	--ready-file "$tmp/d.ready" --metrics-listen 127.0.0.1:0 \
	--rcvbuf "$RCVBUF" --workers "$WORKERS" --sync "$SYNC" \
	--max-open-dumps $((HOSTS * 2)) --max-memory 2G \
	--pending-bytes 1G --timeout-ms 60000 \
	${ARCHIVE:+--archive "$tmp/archive"} 2>"$tmp/netoopsd.log" &
d_pid=$!
pids+=("$d_pid")
wait_file "$tmp/sink.ready"
wait_file "$tmp/d.ready"
mport=$(kv metrics_port "$tmp/d.ready")
# memory before the storm: what the storm adds is over this
rss0_kb=$(awk '/^VmRSS:/ { print $2 }' "/proc/$d_pid/status")

# In the background from now on: the most dumps held in memory at once
# (open, waiting for a finisher or for the spool, kept in memory by the
# spool), for RSS per in-flight dump; sampled every 20 ms into
# $tmp/inflight until $tmp/inflight.stop appears.
inflight_sampler() {
	local max=0 n
	until [ -e "$tmp/inflight.stop" ]; do
		exec 4<>"/dev/tcp/127.0.0.1/$mport" || break
		printf 'GET /metrics HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' >&4
		n=$(awk '$1 == "netoops_open_dumps" ||
			 $1 == "netoops_dumps_pending" ||
			 $1 == "netoops_store_queue" ||
			 $1 == "netoops_spool_memory_dumps" { n += $2 }
			 END { print n + 0 }' <&4)
		exec 4<&-
		[ "$n" -le "$max" ] || { max=$n; echo "$max" >"$tmp/inflight"; }
		sleep 0.02
	done
}
echo 0 >"$tmp/inflight"
inflight_sampler &
pids+=("$!")

"$gen" --port "$(kv port "$tmp/sink.ready")" --port "$(kv port "$tmp/d.ready")" \
	--hosts "$HOSTS" --size "$SIZE" --window "$WINDOW" --rate "$RATE" \
	>"$tmp/gen.out"
g_start=$(kv start_ms "$tmp/gen.out")
g_pk=$(kv packets "$tmp/gen.out")
echo "storm:    $g_pk packets ($(kv bytes "$tmp/gen.out") bytes) to each" \
     "receiver, sent at $(kv send_pps "$tmp/gen.out") packets/s each" \
     "(prepared in $(kv prep_ms "$tmp/gen.out") ms)"
wait "$sink_pid"
s_pk=$(kv packets "$tmp/sink.out")
s_last=$(kv last_ms "$tmp/sink.out")
s_ms=$((s_last - g_start)); [ "$s_ms" -gt 0 ] || s_ms=1
s_pps=$((s_pk * 1000 / s_ms))
echo "sink:     $s_pk of $g_pk packets in $s_ms ms = $s_pps packets/s," \
     "kernel drops $(kv kernel_drops "$tmp/sink.out")"

# Wait until every packet is processed and every dump stored, or until
# nothing has moved for 20 s (then report what there is).
last_change=$SECONDS
prev=""
while :; do
	fetch_metrics
	processed=$(metric netoops_packets_processed_total)
	stored=$(metric netoops_dumps_stored_total)
	[ "$processed" -ge "$g_pk" ] && [ "$stored" -ge "$HOSTS" ] && break
	if [ "$processed $stored" != "$prev" ]; then
		prev="$processed $stored"
		last_change=$SECONDS
	fi
	if [ $((SECONDS - last_change)) -gt 20 ] ||
	   [ $(($(date +%s) - t_begin)) -gt "$LIMIT_S" ]; then
		echo "netoopsd stalled: processed $processed, stored $stored" >&2
		break
	fi
	sleep 0.05
done
touch "$tmp/inflight.stop"
inflight_max=$(cat "$tmp/inflight")
fetch_metrics
# netoopsd's own high-water mark, when it has one, misses no peak
n=$(metric netoops_dumps_in_memory_max)
[ "$n" -le "$inflight_max" ] || inflight_max=$n
d_last=$(metric netoops_workers_last_active_ms)
commit=$(metric netoops_store_last_commit_ms)
received=$(metric netoops_packets_received_total)
kdrops=$(metric netoops_kernel_drops_total)
complete=$(metric 'netoops_dumps_total{state="complete"}')
partial=$(metric 'netoops_dumps_total{state="partial"}')
lat_sum=$(metric netoops_store_latency_seconds_sum)
lat_cnt=$(metric netoops_store_latency_seconds_count)
lat_max=$(metric netoops_store_latency_max_seconds)
rss_kb=$(awk '/^VmHWM:/ { print $2 }' "/proc/$d_pid/status")
# CPU (utime + stime, clock ticks) of the receiving threads.
hz=$(getconf CLK_TCK)
rx_ticks=0 rx_uticks=0 rx_flt=0
for t in /proc/"$d_pid"/task/*; do
	[ "$(cat "$t/comm")" = netoopsd-rx ] || continue
	rx_ticks=$((rx_ticks + $(awk '{ print $14 + $15 }' "$t/stat")))
	rx_uticks=$((rx_uticks + $(awk '{ print $14 }' "$t/stat")))
	rx_flt=$((rx_flt + $(awk '{ print $10 }' "$t/stat")))
done
all_ticks=$(awk '{ print $14 + $15 }' "/proc/$d_pid/stat")
kill -TERM "$d_pid"
wait "$d_pid" || { echo "netoopsd exited with $?" >&2; cat "$tmp/netoopsd.log" >&2; exit 1; }

d_ms=$((d_last - g_start)); [ "$d_ms" -gt 0 ] || d_ms=1
d_pps=$((processed * 1000 / d_ms))
durable_ms=$((commit - g_start))
db_complete=$("$cli" --db "$db" stats --json |
	      sed -n 's/^ *"complete": \([0-9]*\).*/\1/p')
db_buckets=$("$cli" --db "$db" buckets --json | grep -c '"bucket"')
echo "netoopsd: $processed of $g_pk packets (received $received, kernel" \
     "drops $kdrops) in $d_ms ms = $d_pps packets/s"
echo "          dumps complete $complete, partial $partial; in the store:" \
     "$db_complete complete, $db_buckets buckets"
echo "          last dump durable $durable_ms ms after the storm began;" \
     "store: $lat_cnt transactions, mean $(awk -v s="$lat_sum" -v c="$lat_cnt" \
     'BEGIN { printf "%.1f", c ? s * 1000 / c : 0 }') ms, max" \
     "$(awk -v m="$lat_max" 'BEGIN { printf "%.1f", m * 1000 }') ms"
zbytes=$(kv payload_bytes "$tmp/gen.out")
echo "          peak RSS $((rss_kb / 1024)) MiB ($((rss0_kb / 1024)) MiB" \
     "before the storm), at most $inflight_max dumps in memory at once" \
     "(compressed: $zbytes bytes each)"
s_cpu=$(kv cpu_ms "$tmp/sink.out")
rx_ms=$((rx_ticks * 1000 / hz))
echo "cpu:      sink $s_cpu ms = $(awk -v c="$s_cpu" -v p="$s_pk" \
     'BEGIN { printf "%.2f", c * 1000 / p }') us/packet; netoopsd receive" \
     "threads $rx_ms ms = $(awk -v c="$rx_ms" -v p="$processed" \
     'BEGIN { printf "%.2f", c * 1000 / p }') us/packet ($((rx_uticks * 1000 / hz))" \
     "ms of it in user space; $rx_flt page faults); netoopsd in all" \
     "$((all_ticks * 1000 / hz)) ms (with inflate, signatures, SQLite)"
ratio=$(awk -v a="$d_pps" -v b="$s_pps" 'BEGIN { printf "%.2f", b ? a / b : 0 }')
echo "RESULT hosts=$HOSTS stored_complete=$db_complete sink_pps=$s_pps" \
     "netoopsd_pps=$d_pps ratio=$ratio durable_ms=$durable_ms" \
     "peak_rss_mib=$((rss_kb / 1024)) peak_rss_kib=$rss_kb" \
     "rss0_kib=$rss0_kb inflight_max=$inflight_max" \
     "payload_bytes=$zbytes sink_cpu_ms=$s_cpu sink_packets=$s_pk" \
     "rx_cpu_ms=$rx_ms rx_user_ms=$((rx_uticks * 1000 / hz))" \
     "rx_faults=$rx_flt rx_packets=$processed"
[ "$db_complete" = "$HOSTS" ] || { echo "FAIL: not every dump stored complete" >&2; exit 1; }
