#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Every system call netoopsd makes under netoopsd.service is allowed by the
# unit's SystemCallFilter= lines (a call outside them fails with EPERM).
# netoopsd runs as the unit runs it: not root, CAP_NET_ADMIN ambient
# (setpriv), a key from $CREDENTIALS_DIRECTORY, --rcvbuf, the metrics over
# HTTP and in a file, an archive; it stores the golden vectors' dumps
# (tests/vectors/), serves /metrics, stops on SIGTERM, all under strace -f.
# The allowed set is the unit's filter expanded by systemd-analyze.
#
# Usage: service_syscalls.sh NETOOPSD UNIT VECTORS_DIR
# Needs root (to become another user), strace, setpriv and systemd-analyze;
# without one of them: SKIP, naming the fix.
set -euo pipefail

bin=$(realpath "$1")
unit=$2
vectors=$3
STORED=7		# dumps in tests/vectors/
DEADLINE=30		# seconds, for each wait

skip() { echo "service-syscalls: SKIP: $*"; exit 0; }
fail() { echo "service-syscalls: FAIL: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || skip "needs root to run netoopsd as another user"
for t in strace setpriv systemd-analyze; do
	command -v $t >/dev/null ||
		skip "no $t: install it (scripts/install-deps.sh)"
done

dir=$(mktemp -d /tmp/netoops-syscalls-XXXXXX)
pid=
cleanup() {
	local rc=$?

	if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
		kill -KILL "$pid"
	fi
	wait 2>/dev/null || true
	if [ $rc = 0 ]; then rm -rf "$dir"; else echo "evidence: $dir" >&2; fi
}
trap cleanup EXIT
chmod 0755 "$dir"
mkdir "$dir/state" "$dir/creds"
chown nobody "$dir/state"
# tu_key of tools/netoops/tests/lib_test_util.c, key id 7
printf 'netoops golden vector key 0001!\0' | od -An -tx1 | tr -d ' \n' \
	>"$dir/creds/netoops-key-7"
chown nobody "$dir/creds/netoops-key-7"
chmod 0400 "$dir/creds/netoops-key-7"

CREDENTIALS_DIRECTORY=$dir/creds \
setpriv --reuid=nobody --regid=nogroup --clear-groups \
	--inh-caps=+net_admin --ambient-caps=+net_admin \
	strace -f -qq -o "$dir/state/trace" \
	"$bin" --listen 127.0.0.1 --port 0 --db "$dir/state/n.db" \
	--ready-file "$dir/state/ready" --metrics-listen 127.0.0.1:0 \
	--metrics-file "$dir/state/metrics" --metrics-interval 1 \
	--archive "$dir/state/archive" --rcvbuf 8M --timeout-ms 500 \
	--key-file 7:netoops-key-7 2>"$dir/log" &
strace_pid=$!

for ((i = 0; i < DEADLINE * 10; i++)); do
	[ -f "$dir/state/ready" ] && break
	kill -0 $strace_pid 2>/dev/null || fail "netoopsd exited: $(cat "$dir/log")"
	sleep 0.1	# poll interval of the wait for the ready file
done
[ -f "$dir/state/ready" ] || fail "netoopsd not ready in $DEADLINE s"
pid=$(sed -n 's/^pid=//p' "$dir/state/ready")
port=$(sed -n 's/^port=//p' "$dir/state/ready")
mport=$(sed -n 's/^metrics_port=//p' "$dir/state/ready")

for f in "$vectors"/*.bin; do
	cat "$f" >/dev/udp/127.0.0.1/"$port"	# one write: one datagram
done
stored() {	# GET /metrics, HTTP/1.0: the server closes when done
	exec 3<>/dev/tcp/127.0.0.1/"$mport"
	printf 'GET /metrics HTTP/1.0\r\nHost: x\r\n\r\n' >&3
	tr -d '\r' <&3 | sed -n 's/^netoops_dumps_stored_total //p'
	exec 3<&-
}
for ((i = 0; i < DEADLINE * 10; i++)); do
	[ "$(stored)" = $STORED ] && break
	sleep 0.1	# poll interval of the wait for the store
done
[ "$(stored)" = $STORED ] || fail "stored $(stored) dumps, not $STORED"
kill -TERM "$pid"
wait $strace_pid || fail "netoopsd exit status $?: $(cat "$dir/log")"
pid=

# The unit's filter: the first list allows, "~" lists remove, later
# lists add back.
expand() {
	local s

	for s in "$@"; do
		case $s in
		@*) systemd-analyze syscall-filter "$s" 2>/dev/null |
			awk 'NR > 1 && $1 !~ /^#/ { print $1 }' |
			while read -r x; do expand "$x"; done ;;
		*) echo "$s" ;;
		esac
	done
}
: >"$dir/allowed"
while IFS= read -r line; do
	v=${line#SystemCallFilter=}
	if [ "${v#\~}" != "$v" ]; then
		# shellcheck disable=SC2086
		expand ${v#\~} | sort -u >"$dir/deny"
		grep -vxFf "$dir/deny" "$dir/allowed" >"$dir/a" || true
		mv "$dir/a" "$dir/allowed"
	else
		# shellcheck disable=SC2086
		expand $v >>"$dir/allowed"
	fi
done < <(grep '^SystemCallFilter=' "$unit")
sort -u -o "$dir/allowed" "$dir/allowed"
[ -s "$dir/allowed" ] || fail "no SystemCallFilter= in $unit"

awk '{ s = $2; sub(/\(.*/, "", s); if (s ~ /^[a-z0-9_]+$/) print s }' \
	"$dir/state/trace" | sort -u >"$dir/used"
outside=$(comm -23 "$dir/used" "$dir/allowed")
[ -z "$outside" ] ||
	fail "netoopsd calls what $unit forbids: $(echo $outside)"
echo "service-syscalls: the $(wc -l <"$dir/used") system calls netoopsd" \
     "made are all in the unit's filter ($STORED dumps stored)"
