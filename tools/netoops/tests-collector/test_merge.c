// SPDX-License-Identifier: GPL-2.0
/*
 * Collectors that each miss part of a dump, one store: netoopsd instances
 * A and B (--name A, --name B) on one SQLite file, each with its own spool.
 * Every datagram of every dump is sent to both, through a lossy path per
 * collector that drops a different random 5 % (xorshift64*, the generator
 * of bench/loss/loss_relay.c, seeded: the seed is printed, and
 * NETOOPS_TEST_SEED replays a run).  The paths are simulated in the test
 * rather than by loss_relay processes: the check needs to know exactly
 * which datagrams each collector got, and a relay process adds drops of
 * its own (its socket buffer) that nobody counts.
 *
 * What must hold: every dump is stored exactly once; it is complete when
 * the union of what A and B got is complete (then it lists both collectors
 * if neither got it whole), else partial with exactly the datagrams of the
 * union; nothing is lost on the way (each collector's stored + duplicate
 * counters reach the dumps it saw).  Waits are bounded waits on those
 * counters, never fixed sleeps.
 *
 * test_spooled_merge: the same through the spool while the store is
 * locked and across a restart (the batch files carry the datagrams).
 *
 * With $NETOOPS_PG (pg.mk, collector-merge-pg), the storm of issue 15
 * item 3 instead: test_storm().
 */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>
#include <libpq-fe.h>
#include <sqlite3.h>

#include <linux/netoops.h>

#include "gen_dump.h"
#include "harness.h"

#define DEADLINE_MS	60000
#define NR_DUMPS	40
#define LOSS_PER_MILLE	50	/* 5 % on each path */
#define PATHS		2

static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ull;
}

/* The seed of this run: $NETOOPS_TEST_SEED, else the time. */
static uint64_t test_seed(void)
{
	const char *e = getenv("NETOOPS_TEST_SEED");
	uint64_t seed = e ? strtoull(e, NULL, 0) : (uint64_t)time(NULL);

	printf("# seed %" PRIu64 " (NETOOPS_TEST_SEED=%" PRIu64
	       " to replay)\n", seed, seed);
	fflush(stdout);
	return seed;
}

/* @d already has its directory (harness_dir()). */
static void start(struct harness_daemon *d, const char *name,
		  const char *db)
{
	char spool[160];

	snprintf(spool, sizeof(spool), "%s/spool", d->dir);
	harness_start(d, (const char *const []){
			"--listen", "127.0.0.1", "--port", "0",
			"--db", db, "--spool", spool, "--name", name,
			"--ready-file", d->ready, "--metrics-listen",
			"127.0.0.1:0", "--timeout-ms", "1000",
			"--min-partial-pct", "0", "--rcvbuf", "8388608",
			"--workers", "2", "--sync", "normal", NULL },
		      NULL, DEADLINE_MS);
}

/* Until @d has stored, or found stored, @want dumps. */
static void wait_settled(const struct harness_daemon *d, long want)
{
	uint64_t end = now_ms() + DEADLINE_MS;
	double got = 0;

	for (;;) {
		got = harness_metric(d->mport, "netoops_dumps_stored_total") +
		      harness_metric(d->mport,
				     "netoops_dumps_store_duplicates_total");
		if (got >= want || now_ms() > end)
			break;
		nap();
	}
	if (got != want)
		fail_msg("%s: %.0f dumps stored or duplicate, want %ld (log"
			 " %s)", d->dir, got, want, d->log);
}

/*
 * Both daemons, static: the teardown of a failed test stops the one
 * harness.c does not know of (it knows the last started).
 */
static struct harness_daemon a, b;

static int teardown(void **state)
{
	if (a.pid > 0 && a.pid != current.pid)
		harness_stop(&a.pid);
	return harness_teardown(state);
}

struct expect {
	uint8_t boot[16];
	size_t n;			/* datagrams */
	size_t got[PATHS];		/* by each collector */
	size_t un;			/* in the union */
};

