#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The dashboard on a big store: web_feed puts DUMPS (100,000) dumps of
# 30 days from 40 hosts into a store, then `netoops web` serves each page
# REPS times, on the store as it is (schema 3, its covering indexes) and on
# a copy taken back to schema 2's indexes (dumps_sig, dumps_host): the
# baseline of the same run.  Printed per page: median wall time, the
# server's CPU time per request (utime + stime from /proc, what a busy
# 2-core host does not blur), and ratios: schema 2 / schema 3, and schema
# 3 against a bare `netoops buckets --json` (process start included) on
# the same store.
#
#   bench/web/run.sh                  100,000 dumps
#   DUMPS=20000 REPS=3 bench/web/run.sh
#   KEEP=1 keeps the temporary directory
set -euo pipefail

DUMPS=${DUMPS:-100000}
REPS=${REPS:-5}

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
tools="$top/tools/netoops"
make -s -C "$tools" build/netoops build/tests-web/web_feed >/dev/null
cli="$tools/build/netoops"
feed="$tools/build/tests-web/web_feed"
command -v sqlite3 >/dev/null || { echo "sqlite3 missing (make deps)"; exit 1; }

tmp=$(mktemp -d /tmp/netoops-webbench.XXXXXX)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	if [ "${KEEP:-0}" = 1 ]; then echo "kept $tmp"; else rm -rf "$tmp"; fi
}
trap cleanup EXIT

t0=$(date +%s.%N)
"$feed" --history "$tmp/new.db" "$DUMPS" --days 30
t1=$(date +%s.%N)
echo "== $DUMPS dumps stored in $(echo "$t1 - $t0" | bc) s;" \
     "store $(du -m "$tmp/new.db" | cut -f1) MB"
# The baseline: the same rows under schema 2's indexes.
sqlite3 "$tmp/new.db" "PRAGMA wal_checkpoint(TRUNCATE);" >/dev/null
cp "$tmp/new.db" "$tmp/old.db"
sqlite3 "$tmp/old.db" "DROP INDEX dumps_sig3; DROP INDEX dumps_time3;
	DROP INDEX dumps_host3; DROP INDEX dumps_release3;
	CREATE INDEX dumps_sig ON dumps(sig_hash);
	CREATE INDEX dumps_host ON dumps(hostname);
	UPDATE meta SET value = 2 WHERE key = 'schema_version'; ANALYZE;"
sqlite3 "$tmp/new.db" "ANALYZE;"

start_web() {	# $1: db, $2: ready file
	"$cli" --db "$1" web --listen 127.0.0.1:0 --ready-file "$2" \
		2>>"$tmp/web.log" &
	pids+=($!)
	local end=$((SECONDS + 30))
	until [ -s "$2" ]; do
		[ $SECONDS -lt $end ] || { echo "web did not start" >&2; exit 1; }
		sleep 0.02
	done
}
start_web "$tmp/new.db" "$tmp/new.ready"
start_web "$tmp/old.db" "$tmp/old.ready"

top_bucket=$("$cli" --db "$tmp/new.db" buckets --json --limit 1 |
	     python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["bucket"])')
dump_id=$("$cli" --db "$tmp/new.db" list --json --no-log --limit 1 |
	  python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["id"])')

python3 - "$tmp" "$REPS" "$cli" "$top_bucket" "$dump_id" <<'PY'
import os, statistics, subprocess, sys, time, urllib.request
tmp, reps, cli, bucket, dump = sys.argv[1], int(sys.argv[2]), sys.argv[3], \
    sys.argv[4], sys.argv[5]
hz = os.sysconf("SC_CLK_TCK")

def kv(path):
    return dict(l.strip().split("=", 1) for l in open(path) if "=" in l)

def cpu(pid):
    f = open("/proc/%s/stat" % pid).read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / hz

def run(ready, path):
    k = kv(ready)
    url = "http://127.0.0.1:%s%s" % (k["port"], path)
    walls = []
    c0 = cpu(k["pid"])
    for _ in range(reps):
        t = time.monotonic()
        with urllib.request.urlopen(url, timeout=600) as r:
            r.read()
            assert r.status == 200, path
        walls.append(time.monotonic() - t)
    return statistics.median(walls), (cpu(k["pid"]) - c0) / reps

pages = ["/", "/?range=30d", "/buckets", "/bucket/" + bucket, "/dumps",
         "/dumps?host=node-07&limit=50", "/dump/" + dump, "/kernels",
         "/hosts", "/api/buckets", "/api/hosts",
         "/api/count?by=time&step=86400", "/api/dumps?limit=100&no_log=1",
         "/api/stats"]
# the CLI baseline: a bare `netoops buckets --json`, process included
db = os.path.join(tmp, "new.db")
walls = []
for _ in range(reps):
    t = time.monotonic()
    subprocess.run([cli, "--db", db, "buckets", "--json"], check=True,
                   stdout=subprocess.DEVNULL)
    walls.append(time.monotonic() - t)
base = statistics.median(walls)
print("baseline: netoops buckets --json  %.1f ms (median of %d)"
      % (base * 1000, reps))
print("%-32s %10s %10s %10s %10s %8s %8s" % (
    "page", "s2 wall", "s3 wall", "s2 cpu", "s3 cpu", "s2/s3",
    "s3/cli"))
for p in pages:
    ow, oc = run(os.path.join(tmp, "old.ready"), p)
    nw, nc = run(os.path.join(tmp, "new.ready"), p)
    print("%-32s %8.1fms %8.1fms %8.1fms %8.1fms %8.2f %8.2f" % (
        p[:32], ow * 1000, nw * 1000, oc * 1000, nc * 1000,
        ow / nw if nw else 0, nw / base))
PY
