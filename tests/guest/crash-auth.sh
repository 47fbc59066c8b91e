#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# crash-auth.sh KERNEL - authenticated and FEC-protected crash dumps, from a
# real panic (`echo c > /proc/sysrq-trigger`) in a fresh guest of KERNEL to
# netoopsd on the host.  Two runs, each recorded on its own:
#
#   crash/<ver>/auth  netoopsd --key ID:HEX --require-auth; the guest sets
#       the same key on its target before enabling it.  The dump must be
#       stored complete (verify_dump.py: every console line, identity) and
#       recorded as authenticated by key ID;
#       every datagram the guest sent must carry NETOOPS_F_AUTH, key id ID
#       and a MAC that verifies with the key (checked again here with
#       Python's hmac, independently of netoopsd).  Then forged (signed
#       with a wrong key), altered (one payload byte flipped, CRC fixed),
#       unsigned and unknown-key datagrams are injected 3 times each, and
#       a captured datagram of the stored dump is re-sent verbatim 18
#       times: up to 16 copies of a datagram in all are the kernel's own
#       repeats (counted as duplicates), the 3 beyond are replays.  Each
#       must be refused and counted under its reason, and nothing new
#       stored.
#   crash/<ver>/fec   a relay between the guest and netoopsd drops the 2nd
#       datagram and every 10th after it; the dump (signed, netoopsd with
#       --require-auth) must still be stored complete, authenticated by
#       its key (rebuilt datagrams verified too), with
#       netoops_packets_fec_rebuilt_total at least the number of data
#       datagrams dropped and netoops_packets_fec_failed_total 0 (rebuilt
#       datagrams pass their CRC and MAC checks).
#
# The guest sends to a small Python relay on the host (127.0.0.1), which
# forwards to netoopsd and records every datagram (the captures the
# injections start from).  Evidence stays in out/runs/crash-auth-* and
# out/runs/crash-fec-*.
set -euo pipefail
source "$(dirname "$0")/crash-lib.sh"

[ $# -eq 1 ] || gh_die "usage: $0 KERNEL"
ver=$(gh_resolve_kernel "$1")
ct_prepare "$ver"

# ca_collector_start DIR ARGS...: netoopsd (gh_collector_start) with a
# metrics file (DIR/metrics.prom, written every second) and ARGS.
ca_collector_start()
{
	gh_collector_start "$1" --metrics-file "$1/metrics.prom" \
		--metrics-interval 1 "${@:2}"
}

# ca_relay_start DIR TO_PORT DROP: UDP relay on a free 127.0.0.1 port
# (CA_RELAY_PORT) forwarding to TO_PORT; every datagram is appended to
# DIR/capture (length-prefixed, "<len>\n<bytes>"), dropped ones described
# in DIR/dropped.  DROP: "none", or "tenth" (the 2nd datagram and every
# 10th after it).  Sets CA_RELAY_PID.
ca_relay_start()
{
	local dir=$1

	rm -f "$dir/relay.ready" "$dir/capture" "$dir/dropped"
	python3 - "$dir" "$2" "$3" > "$dir/relay.log" 2>&1 <<'PY' &
import socket, struct, sys
d, to, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3]
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", 0))
out = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
cap = open(d + "/capture", "ab", buffering=0)
drop = open(d + "/dropped", "a", buffering=1)
with open(d + "/relay.ready.tmp", "w") as f:
    f.write("port=%d\n" % s.getsockname()[1])
import os
os.rename(d + "/relay.ready.tmp", d + "/relay.ready")
n = 0
while True:
    b = s.recv(65536)
    n += 1
    cap.write(b"%d\n" % len(b) + b)
    if mode == "tenth" and n % 10 == 2:
        idx = struct.unpack_from("<H", b, 32)[0] if len(b) >= 56 else -1
        flags = struct.unpack_from("<H", b, 6)[0] if len(b) >= 56 else 0
        drop.write("%d index=%d %s\n" % (n, idx,
                   "parity" if flags & 0x200 else "data"))
        continue
    out.sendto(b, ("127.0.0.1", to))
PY
	CA_RELAY_PID=$!
	gh_wait_for 10 test -e "$dir/relay.ready" || {
		ca_relay_stop
		return 1
	}
	CA_RELAY_PORT=$(sed -n 's/^port=//p' "$dir/relay.ready")
}

ca_relay_stop()
{
	[ -n "${CA_RELAY_PID:-}" ] || return 0
	kill "$CA_RELAY_PID" 2>/dev/null || true
	wait "$CA_RELAY_PID" 2>/dev/null || true
	CA_RELAY_PID=""
}

cleanup()
{
	ca_relay_stop
	gh_collector_stop
}
trap cleanup EXIT