static void test_two_collectors(void **state)
{
	struct harness_daemon *col[PATHS] = { &a, &b };
	static struct expect ex[NR_DUMPS];
	long seen[PATHS] = { 0 }, merged = 0, whole_union = 0, stored = 0;
	uint64_t rng = test_seed() * 0x9e3779b97f4a7c15ull + 1;
	uint64_t t0;
	char db[160], *log;
	sqlite3_stmt *st;
	sqlite3 *sq;
	size_t i, len;
	int k, p;

	(void)state;
	if (harness_skip("collector-merge"))
		skip();
	harness_dir(&a, "merge-A");
	harness_dir(&b, "merge-B");
	snprintf(db, sizeof(db), "%s/shared.db", a.dir);
	start(&a, "A", db);
	start(&b, "B", db);
	t0 = now_ms();

	for (k = 0; k < NR_DUMPS; k++) {
		struct gen_opts o = {
			.hostname = "merge-e2e", .release = "6.12",
			.reason = NETOOPS_REASON_OOPS, .compress = true,
			.max_pkt = 256,
		};
		struct expect *e = &ex[k];
		struct gen_pkts pk;
		bool any[PATHS] = { false, false };

		memset(e->boot, 0, 16);
		e->boot[0] = 0x4d;
		e->boot[15] = k;
		log = gen_log(6000 + 300 * k, "merge_e2e", k, &len);
		assert_int_equal(gen_dump(&pk, e->boot, 1, &o, log, len), 0);
		free(log);
		e->n = pk.n;
		for (i = 0; i < pk.n; i++) {
			bool in = false;

			for (p = 0; p < PATHS; p++) {
				if (rng_next(&rng) % 1000 < LOSS_PER_MILLE)
					continue;
				harness_send_raw(col[p]->port, pk.buf[i],
						 pk.len[i]);
				e->got[p]++;
				any[p] = true;
				in = true;
			}
			e->un += in;
		}
		for (p = 0; p < PATHS; p++)
			seen[p] += any[p];
		whole_union += e->un == e->n;
		gen_pkts_free(&pk);
	}
	for (p = 0; p < PATHS; p++)
		wait_settled(col[p], seen[p]);

	assert_int_equal(sqlite3_open_v2(db, &sq, SQLITE_OPEN_READONLY, NULL),
			 SQLITE_OK);
	sqlite3_busy_timeout(sq, 5000);
	for (k = 0; k < NR_DUMPS; k++) {
		struct expect *e = &ex[k];
		char hex[33];
		int rows = 0;

		for (i = 0; i < 16; i++)
			sprintf(hex + 2 * i, "%02x", e->boot[i]);
		assert_int_equal(sqlite3_prepare_v2(sq, "SELECT complete,"
				 " pkt_received, pkt_count, collectors,"
				 " pieces IS NULL FROM dumps WHERE boot_id = ?",
				 -1, &st, NULL), SQLITE_OK);
		sqlite3_bind_text(st, 1, hex, 32, SQLITE_STATIC);
		while (sqlite3_step(st) == SQLITE_ROW) {
			const char *c = (const char *)
					sqlite3_column_text(st, 3);
			bool whole = e->un == e->n;

			rows++;
			if (sqlite3_column_int(st, 0) != whole ||
			    (size_t)sqlite3_column_int(st, 1) != e->un ||
			    (size_t)sqlite3_column_int(st, 2) != e->n ||
			    sqlite3_column_int(st, 4) != whole)
				fail_msg("dump %d: complete %d, %d of %d"
					 " datagrams; want %zu of %zu (A got"
					 " %zu, B %zu)", k,
					 sqlite3_column_int(st, 0),
					 sqlite3_column_int(st, 1),
					 sqlite3_column_int(st, 2), e->un,
					 e->n, e->got[0], e->got[1]);
			assert_non_null(c);
			/* neither got it whole: both copies are in it */
			if (e->got[0] < e->n && e->got[1] < e->n &&
			    e->got[0] && e->got[1] &&
			    (e->un > e->got[0] && e->un > e->got[1]))
				assert_string_equal(c, strcmp(c, "A,B") ?
						    "B,A" : "A,B");
			merged += strchr(c, ',') != NULL;
		}
		sqlite3_finalize(st);
		if (rows != 1)
			fail_msg("dump %d stored %d times", k, rows);
		stored++;
	}
	sqlite3_close(sq);
	printf("# %d dumps, 2 collectors, %d%% loss per path: %ld complete"
	       " in the union, %ld stored once each, %ld merged from both,"
	       " %.1f s\n", NR_DUMPS, LOSS_PER_MILLE / 10, whole_union,
	       stored, merged, (now_ms() - t0) / 1000.0);

	/* each merge counted once, by the collector whose put made it */
	assert_int_equal(harness_metric(a.mport, "netoops_dumps_merged_total") +
			 harness_metric(b.mport, "netoops_dumps_merged_total"),
			 merged);
	/* the CLI shows who contributed */
	{
		json_t *l = harness_cli_json(db, "list --json"), *d;
		size_t n;
		bool shown = false;

		json_array_foreach(l, n, d) {
			json_t *c = json_object_get(d, "collectors");

			assert_true(json_is_array(c));
			shown |= json_array_size(c) == 2;
		}
		assert_int_equal(shown, merged > 0);
		json_decref(l);
	}
	assert_int_equal(harness_stop(&a.pid), 0);
	assert_int_equal(harness_stop(&b.pid), 0);
	harness_cleanup(b.dir);
	harness_cleanup(a.dir);
}

