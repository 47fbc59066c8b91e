#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Loss benchmark: fraction of dumps complete and bytes on the wire relative
# to no redundancy (measured in the same run), at 1, 5, 10 and 20 % random
# loss (seeded), for no redundancy, the whole dump sent three times, and
# Reed-Solomon FEC.
#
#   bench/loss/run.sh                   receiver netoopsd, 10,000 dumps per
#                                       cell, k=32 m=13 (about 4 minutes)
#   RECEIVER=lib bench/loss/run.sh      receiver: the library reassembler
#                                       inside the bench
#   DUMPS=1000 bench/loss/run.sh        quicker
#   DUMPS=40000 SEED=2 LOSSES=10 bench/loss/run.sh   one row, tighter bound
#
# Knobs (environment): RECEIVER (netoopsd|lib), DUMPS, SEED, LOG (log bytes
# before deflate), K, M, LOSSES (comma-separated percents), LIMIT_S (bound
# on the whole run).  Traffic stays on 127.0.0.1.  The lower95 column is
# the one-sided 95 % Clopper-Pearson lower bound of the complete rate.
set -euo pipefail

RECEIVER=${RECEIVER:-netoopsd}
case $RECEIVER in
netoopsd|lib) ;;
*)	echo "RECEIVER must be netoopsd or lib" >&2; exit 2 ;;
esac
DUMPS=${DUMPS:-10000}
SEED=${SEED:-1}
LOG=${LOG:-131072}
K=${K:-32}
M=${M:-13}
LOSSES=${LOSSES:-1,5,10,20}
LIMIT_S=${LIMIT_S:-900}

here=$(cd "$(dirname "$0")" && pwd)
tools="$here/../../tools/netoops"
args=()
targets=(build/bench-loss/loss_relay build/bench-loss/loss_bench)
if [ "$RECEIVER" = netoopsd ]; then
	targets+=(build/netoopsd build/netoops)
	args=(-d "$tools/build/netoopsd" -c "$tools/build/netoops")
fi
make -s -C "$tools" "${targets[@]}" >/dev/null
echo "# command: RECEIVER=$RECEIVER DUMPS=$DUMPS SEED=$SEED LOG=$LOG K=$K M=$M LOSSES=$LOSSES bench/loss/run.sh"
start=$(date +%s)
timeout "$LIMIT_S" "$tools/build/bench-loss/loss_bench" \
	"$tools/build/bench-loss/loss_relay" -n "$DUMPS" -s "$SEED" \
	-z "$LOG" -k "$K" -m "$M" -l "$LOSSES" "${args[@]}" \
	2> >(grep -v -e '^received' -e '^netoopsd: ' >&2)
echo "# wall time $(( $(date +%s) - start )) s"