# ca_metric FILE NAME: value of metric NAME (full name with labels), 0 if
# absent.
ca_metric()
{
	awk -v n="$2" '$1 == n { v = $2 } END { print v + 0 }' "$1" 2>/dev/null
}

# ca_guest_script PORT TAG [ATTR=VALUE...]: the guest side: target with
# ATTRs (set before it is enabled), identity for verify_dump.py, panic.
ca_guest_script()
{
	local port=$1 tag=$2

	shift 2
	cat <<EOF
. /etc/guest-lib.sh
set -u
g_load_project || { echo "CT-ERROR project modules do not load"; exit 1; }
g_target netoops t0 10.0.2.2 $port $* || { echo "CT-ERROR netoops target refused"; exit 1; }
g_netoops_user t0 $CT_USER_KEY $tag || { echo "CT-ERROR cannot set user field"; exit 1; }
echo "ID boot_id=\$(g_netoops_boot_id)"
echo "ID release=\$(uname -r)"
echo "ID hostname=\$(hostname)"
echo "ID user=$CT_USER_KEY=$tag"
echo "AUTH key_id=\$(cat /sys/kernel/config/netoops/t0/auth_key_id)"
echo "FEC k=\$(cat /sys/module/netoops/parameters/fec_k) m=\$(cat /sys/module/netoops/parameters/fec_m)"
echo "CT-TRIGGER"
g_out_drain
echo c > /proc/sysrq-trigger
echo "CT-SURVIVED"
EOF
}