/* Until metric @name of @d is at least @want. */
static void wait_at_least(const struct harness_daemon *d, const char *name,
			  double want)
{
	if (harness_wait_metric(d->mport, name, want, DEADLINE_MS, d->log) <
	    want)
		fail_msg("%s: %s below %g", d->dir, name, want);
}

/*
 * Through the spool while the store is down: A and B each get a partial
 * copy of one dump (A lacks datagram 1, B datagram 2) while this process
 * holds the store's write lock; both spool them and stop.  Started again
 * with the store free, each stores its copy from its spool's batch file,
 * datagrams included: one complete dump, collectors A and B.
 */
static void test_spooled_merge(void **state)
{
	struct gen_opts o = {
		.hostname = "merge-spool", .release = "6.12",
		.reason = NETOOPS_REASON_OOPS, .max_pkt = 256,
	};
	uint8_t boot[16] = { 0x4d, 0x53 };
	struct harness_daemon *col[PATHS] = { &a, &b };
	const char *c;
	struct gen_pkts pk;
	char db[160], *log, want[64], cmd[64];
	static char out[65536];
	sqlite3_stmt *st;
	sqlite3 *sq;
	size_t len, i;
	int p;

	(void)state;
	if (harness_skip("collector-merge"))
		skip();
	harness_dir(&a, "merge-A");
	harness_dir(&b, "merge-B");
	snprintf(db, sizeof(db), "%s/shared.db", a.dir);
	start(&a, "A", db);
	start(&b, "B", db);
	log = gen_log(3000, "merge_spooled", 7, &len);
	assert_int_equal(gen_dump(&pk, boot, 1, &o, log, len), 0);
	assert_true(pk.n >= 4);

	assert_int_equal(sqlite3_open_v2(db, &sq, SQLITE_OPEN_READWRITE, NULL),
			 SQLITE_OK);
	sqlite3_busy_timeout(sq, 5000);
	assert_int_equal(sqlite3_exec(sq, "BEGIN EXCLUSIVE", NULL, NULL, NULL),
			 SQLITE_OK);
	for (i = 0; i < pk.n; i++)
		for (p = 0; p < PATHS; p++)
			if (i != (size_t)p + 1)
				harness_send_raw(col[p]->port, pk.buf[i],
						 pk.len[i]);
	for (p = 0; p < PATHS; p++) {
		wait_at_least(col[p], "netoops_dumps_spooled_total", 1);
		assert_int_equal(harness_metric(col[p]->mport,
						"netoops_dumps_stored_total"),
				 0);
		assert_int_equal(harness_stop(&col[p]->pid), 0);
	}
	assert_int_equal(sqlite3_exec(sq, "COMMIT", NULL, NULL, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(sq, "SELECT count(*) FROM dumps",
					    -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int(st, 0), 0);
	sqlite3_finalize(st);

	start(&a, "A", db);
	start(&b, "B", db);
	for (p = 0; p < PATHS; p++)
		wait_settled(col[p], 1);
	assert_int_equal(harness_metric(a.mport, "netoops_dumps_merged_total") +
			 harness_metric(b.mport, "netoops_dumps_merged_total"),
			 1);
	assert_int_equal(sqlite3_prepare_v2(sq, "SELECT complete, collectors,"
					    " pkt_received, pieces IS NULL,"
					    " count(*) OVER (), id FROM dumps",
					    -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int(st, 0), 1);
	c = (const char *)sqlite3_column_text(st, 1);
	assert_true(!strcmp(c, "A,B") || !strcmp(c, "B,A"));
	/* `netoops show` names them */
	snprintf(want, sizeof(want), "  collectors: %s\n", c);
	snprintf(cmd, sizeof(cmd), "show %lld",
		 (long long)sqlite3_column_int64(st, 5));
	assert_int_equal(harness_cli(db, cmd, out, sizeof(out)), 0);
	if (!strstr(out, want))
		fail_msg("no \"%s\" in:\n%s", want, out);
	assert_int_equal(sqlite3_column_int(st, 2), pk.n);
	assert_int_equal(sqlite3_column_int(st, 3), 1);
	assert_int_equal(sqlite3_column_int(st, 4), 1);
	sqlite3_finalize(st);
	sqlite3_close(sq);
	assert_int_equal(harness_stop(&a.pid), 0);
	assert_int_equal(harness_stop(&b.pid), 0);
	gen_pkts_free(&pk);
	free(log);
	harness_cleanup(b.dir);
	harness_cleanup(a.dir);
}

/* ---- the storm: three collectors, one PostgreSQL ---------------------- */

#define STORM_COLS	3
#define STORM_CHUNK	100	/* dumps sent before waiting for the
				 * collectors to have read them: a socket
				 * buffer never overflows, even at the
				 * default rmem_max */

static struct harness_daemon sc[STORM_COLS];

static int storm_teardown(void **state)
{
	int p;

	for (p = 0; p < STORM_COLS; p++)
		if (sc[p].pid > 0 && sc[p].pid != current.pid)
			harness_stop(&sc[p].pid);
	return harness_teardown(state);
}

static void storm_start(struct harness_daemon *d, const char *name,
			const char *db)
{
	char spool[160];

	harness_dir(d, name);
	snprintf(spool, sizeof(spool), "%s/spool", d->dir);
	harness_start(d, (const char *const []){
			"--listen", "127.0.0.1", "--port", "0",
			"--db", db, "--spool", spool, "--name", name,
			"--ready-file", d->ready, "--metrics-listen",
			"127.0.0.1:0", "--timeout-ms", "1000",
			"--min-partial-pct", "0", "--rcvbuf", "33554432",
			"--max-open-dumps", "65536",
			"--max-dumps-per-addr", "65536",
			"--workers", "2", "--batch", "512", NULL },
		      NULL, DEADLINE_MS);
}

/* Until @d has read @want datagrams (so none waits in a socket). */
static void wait_read(const struct harness_daemon *d, uint64_t want)
{
	uint64_t end = now_ms() + DEADLINE_MS;
	double got;

	while ((got = harness_metric(d->mport,
				     "netoops_packets_received_total")) <
	       (double)want && now_ms() < end)
		nap();
	if (got != (double)want)
		fail_msg("%s: read %.0f datagrams, sent %" PRIu64, d->dir, got,
			 want);
}

struct storm_dump {
	uint8_t n;		/* datagrams */
	uint8_t un;		/* in the union of the two paths */
	uint8_t full;		/* bit p: collector p got all */
	uint8_t any;		/* bit p: collector p got any */
};

/*
 * Issue 15, item 3: N hosts crash at once, each dump sent to two of
 * three collectors, each path dropping a random 5 %; one PostgreSQL.
 * Every dump stored exactly once, complete when the union of its two
 * copies is; the figures printed.  N: $NETOOPS_STORM_N, default 10000.
 */
static void test_storm(void **state)
{
	const char *pg = getenv("NETOOPS_PG"), *e;
	long n = (e = getenv("NETOOPS_STORM_N")) ? atol(e) : 10000;
	uint64_t rng = test_seed() * 0x9e3779b97f4a7c15ull + 1;
	uint64_t sent[STORM_COLS] = { 0 }, t0, t_sent, t_done, dgrams = 0;
	long seen[STORM_COLS] = { 0 }, k, merged = 0, partial = 0, rows;
	long whole_union = 0;
	struct storm_dump *sd;
	struct sockaddr_in to = { .sin_family = AF_INET };
	char name[16];
	PGresult *res;
	PGconn *c;
	int fd, p, i;

	(void)state;
	if (!pg || harness_skip("collector-merge-pg"))
		skip();
	assert_true(n > 0 && n <= 65536);
	harness_pg_empty(pg);
	sd = calloc(n, sizeof(*sd));
	assert_non_null(sd);
	for (p = 0; p < STORM_COLS; p++) {
		snprintf(name, sizeof(name), "C%d", p);
		storm_start(&sc[p], name, pg);
	}
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	assert_true(fd >= 0);
	to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);

	t0 = now_ms();
	for (k = 0; k < n; k++) {
		struct gen_opts o = {
			.hostname = "storm", .release = "6.12",
			.reason = NETOOPS_REASON_PANIC, .compress = true,
			.max_pkt = 256,
		};
		/* the two collectors of host k */
		int pair[2] = { k % STORM_COLS, (k + 1) % STORM_COLS };
		struct gen_pkts pk;
		uint8_t boot[16] = { 0x53, 0x54 };
		size_t len, j;
		char *log;

		boot[12] = k >> 24;
		boot[13] = k >> 16;
		boot[14] = k >> 8;
		boot[15] = k;
		log = gen_log(2500, "storm_crash", k, &len);
		assert_int_equal(gen_dump(&pk, boot, 1, &o, log, len), 0);
		free(log);
		assert_true(pk.n < 255);
		sd[k].n = pk.n;
		sd[k].full = 3;		/* cleared below at a loss */
		for (j = 0; j < pk.n; j++) {
			bool in = false;

			for (i = 0; i < 2; i++) {
				p = pair[i];
				if (rng_next(&rng) % 1000 < LOSS_PER_MILLE) {
					sd[k].full &= ~(1u << i);
					continue;
				}
				to.sin_port = htons(sc[p].port);
				assert_int_equal(sendto(fd, pk.buf[j],
							pk.len[j], 0,
							(void *)&to,
							sizeof(to)),
						 (ssize_t)pk.len[j]);
				sent[p]++;
				sd[k].any |= 1u << i;
				in = true;
			}
			sd[k].un += in;
			dgrams++;
		}
		for (i = 0; i < 2; i++)
			seen[pair[i]] += !!(sd[k].any & (1u << i));
		whole_union += sd[k].un == sd[k].n;
		gen_pkts_free(&pk);
		if ((k + 1) % STORM_CHUNK == 0 || k + 1 == n)
			for (p = 0; p < STORM_COLS; p++)
				wait_read(&sc[p], sent[p]);
	}
	close(fd);
	t_sent = now_ms();
	for (p = 0; p < STORM_COLS; p++)
		wait_settled(&sc[p], seen[p]);
	t_done = now_ms();

	c = PQconnectdb(strncmp(pg, "pg:", 3) ? pg : pg + 3);
	assert_int_equal(PQstatus(c), CONNECTION_OK);
	res = PQexec(c, "SELECT boot_id, complete, pkt_received, pkt_count,"
		     " collectors, count(*) OVER (PARTITION BY boot_id)"
		     " FROM dumps");
	assert_int_equal(PQresultStatus(res), PGRES_TUPLES_OK);
	rows = PQntuples(res);
	for (i = 0; i < rows; i++) {
		const char *bid = PQgetvalue(res, i, 0);
		bool complete = *PQgetvalue(res, i, 1) == 't';
		long got = atol(PQgetvalue(res, i, 2));
		const char *cols = PQgetvalue(res, i, 4);

		k = strtol(bid + 24, NULL, 16);
		assert_true(k >= 0 && k < n);
		if (atol(PQgetvalue(res, i, 5)) != 1)
			fail_msg("host %ld stored %s times", k,
				 PQgetvalue(res, i, 5));
		if (complete != (sd[k].un == sd[k].n) || got != sd[k].un ||
		    atol(PQgetvalue(res, i, 3)) != sd[k].n)
			fail_msg("host %ld: complete %d, %ld of %s datagrams;"
				 " want %u of %u", k, complete, got,
				 PQgetvalue(res, i, 3), sd[k].un, sd[k].n);
		merged += strchr(cols, ',') != NULL;
		partial += !complete;
	}
	PQclear(res);
	PQfinish(c);
	/* a dump neither path delivered a datagram of is not stored */
	for (k = 0, i = 0; k < n; k++)
		i += sd[k].any != 0;
	assert_int_equal(rows, i);
	printf("# storm: %ld hosts, 3 collectors (2 per dump), %d%% loss per"
	       " path, PostgreSQL: %" PRIu64 " datagrams (each to 2 of 3) sent in"
	       " %.1f s,"
	       " all stored in %.1f s (%.0f dumps/s); %ld stored once each,"
	       " %ld complete in the union, %ld merged from two copies,"
	       " %ld partial (their union)\n", n, LOSS_PER_MILLE / 10,
	       dgrams, (t_sent - t0) / 1000.0, (t_done - t0) / 1000.0,
	       n * 1000.0 / (double)(t_done - t0 ? t_done - t0 : 1), rows,
	       whole_union, merged, partial);
	for (p = 0, i = 0; p < STORM_COLS; p++)
		i += harness_metric(sc[p].mport, "netoops_dumps_merged_total");
	assert_int_equal(i, merged);
	for (p = 0; p < STORM_COLS; p++) {
		assert_int_equal(harness_metric(sc[p].mport,
						"netoops_kernel_drops_total"),
				 0);
		assert_int_equal(harness_stop(&sc[p].pid), 0);
	}
	for (p = 0; p < STORM_COLS; p++)
		harness_cleanup(sc[p].dir);
	free(sd);
}

int main(void)
{
	/* pg.mk runs the storm; collector-merge the rest, on SQLite */
	if (getenv("NETOOPS_PG"))
		cmocka_set_test_filter("test_storm");
	else
		cmocka_set_skip_filter("test_storm");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_two_collectors, teardown),
		cmocka_unit_test_teardown(test_spooled_merge, teardown),
		cmocka_unit_test_teardown(test_storm, storm_teardown),
	};

	return cmocka_run_group_tests_name("merge (two collectors)", tests,
					   NULL, NULL);
}
