#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# A throwaway PostgreSQL 15 cluster for the store's tests, from Debian's
# postgresql-15: initdb in a mktemp directory, listening only on a Unix
# socket in that directory (no TCP), removed at the end.
#
#   pg_cluster.sh run CMD...   start it, run CMD with the environment below,
#                              stop and remove it (also on failure); CMD's
#                              exit status
#   pg_cluster.sh stop|start   in CMD: stop the server (fast shutdown) or
#                              start it again, waiting until it is done
#
# Environment given to CMD:
#   NETOOPS_PG      conninfo URI of database "netoops" (superuser "netoops")
#   NETOOPS_PG_KV   the same as "pg:" and key=value
#   NETOOPS_PG_DIR  the cluster's directory (socket; data in DIR/data)
#   NETOOPS_PG_RUNAS  the system user the server runs as
#
# The server refuses to run as root: as root it runs as netoops-pgtest
# (a system user created if missing), else as the caller.
set -euo pipefail

BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
PGUSER_SYS=netoops-pgtest
WAIT_S=${PG_WAIT_S:-60}		# bound for start and stop
# fsync off: a test cluster need not survive a host crash; autovacuum
# off: table sizes change only when a test changes them.
server_opts() {
	echo "-k $NETOOPS_PG_DIR -c listen_addresses='' -c fsync=off" \
	     "-c autovacuum=off"
}

as_owner() {
	if [ "$(id -u)" = 0 ]; then
		runuser -u "$NETOOPS_PG_RUNAS" -- "$@"
	else
		"$@"
	fi
}

ctl() {
	as_owner "$BIN/pg_ctl" -D "$NETOOPS_PG_DIR/data" -w -t "$WAIT_S" \
		-l "$NETOOPS_PG_DIR/server.log" "$@" >/dev/null
}

case "${1:-}" in
stop)
	ctl stop -m fast
	exit 0 ;;
start)
	ctl start -o "$(server_opts)"
	exit 0 ;;
run)
	shift ;;
*)
	echo "usage: $0 run CMD... | stop | start" >&2
	exit 2 ;;
esac

if [ ! -x "$BIN/initdb" ]; then
	echo "pg_cluster: no $BIN/initdb: apt-get install postgresql-15" \
	     "(scripts/install-deps.sh)" >&2
	exit 1
fi

if [ "$(id -u)" = 0 ]; then
	if ! id "$PGUSER_SYS" >/dev/null 2>&1; then
		useradd --system --no-create-home --shell /usr/sbin/nologin \
			"$PGUSER_SYS" 2>/dev/null || id "$PGUSER_SYS" >/dev/null
	fi
	NETOOPS_PG_RUNAS=$PGUSER_SYS
else
	NETOOPS_PG_RUNAS=$(id -un)
fi
export NETOOPS_PG_RUNAS

NETOOPS_PG_DIR=$(mktemp -d /tmp/netoops-pg-XXXXXX)
export NETOOPS_PG_DIR
# The socket's directory: reachable by netoopsd after it drops its
# capabilities; the data directory itself stays 0700.
chmod 0755 "$NETOOPS_PG_DIR"
[ "$(id -u)" != 0 ] || chown "$NETOOPS_PG_RUNAS" "$NETOOPS_PG_DIR"

cleanup() {
	local rc=$?

	if [ -f "$NETOOPS_PG_DIR/data/postmaster.pid" ]; then
		ctl stop -m immediate 2>/dev/null || true
	fi
	if [ $rc != 0 ] && [ -f "$NETOOPS_PG_DIR/server.log" ]; then
		echo "pg_cluster: server log (last lines):" >&2
		tail -n 20 "$NETOOPS_PG_DIR/server.log" >&2 || true
	fi
	rm -rf "$NETOOPS_PG_DIR"
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# UTF8 with byte order ("C"): the encoding store_pg.c writes, the order
# SQLite compares in.
as_owner "$BIN/initdb" -D "$NETOOPS_PG_DIR/data" -U netoops -A trust \
	-E UTF8 --locale=C --no-sync >"$NETOOPS_PG_DIR/initdb.log" 2>&1 ||
	{ cat "$NETOOPS_PG_DIR/initdb.log" >&2; exit 1; }
ctl start -o "$(server_opts)"
as_owner "$BIN/createdb" -h "$NETOOPS_PG_DIR" -U netoops netoops

# The socket's directory percent-encoded as the host: nothing a shell
# would expand.
export NETOOPS_PG="postgresql://netoops@${NETOOPS_PG_DIR//\//%2F}/netoops"
export NETOOPS_PG_KV="pg:host=$NETOOPS_PG_DIR user=netoops dbname=netoops"
echo "pg_cluster: PostgreSQL 15 at $NETOOPS_PG"
"$@"