# ca_run NAME DROP [NETOOPSD ARGS...] -- [TARGET ATTRS...]: one guest
# panic through the relay into netoopsd.  Sets CT_DIR; netoopsd and the
# relay keep running (the caller stops them).
ca_run()
{
	local name=$1 drop=$2 tag script rc=0 nargs=() attrs=()

	shift 2
	while [ $# -gt 0 ] && [ "$1" != -- ]; do nargs+=("$1"); shift; done
	[ $# -gt 0 ] && shift
	attrs=("$@")
	CT_DIR=$GH_OUT/runs/$name
	tag=$(printf 'r%04x%04x' $RANDOM $RANDOM)
	mkdir -p "$GH_OUT/runs"
	CA_HOST=$GH_OUT/runs/$name.host
	rm -rf "$CA_HOST"
	mkdir -p "$CA_HOST"
	ca_collector_start "$CA_HOST" "${nargs[@]}" || {
		echo "netoopsd did not start"
		return 1
	}
	ca_relay_start "$CA_HOST" "$GH_PORT" "$drop" || {
		echo "relay did not start"
		return 1
	}
	script=$(mktemp "$GH_OUT/runs/.script.XXXXXX")
	ca_guest_script "$CA_RELAY_PORT" "$tag" "${attrs[@]}" > "$script"
	GH_ENV_HOSTNAME="ct-$tag" gh_boot "$ver" "$name" "$script" \
		"${CT_BOOT_TIMEOUT:-300}" || rc=$?
	rm -f "$script"
	[ -z "$(gh_netfail "$name")" ] || {
		echo "guest setup failed: $(gh_netfail "$name")"
		return 1
	}
	[ "$rc" != 124 ] || { echo "guest timed out"; return 1; }
	if grep -q '^CT-ERROR' "$CT_DIR/results.log"; then
		grep '^CT-ERROR' "$CT_DIR/results.log"
		return 1
	fi
	grep -q '^CT-TRIGGER' "$CT_DIR/results.log" || {
		ct__console_tail
		echo "guest never reached the trigger"
		return 1
	}
	! grep -q '^CT-SURVIVED' "$CT_DIR/results.log" || {
		echo "guest did not panic"
		return 1
	}
	grep -E '^(AUTH|FEC) ' "$CT_DIR/results.log" || true
	ct__wait_dumps || true
}

# ca_complete KEYID: exactly one dump stored, complete, and recorded as
# authenticated by key KEYID (every datagram it was built from, rebuilt
# ones included, verified by netoopsd).
ca_complete()
{
	local st

	st=$(gh_cli --json list --no-log | python3 -c 'import json, sys
d = json.load(sys.stdin)
print(" ".join("%s/%s/%s" % (x.get("complete"), x.get("authenticated"),
                             x.get("auth_key_id")) for x in d))')
	[ "$st" = "True/True/$1" ] || {
		echo "store holds [$st] (complete/authenticated/key id), expected one True/True/$1"
		return 1
	}
	echo "store: one complete dump, authenticated: key $1"
}

# ca_keep_host: once netoopsd and the relay are gone, move their files
# (store, metrics, capture) into the run directory as host/.
ca_keep_host()
{
	[ -n "${CA_HOST:-}" ] && [ -d "$CA_HOST" ] && [ -d "${CT_DIR:-}" ] || return 0
	rm -rf "$CT_DIR/host"
	mv "$CA_HOST" "$CT_DIR/host"
}

# The tests run inside ct_report's command substitution: they stop what
# they started on every path, or the substitution would wait for it.
auth_test()
{
	local rc=0

	auth_run || rc=$?
	cleanup
	ca_keep_host
	return $rc
}

fec_test()
{
	local rc=0

	fec_run || rc=$?
	cleanup
	ca_keep_host
	return $rc
}

auth_run()
{
	local key keyid m0 m1 k want got fail=0 n0 n1

	key=$(od -An -tx1 -N 32 /dev/urandom | tr -d ' \n')
	keyid=$(( (RANDOM << 8 | RANDOM) % 100000 + 1 ))
	ca_run "crash-auth-$ver" none --key "$keyid:$key" --require-auth \
		--timeout-ms 60000 -- "auth_key=$keyid:$key" || return 1
	grep -qx "AUTH key_id=$keyid" "$CT_DIR/results.log" || {
		echo "guest's target does not report key id $keyid"
		return 1
	}
	ct_check_netoops || return 1
	ca_complete "$keyid" || return 1

	# Every datagram the guest sent is signed with our key.
	python3 - "$CA_HOST/capture" "$keyid" "$key" <<'PY' || return 1
import hmac, hashlib, struct, sys
data = open(sys.argv[1], "rb").read()
kid, key = int(sys.argv[2]), bytes.fromhex(sys.argv[3])
i = n = par = 0
while i < len(data):
    j = data.index(b"\n", i); ln = int(data[i:j]); i = j + 1
    p = bytearray(data[i:i + ln]); i += ln; n += 1
    flags = struct.unpack_from("<H", p, 6)[0]
    if not flags & 0x100:
        sys.exit("datagram %d: no NETOOPS_F_AUTH (flags %#x)" % (n, flags))
    t, l, k = struct.unpack_from("<HHI", p, ln - 24)
    if (t, l, k) != (0x800e, 20, kid):
        sys.exit("datagram %d: MAC TLV %#x len %d key %d" % (n, t, l, k))
    p[48:52] = b"\0" * 4
    mac = hmac.new(key, bytes(p[:ln - 24]), hashlib.sha256).digest()[:16]
    if mac != bytes(p[ln - 16:]):
        sys.exit("datagram %d: MAC does not verify" % n)
    par += bool(flags & 0x200)
print("guest sent %d datagrams (%d parity), every one signed with key %d and verified (Python hmac)" % (n, par, kid))
PY

	# Inject each kind of bad datagram three times.
	m0=$CA_HOST/metrics.before
	cp "$CA_HOST/metrics.prom" "$m0"
	n0=$(ca_metric "$m0" netoops_packets_processed_total)
	python3 - "$CA_HOST/capture" "$keyid" "$key" "$GH_PORT" <<'PY' || return 1
import hmac, hashlib, os, socket, struct, sys, zlib
data = open(sys.argv[1], "rb").read()
kid, key, port = int(sys.argv[2]), bytes.fromhex(sys.argv[3]), int(sys.argv[4])
pkts, i = [], 0
while i < len(data):
    j = data.index(b"\n", i); ln = int(data[i:j]); i = j + 1
    pkts.append(bytes(data[i:i + ln])); i += ln
# a data datagram that carries payload (not parity)
orig = next(p for p in pkts if not struct.unpack_from("<H", p, 6)[0] & 0x200
            and struct.unpack_from("<I", p, 40)[0] > 0) if len(pkts) > 1 else pkts[0]

def crc(p):
    p = bytearray(p); p[48:52] = b"\0" * 4
    struct.pack_into("<I", p, 48, zlib.crc32(bytes(p)) & 0xffffffff)
    return bytes(p)

def sign(p, k, key_id):
    p = bytearray(p); ln = len(p)
    struct.pack_into("<I", p, ln - 20, key_id)
    p[48:52] = b"\0" * 4
    p[ln - 16:] = hmac.new(k, bytes(p[:ln - 24]), hashlib.sha256).digest()[:16]
    return crc(p)

def new_dump(p):
    p = bytearray(p); p[24:32] = os.urandom(8); return bytes(p)

forged = sign(new_dump(orig), os.urandom(32), kid)
altered = bytearray(orig); altered[len(altered) - 40] ^= 0x01
altered = crc(altered)
u = bytearray(new_dump(orig)[:-24])
struct.pack_into("<H", u, 6, struct.unpack_from("<H", u, 6)[0] & ~0x100)
struct.pack_into("<H", u, 36, len(u) - u[5])
unsigned = crc(u)
unknown = sign(new_dump(orig), key, kid + 1)
replayed = orig
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for name, p, n in (("forged", forged, 3), ("altered", altered, 3),
                   ("unsigned", unsigned, 3), ("unknown_key", unknown, 3),
                   ("replayed", replayed, 18)):
    for _ in range(n):
        s.sendto(p, ("127.0.0.1", port))
print("injected 3 x forged, altered, unsigned, unknown-key, 18 x replayed (datagram of %d bytes, pkt_index %d)"
      % (len(orig), struct.unpack_from("<H", orig, 32)[0]))
PY
	processed() {
		[ "$(ca_metric "$CA_HOST/metrics.prom" netoops_packets_processed_total)" -ge $((n0 + 30)) ]
	}
	gh_wait_for 15 processed || {
		echo "netoopsd processed $(( $(ca_metric "$CA_HOST/metrics.prom" netoops_packets_processed_total) - n0 )) of 30 injected datagrams"
		return 1
	}
	m1=$CA_HOST/metrics.after
	cp "$CA_HOST/metrics.prom" "$m1"
	echo "rejections counted by netoopsd (reason: delta, expected):"
	for k in bad_mac:6 unsigned:3 unknown_key:3 replay:3; do
		want=${k#*:}
		k=${k%%:*}
		got=$(( $(ca_metric "$m1" "netoops_packets_dropped_total{reason=\"$k\"}") -
			$(ca_metric "$m0" "netoops_packets_dropped_total{reason=\"$k\"}") ))
		echo "  $k: $got (expected $want)"
		[ "$got" = "$want" ] || fail=1
	done
	got=$(( $(ca_metric "$m1" netoops_packets_duplicate_total) -
		$(ca_metric "$m0" netoops_packets_duplicate_total) ))
	echo "  duplicate: $got (expected 15: the kernel's repeats, 16 copies in all)"
	[ "$got" = 15 ] || fail=1
	got=$(( $(ca_metric "$m1" netoops_packets_accepted_total) -
		$(ca_metric "$m0" netoops_packets_accepted_total) ))
	echo "  accepted: $got (expected 0)"
	[ "$got" = 0 ] || fail=1
	gh_collector_stop
	ca_relay_stop
	n1=$(gh_cli --json list --no-log | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')
	echo "dumps stored after the injections: $n1 (expected 1)"
	[ "$n1" = 1 ] || fail=1
	gh_cli stats --metrics-file "$m1" > "$CT_DIR/stats.txt" 2>&1 || true
	return $fail
}

fec_run()
{
	local rebuilt failed dropped key keyid

	# signed too: a datagram rebuilt from parity must pass the MAC check
	key=$(od -An -tx1 -N 32 /dev/urandom | tr -d ' \n')
	keyid=$(( RANDOM + 1 ))
	ca_run "crash-fec-$ver" tenth --timeout-ms 10000 --key "$keyid:$key" \
		--require-auth -- "auth_key=$keyid:$key" || return 1
	ct_check_netoops || return 1
	ca_complete "$keyid" || return 1
	dropped=$(grep -c ' data$' "$CA_HOST/dropped" || true)
	echo "relay dropped $(wc -l < "$CA_HOST/dropped") of $(gh_udp_payloads "$CA_HOST/capture" | cut -d' ' -f1) datagrams, $dropped of them data:"
	sed 's/^/  /' "$CA_HOST/dropped"
	have_rebuilt() {
		[ "$(ca_metric "$CA_HOST/metrics.prom" netoops_packets_fec_rebuilt_total)" -gt 0 ]
	}
	gh_wait_for 5 have_rebuilt || true
	rebuilt=$(ca_metric "$CA_HOST/metrics.prom" netoops_packets_fec_rebuilt_total)
	failed=$(ca_metric "$CA_HOST/metrics.prom" netoops_packets_fec_failed_total)
	echo "netoopsd: netoops_packets_fec_rebuilt_total $rebuilt, netoops_packets_fec_failed_total $failed"
	gh_collector_stop
	ca_relay_stop
	[ "$dropped" -gt 0 ] || { echo "no data datagram was dropped: the test proves nothing"; return 1; }
	[ "$rebuilt" -ge "$dropped" ] && [ "$failed" = 0 ]
}

miss=$(ct_missing "$ver" netoops)
if [ -n "$miss" ]; then
	gh_record "crash/$ver/auth" fail "missing: $miss"
	gh_record "crash/$ver/fec" fail "missing: $miss"
	exit 1
fi
export CT_LOG_MODE=panic CT_EXPECT_REASON=panic CT_EXPECT_DUMPS=1
fail=0
ct_report "crash/$ver/auth" "$GH_OUT/runs/crash-auth-$ver" auth_test || fail=1
cleanup
ct_report "crash/$ver/fec" "$GH_OUT/runs/crash-fec-$ver" fec_test || fail=1
exit $fail
