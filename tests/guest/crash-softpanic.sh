#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# crash-softpanic.sh KERNEL - a panic while a soft dump is being sent.
# The guest logs about 70 KB (debug level: not on the console), slows
# netoops down (pace_us 10000, repeat 4: the soft dump takes several
# seconds), starts a soft dump on CPU 1 and, once eth0 has sent 3 of its
# datagrams, panics with sysrq-c on CPU 0.
#
# The panic dump must arrive complete, and the soft dump must have been cut
# short by it (the collector's archive holds an incomplete soft dump).
# Before soft dumps were sent with the targets pinned instead of locked,
# the soft dump held the targets' lock with interrupts off throughout: the
# panic found it taken and its dump was skipped.
set -euo pipefail
source "$(dirname "$0")/crash-lib.sh"
[ $# -eq 1 ] || gh_die "usage: $0 KERNEL"

# softpanic_check: the collector received a soft dump, and not all of it.
softpanic_check()
{
	gh_cli --json decode "$CT_DIR/collector/received.dgrams" \
		> "$CT_DIR/decoded.json" 2>"$CT_DIR/decode.err" || true
	python3 - "$CT_DIR/decoded.json" <<'PY'
import json, sys
dumps = json.load(open(sys.argv[1]))['dumps']
soft = [d for d in dumps if d.get('reason') == 'soft']
if not soft:
    print("no soft dump in the collector's archive: it never started")
    sys.exit(1)
for d in soft:
    print(f"soft dump: {d.get('pkt_received')}/{d.get('pkt_count')} "
          f"datagrams received, complete={d.get('complete')}")
sys.exit(1 if any(d.get('complete') for d in soft) else 0)
PY
}

export CT_LOG_MODE=panic CT_EXPECT_REASON=panic
export CT_EXPECT_PARTIAL=soft CT_EXTRA_CHECK=softpanic_check
ct_main softpanic "$1" 'g_fill_log 100 softpanic-fill || { echo "CT-ERROR cannot fill the log"; exit 1; }
echo 10000 > /sys/module/netoops/parameters/pace_us
echo 4 > /sys/module/netoops/parameters/repeat
tx=/sys/class/net/eth0/statistics/tx_packets
before=$(cat $tx)
echo "ID tx_before=$before"
g_out_drain
taskset 2 sh -c "echo 1 > /sys/module/netoops/parameters/dump" &
# sysrq-c once eth0 sent 3 datagrams of the soft dump, polled without a
# fork: the soft dump sends one each 10 ms, 90 or so in its first pass,
# and a panic after that pass would find it complete.  A loop that forked
# every 50 ms saw 134 sent once, on the debug kernel of a loaded host.
taskset 1 sh -c "while read n < $tx && [ \$n -lt $((before + 3)) ]; do :; done
echo c > /proc/sysrq-trigger" &
spin=$!
sleep 30
kill $spin
echo "CT-ERROR the soft dump did not start"
exit 1'
