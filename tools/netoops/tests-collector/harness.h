/* SPDX-License-Identifier: GPL-2.0 */
/*
 * netoopsd as a black box, for the suites that run it (test_e2e,
 * test_durability, test_archive, test_cli): start, readiness, SIGTERM, its
 * Prometheus counters over HTTP, the CLI's output and JSON, and no daemon
 * left behind by a failed test.
 * Every helper fails the running cmocka test on error.
 */
#ifndef NETOOPS_HARNESS_H
#define NETOOPS_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <jansson.h>

/*
 * The daemon of the running test, killed by harness_teardown() if the test
 * fails.  A copy, not a pointer: a failed test has left its stack frame
 * (longjmp).
 */
struct harness_current {
	bool active;
	pid_t pid;
	char dir[64];
};
extern struct harness_current current;

/*
 * One netoopsd of a test, in a temporary directory of its own: harness_dir()
 * makes the directory and names the files in it, harness_start() starts
 * netoopsd (again, for a restart) and waits until it is ready.
 */
struct harness_daemon {
	char dir[64];
	char db[128];		/* DIR/n.db */
	char ready[128];	/* DIR/ready */
	char log[128];		/* DIR/netoopsd.log: its standard error */
	pid_t pid;
	int port;		/* of the ready file */
	int mport;
};

/*
 * A fresh /tmp/netoops-@tag-XXXXXX, kept if the test fails, and the paths
 * in it.
 */
void harness_dir(struct harness_daemon *d, const char *tag);
/*
 * Starts $NETOOPSD with @base, then @extra, as its arguments (each
 * NULL-terminated; @extra may be NULL), standard error to d->log, and
 * waits until it wrote d->ready, at most @wait_ms.  Fails the test if
 * the arguments do not fit HARNESS_MAX_ARGS.
 */
#define HARNESS_MAX_ARGS 40
void harness_start(struct harness_daemon *d, const char *const *base,
		   const char *const *extra, uint64_t wait_ms);

/* No programs under test named: says so, @target of make names them. */
bool harness_skip(const char *target);

uint64_t now_ms(void);
void nap(void);

/* Child side of a fork(): standard error to @log, then @argv[0]. */
void harness_exec(const char *const *argv, const char *log)
	__attribute__((noreturn));
/* Until @ready appears (renamed into place whole), or @deadline_ms. */
void harness_wait_ready(pid_t pid, const char *ready, const char *log,
			uint64_t deadline_ms, int *ret_port, int *ret_mport);
/* SIGTERM; returns the exit status. */
int harness_stop(pid_t *pid);
/* Removes @dir: the test passed. */
void harness_cleanup(const char *dir);
int harness_teardown(void **state);
/* A cmocka test that starts netoopsd (needs <cmocka.h>). */
#define harness_test(f)	cmocka_unit_test_teardown(f, harness_teardown)

/*
 * One UDP datagram to 127.0.0.1:@port from a socket of its own, so from a
 * new source port each time, as a NAT may do.
 */
void harness_send_raw(int port, const void *buf, size_t len);

/* GET /metrics on loopback port @mport; the value of @name, or -1. */
double harness_metric(int mport, const char *name);
/*
 * Waits until metric @name is at least @want, at most @wait_ms; returns
 * its value.
 */
double harness_wait_metric(int mport, const char *name, double want,
			   uint64_t wait_ms, const char *log);
/*
 * Runs the CLI with "--db @db" and @args; its standard output in @out
 * (@cap bytes, NUL-terminated), its exit status.
 */
int harness_cli(const char *db, const char *args, char *out, size_t cap);
/* Same; its parsed JSON output. */
json_t *harness_cli_json(const char *db, const char *args);
/* Same, the CLI exiting with @status rather than 0. */
json_t *harness_cli_json_status(const char *db, const char *args,
				int status);
/* The dump of @boot in the output of `netoops list --json`, or NULL. */
json_t *harness_find_dump(json_t *list, const uint8_t boot[16]);
/*
 * Bytes of @db with its -wal and -shm files, as stat() sees them: the
 * tests' own count, to check the store's against.
 */
int64_t harness_disk_bytes(const char *db);

/*
 * The PostgreSQL cluster of pg_cluster.sh: @sql on a connection of its own
 * to @loc (a store location); the first column of its first row as an
 * integer, -1 if none.
 */
long long harness_pg_sql(const char *loc, const char *sql);
/* Drops the store's tables: an empty database. */
void harness_pg_empty(const char *loc);
/* "$NETOOPS_PG_CTL @what": stops or starts the server, waiting for it. */
void harness_pg_ctl(const char *what);

#endif
