#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The collector groups the golden corpus the way its headers say: every
# BUCKET of tests/signatures/ is one `netoops buckets` entry with as many
# dumps as files, and no two BUCKETs share an entry.
#
#   test_buckets.sh NETOOPS_CLI CORPUS_DIR
#
# Exit 0 pass, 1 fail (evidence kept in the printed directory), 4 skip.
set -euo pipefail

cli=${1:?usage: $0 NETOOPS_CLI CORPUS_DIR}
corpus=${2:?usage: $0 NETOOPS_CLI CORPUS_DIR}

if ! command -v python3 >/dev/null; then
	echo "SKIP: python3 is needed to compare JSON (apt-get install python3)"
	exit 4
fi
[ -x "$cli" ] || { echo "FAIL: $cli is not built"; exit 1; }

work=$(mktemp -d /tmp/netoops-sig-buckets.XXXXXX)
keep=0
cleanup() { [ "$keep" = 1 ] || rm -rf "$work"; }
trap cleanup EXIT

# The raw logs only: the header is for the tests, not a part of the log.
mkdir "$work/logs"
for f in "$corpus"/*.txt; do
	sed '1,/^$/d' "$f" >"$work/logs/$(basename "$f")"
done

"$cli" --db "$work/store.db" --json import-log "$work"/logs/*.txt \
	>"$work/import.jsonl"
"$cli" --db "$work/store.db" --json buckets >"$work/buckets.json"

if ! python3 - "$corpus" "$work/import.jsonl" "$work/buckets.json" <<'PY'
import json, os, sys

corpus, imported, buckets = sys.argv[1:4]
want = {}                       # file -> BUCKET
for name in sorted(os.listdir(corpus)):
    if not name.endswith(".txt"):
        continue
    with open(os.path.join(corpus, name)) as f:
        for line in f:
            if line.startswith("BUCKET: "):
                want[name] = line[8:].strip()
                break
            if not line.strip():
                break
got = {}                        # file -> stored signature hash
for line in open(imported):
    rec = json.loads(line)
    assert not rec["duplicate"], rec
    got[os.path.basename(rec["file"])] = rec["bucket"]
counts = {b["bucket"]: b["count"] for b in json.load(open(buckets))}

bad = 0
if set(want) != set(got):
    print("files not imported:", sorted(set(want) ^ set(got)))
    bad += 1
hash_of = {}                    # BUCKET -> hash
for name, bucket in want.items():
    h = got.get(name)
    if hash_of.setdefault(bucket, h) != h:
        print("%s: BUCKET %s split over %s and %s" %
              (name, bucket, hash_of[bucket], h))
        bad += 1
if len(set(hash_of.values())) != len(hash_of):
    print("two BUCKETs share a collector bucket")
    bad += 1
if len(counts) != len(hash_of):
    print("collector shows %d buckets, corpus has %d" %
          (len(counts), len(hash_of)))
    bad += 1
for bucket, h in sorted(hash_of.items()):
    n = sum(1 for b in want.values() if b == bucket)
    if counts.get(h) != n:
        print("BUCKET %s (%s): collector count %s, expected %d" %
              (bucket, h, counts.get(h), n))
        bad += 1
print("%d logs, %d buckets, %d mismatches" % (len(want), len(hash_of), bad))
sys.exit(1 if bad else 0)
PY
then
	keep=1
	echo "FAIL: evidence in $work"
	exit 1
fi
echo "PASS: netoops buckets groups the corpus as its headers say"
