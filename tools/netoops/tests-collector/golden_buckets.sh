#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `netoops buckets` over the signature golden corpus: import every log of
# tests/signatures/*.txt as a dump (host = file name, kernel from the
# -6.1/-6.12 suffix), then check that the buckets the CLI shows are exactly
# the corpus' BUCKET labels: one bucket per label, with the right count,
# hosts and kernels.
#
# Usage: golden_buckets.sh NETOOPS_CLI [CORPUS_DIR]
set -euo pipefail

cli=$1
corpus=${2:-$(cd "$(dirname "$0")/../../.." && pwd)/tests/signatures}
if ! ls "$corpus"/*.txt >/dev/null 2>&1; then
	echo "SKIP: no golden corpus in $corpus (tests/signatures/*.txt)"
	exit 0
fi
command -v python3 >/dev/null || { echo "SKIP: python3 missing (make deps)"; exit 0; }

tmp=$(mktemp -d /tmp/netoops-golden.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
db="$tmp/golden.db"

for f in "$corpus"/*.txt; do
	base=$(basename "$f" .txt)
	kernel=${base##*-}
	case $kernel in
	6.1) kernel=6.1.0-57-amd64 ;;
	6.12) kernel=6.12.118+deb12-amd64 ;;
	*) kernel=unknown ;;
	esac
	"$cli" --db "$db" import-log --host "$base" --kernel "$kernel" "$f" >/dev/null
done
"$cli" --db "$db" list --json >"$tmp/list.json"
"$cli" --db "$db" buckets --json >"$tmp/buckets.json"
"$cli" --db "$db" buckets >"$tmp/buckets.txt"

set +e
python3 - "$corpus" "$tmp/list.json" "$tmp/buckets.json" <<'PY'
import glob, json, os, sys
corpus, list_path, buckets_path = sys.argv[1:4]
label = {}
for f in sorted(glob.glob(os.path.join(corpus, "*.txt"))):
    with open(f, errors="replace") as fh:
        for line in fh:
            if line.startswith("BUCKET:"):
                label[os.path.basename(f)[:-4]] = line.split(":", 1)[1].strip()
                break
            if not line.strip():
                break
dumps = json.load(open(list_path))
buckets = json.load(open(buckets_path))
by_host = {d["host"]: d for d in dumps}
fail = 0
missing = set(label) - set(by_host)
if missing:
    print("not stored:", sorted(missing)); fail = 1
# label -> set of CLI buckets, CLI bucket -> set of labels
l2b, b2l = {}, {}
for host, lab in label.items():
    b = by_host[host]["bucket"]
    l2b.setdefault(lab, set()).add(b)
    b2l.setdefault(b, set()).add(lab)
for lab, bs in sorted(l2b.items()):
    if len(bs) != 1:
        print(f"FAIL: bug {lab} split over buckets {sorted(bs)}"); fail = 1
for b, labs in sorted(b2l.items()):
    if len(labs) != 1:
        print(f"FAIL: bucket {b} merges bugs {sorted(labs)}"); fail = 1
# The buckets view: count, hosts, kernels per bucket.
for row in buckets:
    labs = b2l.get(row["bucket"], set())
    if len(labs) != 1:
        continue
    lab = next(iter(labs))
    hosts = [h for h, l in label.items() if l == lab]
    kernels = sorted({by_host[h]["release"] for h in hosts})
    if row["count"] != len(hosts) or row["hosts"] != len(hosts) or \
       sorted(row["kernels"]) != kernels:
        print(f"FAIL: bucket {row['bucket']} ({lab}): count {row['count']}"
              f" hosts {row['hosts']} kernels {row['kernels']}, expected"
              f" {len(hosts)} {len(hosts)} {kernels}"); fail = 1
if len(buckets) != len(set(label.values())):
    print(f"FAIL: {len(buckets)} buckets shown, {len(set(label.values()))} bugs"
          " in the corpus"); fail = 1
print(f"golden buckets: {len(label)} logs, {len(set(label.values()))} bugs,"
      f" {len(buckets)} buckets shown: {'FAIL' if fail else 'ok'}")
sys.exit(fail)
PY
rc=$?
[ $rc = 0 ] || cat "$tmp/buckets.txt"
exit $rc
