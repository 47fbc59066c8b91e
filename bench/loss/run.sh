#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Loss benchmark: fraction of dumps complete and bytes on the wire relative
# to no redundancy, at 1, 5, 10 and 20 % random loss (seeded), for no
# redundancy, the whole dump sent three times, and Reed-Solomon FEC.
#
#   bench/loss/run.sh                   10,000 dumps per cell, k=32 m=13
#   DUMPS=1000 bench/loss/run.sh        quicker
#
# Knobs (environment): DUMPS, SEED, LOG (log bytes before deflate), K, M,
# LOSSES (comma-separated percents), LIMIT_S (bound on the whole run).
# Traffic stays on 127.0.0.1.
set -euo pipefail

DUMPS=${DUMPS:-10000}
SEED=${SEED:-1}
LOG=${LOG:-131072}
K=${K:-32}
M=${M:-13}
LOSSES=${LOSSES:-1,5,10,20}
LIMIT_S=${LIMIT_S:-1200}

here=$(cd "$(dirname "$0")" && pwd)
tools="$here/../../tools/netoops"
make -s -C "$tools" build/bench-loss/loss_relay build/bench-loss/loss_bench \
	>/dev/null
echo "# command: DUMPS=$DUMPS SEED=$SEED LOG=$LOG K=$K M=$M LOSSES=$LOSSES bench/loss/run.sh"
timeout "$LIMIT_S" "$tools/build/bench-loss/loss_bench" \
	"$tools/build/bench-loss/loss_relay" -n "$DUMPS" -s "$SEED" \
	-z "$LOG" -k "$K" -m "$M" -l "$LOSSES" 2> >(grep -v '^received' >&2)
