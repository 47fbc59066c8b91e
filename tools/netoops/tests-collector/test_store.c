// SPDX-License-Identifier: GPL-2.0
/*
 * Store tests: round trip, replace-if-better, filters, buckets,
 * gap rendering, reader while a writer holds the database, whether a dump
 * was authenticated (round trip, filter, migration of a version 1 store,
 * never replaced by an unauthenticated copy),
 * the errors of opening what is not a usable store, retention (prune by
 * age and by size, the files shrinking on disk), the size of the WAL in
 * stats, newest-first order and glob filters, grouped counts
 * (nstore_count()).
 *
 * Without arguments against SQLite; with a PostgreSQL location as argv[1]
 * (pg.mk runs it in a cluster of pg_cluster.sh) the tests of both against
 * PostgreSQL, then its own: schema migration, open errors, what is kept
 * byte for byte, globs matching as SQLite's GLOB, prune by size,
 * concurrent writers, a put retried after a deadlock, the server stopped
 * and started ($NETOOPS_PG_CTL stop|start).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <grp.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <libpq-fe.h>
#include <sqlite3.h>

#include <linux/netoops.h>

#include "netoops_decode.h"
#include "store/record.h"
#include "store/store.h"
#include "gen_dump.h"
#include "harness.h"

struct fx {
	char dir[64];
	char path[256];		/* the store's location */
	struct nstore *st;
};

/* The PostgreSQL location of argv[1]; NULL: SQLite. */
static const char *pg;

static long long pg_sql(const char *sql)
{
	return harness_pg_sql(pg, sql);
}

/* An empty database: what a fresh SQLite file is to SQLite. */
static void pg_empty(void)
{
	harness_pg_empty(pg);
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	strcpy(f->dir, "/tmp/netoops-test-store-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	if (pg) {
		pg_empty();
		snprintf(f->path, sizeof(f->path), "%s", pg);
	} else {
		snprintf(f->path, sizeof(f->path), "%s/t.db", f->dir);
	}
	assert_int_equal(nstore_open(f->path, NSTORE_SYNC_NORMAL, &f->st), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	char cmd[160];

	nstore_close(f->st);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	assert_int_equal(system(cmd), 0);
	free(f);
	return 0;
}

static struct nstore_dump *mk(uint8_t boot, uint64_t dump_id, const char *host,
			      const char *rel, const char *sig, bool complete,
			      uint32_t pkts)
{
	struct nstore_dump *d = nstore_dump_new();
	static const char log[] = "line one\nline two\nline three\n";

	assert_non_null(d);
	memset(d->boot_id, boot, 16);
	d->dump_id = dump_id;
	d->hostname = strdup(host);
	d->release = strdup(rel);
	d->reason = NETOOPS_REASON_OOPS;
	d->complete = complete;
	d->pkt_count = 4;
	d->pkt_received = pkts;
	d->log = strdup(log);
	d->log_len = strlen(log);
	d->received_ms = 1764756000000LL + boot * 1000 + (int64_t)dump_id;
	d->sig_hash = strdup(sig);
	d->sig_title = strdup("BUG: test");
	d->sig_frames = strdup("f1\nf2");
	return d;
}

static void test_roundtrip(void **state)
{
	struct fx *f = *state;
	struct nstore_dump *d = mk(1, 7, "h1", "6.12", "aaaa", true, 4), *g;
	uint64_t regs[3] = { 1, 0xffffffff81000000ull, UINT64_MAX };
	size_t dups = 99;

	d->have_time = true;
	d->wall_sec = -5;
	d->wall_nsec = 999999999;
	d->uptime_ns = UINT64_MAX - 1;
	d->have_taint = true;
	d->taint = 0x8000000000000001ull;
	d->regs = malloc(sizeof(regs));
	memcpy(d->regs, regs, sizeof(regs));
	d->nr_regs = 3;
	d->regs_arch = NETOOPS_ARCH_X86_64;
	d->regs_context = NETOOPS_REGS_OOPS;
	assert_int_equal(nstore_dump_add_user(d, "rack", 4, "b12", 3), 0);
	assert_int_equal(nstore_dump_add_user(d, "job.id", 6, "x y\"z", 5), 0);
	assert_int_equal(nstore_dump_add_user(d, "raw", 3, "a\xff", 2), 0);
	assert_int_equal(nstore_dump_add_gap(d, 9, 100), 0);
	assert_int_equal(nstore_dump_add_gap(d, 18, 0), 0);
	d->src = strdup("127.0.0.1");
	assert_int_equal(nstore_put(f->st, &d, 1, &dups), 0);
	assert_int_equal(dups, 0);
	assert_true(d->id > 0);

	assert_int_equal(nstore_get(f->st, d->id, &g), 0);
	assert_memory_equal(g->boot_id, d->boot_id, 16);
	assert_int_equal(g->dump_id, 7);
	assert_string_equal(g->hostname, "h1");
	assert_string_equal(g->release, "6.12");
	assert_null(g->version);
	assert_true(g->have_time);
	assert_int_equal(g->wall_sec, -5);
	assert_int_equal(g->wall_nsec, 999999999);
	assert_true(g->uptime_ns == UINT64_MAX - 1);
	assert_true(g->have_taint);
	assert_true(g->taint == 0x8000000000000001ull);
	assert_int_equal(g->nr_regs, 3);
	assert_memory_equal(g->regs, regs, sizeof(regs));
	assert_int_equal(g->regs_arch, NETOOPS_ARCH_X86_64);
	assert_int_equal(g->nr_user, 3);
	assert_string_equal(g->user[0].key, "rack");
	assert_string_equal(g->user[1].value, "x y\"z");
	assert_string_equal(g->user[2].value, "a?");	/* not UTF-8 */
	assert_int_equal(g->nr_gaps, 2);
	assert_int_equal(g->gaps[0].off, 9);
	assert_int_equal(g->gaps[0].len, 100);
	assert_int_equal(g->gaps[1].len, 0);
	assert_int_equal(g->log_len, d->log_len);
	assert_memory_equal(g->log, d->log, d->log_len);
	assert_string_equal(g->sig_frames, "f1\nf2");
	assert_true(g->complete);
	nstore_dump_free(g);
	nstore_dump_free(d);
	assert_int_equal(nstore_get(f->st, 12345, &g), -ENOENT);
}

static void test_replace_if_better(void **state)
{
	struct fx *f = *state;
	struct nstore_dump *a = mk(2, 1, "h", "r", "s", false, 2);
	struct nstore_dump *b = mk(2, 1, "h", "r", "s", false, 1);
	struct nstore_dump *c = mk(2, 1, "h", "r", "s", true, 4);
	struct nstore_dump *e = mk(2, 1, "h", "r", "s", false, 3);
	struct nstore_stats s;
	size_t dups;

	assert_int_equal(nstore_put(f->st, &a, 1, &dups), 0);
	assert_int_equal(dups, 0);
	/* fewer packets: not better */
	assert_int_equal(nstore_put(f->st, &b, 1, &dups), 0);
	assert_int_equal(dups, 1);
	/* complete: better, same row */
	assert_int_equal(nstore_put(f->st, &c, 1, &dups), 0);
	assert_int_equal(dups, 0);
	assert_int_equal(c->id, a->id);
	/* partial after complete: never; dup_of names the row kept */
	assert_int_equal(nstore_put(f->st, &e, 1, &dups), 0);
	assert_int_equal(dups, 1);
	assert_int_equal(e->id, 0);
	assert_int_equal(e->dup_of, a->id);
	assert_int_equal(b->dup_of, a->id);
	assert_int_equal(nstore_stats(f->st, &s), 0);
	assert_int_equal(s.dumps, 1);
	assert_int_equal(s.complete, 1);
	nstore_dump_free(a);
	nstore_dump_free(b);
	nstore_dump_free(c);
	nstore_dump_free(e);
}

static int count_cb(const struct nstore_dump *d, void *arg)
{
	(void)d;
	(*(long *)arg)++;
	return 0;
}

/* How many dumps of @st @flt selects. */
static long count_where(struct nstore *st, const struct nstore_filter *flt)
{
	long n = 0;

	assert_int_equal(nstore_list(st, flt, 0, count_cb, &n), 0);
	return n;
}

struct bk {
	int n;
	char hash[4][16];
	long count[4], hosts[4];
	char kernels[4][64];
};

static int bucket_cb(const struct nstore_bucket *b, void *arg)
{
	struct bk *k = arg;

	assert_true(k->n < 4);
	snprintf(k->hash[k->n], 16, "%s", b->sig_hash);
	k->count[k->n] = b->count;
	k->hosts[k->n] = b->hosts;
	snprintf(k->kernels[k->n], 64, "%s", b->kernels ?: "");
	k->n++;
	return 0;
}

static void test_filters_buckets(void **state)
{
	struct fx *f = *state;
	struct nstore_dump *d[5];
	struct nstore_filter flt;
	struct bk k = { 0 };
	size_t dups, i;
	long n;

	d[0] = mk(3, 1, "alpha", "6.1", "bug1", true, 4);
	d[1] = mk(4, 1, "beta", "6.12", "bug1", true, 4);
	d[2] = mk(5, 1, "beta", "6.12", "bug1", false, 3);
	d[3] = mk(6, 1, "gamma", "6.12", "bug2", true, 4);
	d[4] = mk(7, 1, "gamma", "6.12", "bug2", true, 4);
	d[4]->reason = NETOOPS_REASON_PANIC;
	assert_int_equal(nstore_put(f->st, d, 5, &dups), 0);
	assert_int_equal(dups, 0);

	nstore_filter_init(&flt);
	n = 0;
	assert_int_equal(nstore_list(f->st, &flt, 0, count_cb, &n), 0);
	assert_int_equal(n, 5);
	flt.host = "beta";
	n = 0;
	assert_int_equal(nstore_list(f->st, &flt, 0, count_cb, &n), 0);
	assert_int_equal(n, 2);
	nstore_filter_init(&flt);
	flt.kernel = "6.1";
	n = 0;
	assert_int_equal(nstore_list(f->st, &flt, 0, count_cb, &n), 0);
	assert_int_equal(n, 1);
	nstore_filter_init(&flt);
	flt.reason = NETOOPS_REASON_PANIC;
	n = 0;
	assert_int_equal(nstore_list(f->st, &flt, 0, count_cb, &n), 0);
	assert_int_equal(n, 1);
	nstore_filter_init(&flt);
	flt.complete = 0;
	n = 0;
	assert_int_equal(nstore_list(f->st, &flt, 0, count_cb, &n), 0);
	assert_int_equal(n, 1);
	nstore_filter_init(&flt);
	flt.since_ms = d[2]->received_ms;
	flt.until_ms = d[4]->received_ms;	/* exclusive */
	n = 0;
	assert_int_equal(nstore_list(f->st, &flt, 0, count_cb, &n), 0);
	assert_int_equal(n, 2);
	nstore_filter_init(&flt);
	flt.bucket = "bug";		/* prefix of both */
	n = 0;
	assert_int_equal(nstore_list(f->st, &flt, 0, count_cb, &n), 0);
	assert_int_equal(n, 5);
	flt.bucket = "bug2";
	n = 0;
	assert_int_equal(nstore_list(f->st, &flt, 0, count_cb, &n), 0);
	assert_int_equal(n, 2);

	assert_int_equal(nstore_buckets(f->st, NULL, bucket_cb, &k), 0);
	assert_int_equal(k.n, 2);
	assert_string_equal(k.hash[0], "bug1");	/* biggest first */
	assert_int_equal(k.count[0], 3);
	assert_int_equal(k.hosts[0], 2);
	assert_string_equal(k.kernels[0], "6.1,6.12");
	assert_string_equal(k.hash[1], "bug2");
	assert_int_equal(k.count[1], 2);
	assert_int_equal(k.hosts[1], 1);
	for (i = 0; i < 5; i++)
		nstore_dump_free(d[i]);
}

static void test_auth_roundtrip(void **state)
{
	struct fx *f = *state;
	struct nstore_dump *d[4], *g;
	struct nstore_filter flt;
	size_t dups, i;

	d[0] = mk(10, 1, "signed", "6.12", "s", true, 4);
	d[0]->authenticated = true;
	d[0]->auth_key_id = 7;
	d[1] = mk(11, 1, "unsigned", "6.12", "s", true, 4);
	d[2] = mk(12, 1, "key0", "6.12", "s", true, 4);
	d[2]->authenticated = true;	/* key id 0 is a key id, not "no" */
	d[2]->auth_key_id = 0;
	d[3] = mk(13, 1, "keymax", "6.12", "s", true, 4);
	d[3]->authenticated = true;
	d[3]->auth_key_id = UINT32_MAX;
	assert_int_equal(nstore_put(f->st, d, 4, &dups), 0);
	assert_int_equal(dups, 0);
	for (i = 0; i < 4; i++) {
		assert_int_equal(nstore_get(f->st, d[i]->id, &g), 0);
		assert_string_equal(g->hostname, d[i]->hostname);
		assert_int_equal(g->authenticated, d[i]->authenticated);
		assert_int_equal(g->auth_key_id, d[i]->auth_key_id);
		nstore_dump_free(g);
	}

	nstore_filter_init(&flt);
	flt.authenticated = 1;
	assert_int_equal(count_where(f->st, &flt), 3);
	flt.authenticated = 0;
	assert_int_equal(count_where(f->st, &flt), 1);
	flt.host = "signed";
	assert_int_equal(count_where(f->st, &flt), 0);

	/* a better copy replaces the row, and its authentication with it */
	nstore_dump_free(d[1]);
	d[1] = mk(10, 1, "signed", "6.12", "s", true, 4);
	d[1]->complete = false;
	d[1]->pkt_received = 3;
	assert_int_equal(nstore_put(f->st, &d[1], 1, &dups), 0);
	assert_int_equal(dups, 1);	/* partial after complete: kept */
	assert_int_equal(nstore_get(f->st, d[0]->id, &g), 0);
	assert_true(g->authenticated);
	nstore_dump_free(g);
	for (i = 0; i < 4; i++)
		nstore_dump_free(d[i]);

	/* a more complete copy that is not signed does not replace a
	 * signed one (test_auth_never_downgraded has the whole table)
	 */
	d[0] = mk(14, 1, "h", "r", "s", false, 2);
	d[0]->authenticated = true;
	d[0]->auth_key_id = 7;
	d[1] = mk(14, 1, "h", "r", "s", true, 4);	/* not signed */
	assert_int_equal(nstore_put(f->st, d, 2, &dups), 0);
	assert_int_equal(dups, 1);
	assert_int_equal(nstore_get(f->st, d[0]->id, &g), 0);
	assert_false(g->complete);
	assert_true(g->authenticated);
	nstore_dump_free(g);
	nstore_dump_free(d[0]);
	nstore_dump_free(d[1]);
}

/*
 * Item 4 of the collector issue: "most complete copy wins" never lets an
 * unauthenticated copy (or one verified with another key) replace an
 * authenticated row; an authenticated copy replaces an unauthenticated
 * row even when less complete (it may be a forgery of its identity).
 */
static void test_auth_never_downgraded(void **state)
{
	static const struct {
		int old_key, new_key;	/* -1: not authenticated */
		bool old_complete, new_complete;
		uint32_t old_pkts, new_pkts;
		bool replaced;
	} t[] = {
		{ 7, -1, false, true, 2, 4, false },	/* the case */
		{ 7, -1, false, false, 2, 3, false },
		{ 7, 9, false, true, 2, 4, false },	/* another key */
		{ 7, 7, false, true, 2, 4, true },	/* same key, better */
		{ 7, 7, true, false, 4, 3, false },	/* same key, worse */
		{ -1, 7, true, false, 4, 1, true },	/* signed wins */
		{ -1, -1, false, true, 2, 4, true },	/* no keys: as before */
		{ -1, -1, true, false, 4, 3, false },
	};
	struct fx *f = *state;
	struct nstore_dump *a, *b, *g;
	size_t dups, i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		a = mk(20, i, "old", "r", "s", t[i].old_complete,
		       t[i].old_pkts);
		b = mk(20, i, "new", "r", "s", t[i].new_complete,
		       t[i].new_pkts);
		a->authenticated = t[i].old_key >= 0;
		a->auth_key_id = a->authenticated ? (uint32_t)t[i].old_key : 0;
		b->authenticated = t[i].new_key >= 0;
		b->auth_key_id = b->authenticated ? (uint32_t)t[i].new_key : 0;
		assert_int_equal(nstore_put(f->st, &a, 1, &dups), 0);
		assert_int_equal(dups, 0);
		assert_int_equal(nstore_put(f->st, &b, 1, &dups), 0);
		assert_int_equal(dups, !t[i].replaced);
		assert_int_equal(nstore_get(f->st, a->id, &g), 0);
		print_message("  %zu: key %d -> %d: %s\n", i, t[i].old_key,
			      t[i].new_key, g->hostname);
		assert_string_equal(g->hostname, t[i].replaced ? "new" : "old");
		assert_int_equal(g->authenticated, t[i].replaced ?
				 b->authenticated : a->authenticated);
		nstore_dump_free(g);
		nstore_dump_free(a);
		nstore_dump_free(b);
	}
}

/* The schema of version 1 stores, as they were created. */
static const char schema_v1[] =
	"CREATE TABLE meta(key TEXT PRIMARY KEY, value);"
	"CREATE TABLE dumps("
	" id INTEGER PRIMARY KEY,"
	" boot_id TEXT NOT NULL, dump_id INTEGER NOT NULL,"
	" hostname TEXT, release TEXT, version TEXT, arch TEXT,"
	" reason INTEGER NOT NULL, oops_count INTEGER, part INTEGER,"
	" cpu INTEGER, wall_sec INTEGER, wall_nsec INTEGER,"
	" uptime_ns INTEGER, taint INTEGER, cpu_desc TEXT,"
	" regs_arch INTEGER, regs_context INTEGER, regs BLOB, user TEXT,"
	" complete INTEGER NOT NULL, pkt_count INTEGER, pkt_received INTEGER,"
	" compression INTEGER, payload_total INTEGER, gaps TEXT,"
	" src TEXT, received_ms INTEGER NOT NULL, stored_ms INTEGER,"
	" sig_title TEXT, sig_frames TEXT, sig_hash TEXT,"
	" log_len INTEGER NOT NULL, log_enc INTEGER NOT NULL, log BLOB,"
	" UNIQUE(boot_id, dump_id));"
	"CREATE INDEX dumps_received ON dumps(received_ms);"
	"CREATE INDEX dumps_sig ON dumps(sig_hash);"
	"CREATE INDEX dumps_host ON dumps(hostname);"
	"INSERT INTO meta VALUES('schema_version', 1);"
	"INSERT INTO dumps(boot_id, dump_id, hostname, reason, complete,"
	" received_ms, log_len, log_enc, log, user, gaps) VALUES("
	" '01010101010101010101010101010101', 3, 'old-host', 2, 1,"
	" 1764756000000, 4, 0, 'old\n', '{}', '');";

/* One integer from @sql (-1 if no row). */
static long long sql_int(const char *path, const char *sql)
{
	sqlite3_stmt *st;
	long long v = -1;
	sqlite3 *db;

	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY,
					 NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL),
			 SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return v;
}

static int first_cb(const struct nstore_dump *d, void *arg)
{
	struct nstore_dump *copy = arg;

	copy->id = d->id;
	copy->dump_id = d->dump_id;
	copy->authenticated = d->authenticated;
	copy->auth_key_id = d->auth_key_id;
	copy->log_len = d->log_len;
	return 0;
}

/*
 * A store of version 1 (no auth_key column): readers see its dumps as not
 * authenticated; the first writer migrates it in place, keeping them.
 */
static void test_migrate_v1(void **state)
{
	struct fx *f = *state;
	struct nstore_dump *d, *g, got;
	struct nstore_filter flt;
	struct nstore *ro, *rw;
	char path[160];
	sqlite3 *db;
	size_t dups;

	snprintf(path, sizeof(path), "%s/v1.db", f->dir);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, schema_v1, NULL, NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(db);
	assert_int_equal(sql_int(path, "SELECT count(*) FROM"
				 " pragma_table_info('dumps')"
				 " WHERE name = 'auth_key'"), 0);

	/* read-only, not migrated: every dump "not authenticated" */
	assert_int_equal(nstore_open(path, NSTORE_RDONLY, &ro), 0);
	memset(&got, 0xff, sizeof(got));
	assert_int_equal(nstore_list(ro, NULL, NSTORE_WITH_LOG, first_cb,
				     &got), 0);
	assert_int_equal(got.dump_id, 3);
	assert_int_equal(got.log_len, 4);
	assert_false(got.authenticated);
	nstore_filter_init(&flt);
	flt.authenticated = 1;
	assert_int_equal(count_where(ro, &flt), 0);
	flt.authenticated = 0;
	assert_int_equal(count_where(ro, &flt), 1);
	assert_int_equal(nstore_get(ro, got.id, &g), 0);
	assert_false(g->authenticated);
	assert_string_equal(g->hostname, "old-host");
	nstore_dump_free(g);
	nstore_close(ro);
	assert_int_equal(sql_int(path, "SELECT value FROM meta"
				 " WHERE key = 'schema_version'"), 1);

	/* a writer migrates: version 4, the columns, the indexes, the old
	 * row kept
	 */
	assert_int_equal(nstore_open(path, NSTORE_SYNC_NORMAL, &rw), 0);
	assert_int_equal(sql_int(path, "SELECT value FROM meta"
				 " WHERE key = 'schema_version'"), 4);
	assert_int_equal(sql_int(path, "SELECT count(*) FROM"
				 " pragma_table_info('dumps') WHERE name IN"
				 " ('collectors', 'conflicts', 'pieces')"), 3);
	assert_int_equal(sql_int(path, "SELECT count(*) FROM sqlite_master"
				 " WHERE type = 'index' AND name IN"
				 " ('dumps_sig3', 'dumps_time3', 'dumps_host3',"
				 " 'dumps_release3')"), 4);
	assert_int_equal(sql_int(path, "SELECT count(*) FROM sqlite_master"
				 " WHERE name IN ('dumps_sig', 'dumps_host')"),
			 0);
	assert_int_equal(sql_int(path, "SELECT count(*) FROM"
				 " pragma_table_info('dumps')"
				 " WHERE name = 'auth_key'"), 1);
	assert_int_equal(nstore_get(rw, got.id, &g), 0);
	assert_false(g->authenticated);
	assert_string_equal(g->hostname, "old-host");
	assert_memory_equal(g->log, "old\n", 4);
	nstore_dump_free(g);
	d = mk(15, 1, "new-host", "6.12", "s", true, 4);
	d->authenticated = true;
	d->auth_key_id = 7;
	assert_int_equal(nstore_put(rw, &d, 1, &dups), 0);
	assert_int_equal(dups, 0);
	nstore_close(rw);

	/* opened again (nothing left to migrate), and read back */
	assert_int_equal(nstore_open(path, 0, &rw), 0);
	nstore_close(rw);
	assert_int_equal(nstore_open(path, NSTORE_RDONLY, &ro), 0);
	assert_int_equal(nstore_get(ro, d->id, &g), 0);
	assert_true(g->authenticated);
	assert_int_equal(g->auth_key_id, 7);
	nstore_dump_free(g);
	flt.authenticated = 1;
	assert_int_equal(count_where(ro, &flt), 1);
	nstore_close(ro);
	nstore_dump_free(d);

	/* a new store is created at version 4 */
	assert_int_equal(sql_int(f->path, "SELECT value FROM meta"
				 " WHERE key = 'schema_version'"), 4);
}

static void test_render_gaps(void **state)
{
	struct nstore_dump *d = nstore_dump_new();
	char *t;
	size_t len;

	(void)state;
	d->log = strdup("abc\ndef");
	d->log_len = 7;
	assert_int_equal(nstore_dump_add_gap(d, 4, 1234), 0);
	assert_int_equal(nstore_dump_add_gap(d, 6, 10), 0);
	assert_int_equal(nstore_dump_add_gap(d, 7, 0), 0);
	assert_int_equal(nstore_render_log(d, &t, &len), 0);
	assert_string_equal(t, "abc\n[... 1234 bytes missing ...]\nde\n"
			    "[... 10 bytes missing ...]\nf\n"
			    "[... rest of the log missing ...]\n");
	assert_int_equal(len, strlen(t));
	free(t);
	nstore_dump_free(d);
}

static void test_reader_sees_writer(void **state)
{
	struct fx *f = *state;
	struct nstore_dump *d = mk(9, 9, "h", "r", "s", true, 4);
	struct nstore *ro;
	size_t dups;
	long n = 0;

	assert_int_equal(nstore_put(f->st, &d, 1, &dups), 0);
	assert_int_equal(nstore_open(f->path, NSTORE_RDONLY, &ro), 0);
	assert_int_equal(nstore_list(ro, NULL, NSTORE_WITH_LOG, count_cb, &n),
			 0);
	assert_int_equal(n, 1);
	nstore_close(ro);
	nstore_dump_free(d);
	assert_int_equal(nstore_open("/nonexistent/dir/x.db", NSTORE_RDONLY,
				     &ro), -ENOENT);
	assert_int_equal(nstore_open("mysql://db/x", 0, &ro),
			 -EPROTONOSUPPORT);
}

/* In a child as uid/gid 65534 when root (file modes do not bind root):
 * nstore_open(@path, @flags) must return @want.
 */
static void open_unprivileged(const char *path, unsigned int flags, int want)
{
	struct nstore *st;
	pid_t pid;
	int status;

	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		if (!geteuid() && (setgroups(0, NULL) || setgid(65534) ||
				   setuid(65534)))
			_exit(2);
		_exit(nstore_open(path, flags, &st) == want ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	if (WEXITSTATUS(status) == 2)
		skip();
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* What nstore_open() says about a location it cannot use (store.h). */
static void test_open_errors(void **state)
{
	struct fx *f = *state;
	char path[192], sub[160];
	struct nstore *st;
	FILE *fp;
	int i;

	snprintf(path, sizeof(path), "%s/junk.db", f->dir);
	fp = fopen(path, "w");
	assert_non_null(fp);
	for (i = 0; i < 4096; i++)
		fputc(i * 131 + 7, fp);
	fclose(fp);
	assert_int_equal(nstore_open(path, NSTORE_RDONLY, &st), -EBADMSG);
	assert_int_equal(nstore_open(path, 0, &st), -EBADMSG);
	assert_string_equal(nstore_open_strerror(-EBADMSG),
			    "not a netoops database");
	/* a reader does not take an empty file for a store */
	snprintf(path, sizeof(path), "%s/empty.db", f->dir);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fclose(fp);
	assert_int_equal(nstore_open(path, NSTORE_RDONLY, &st), -EBADMSG);
	assert_int_equal(nstore_open(f->dir, NSTORE_RDONLY, &st), -EISDIR);
	snprintf(path, sizeof(path), "%s/none.db", f->dir);
	assert_int_equal(nstore_open(path, NSTORE_RDONLY, &st), -ENOENT);
	snprintf(path, sizeof(path), "%s/nodir/n.db", f->dir);
	assert_int_equal(nstore_open(path, 0, &st), -ENOENT);
	/* not SQLite's "no such file" for what the modes forbid */
	assert_int_equal(chmod(f->dir, 0755), 0);
	snprintf(sub, sizeof(sub), "%s/ro", f->dir);
	assert_int_equal(mkdir(sub, 0555), 0);
	snprintf(path, sizeof(path), "%s/n.db", sub);
	open_unprivileged(path, 0, -EACCES);
	assert_int_equal(chmod(f->path, 0), 0);
	open_unprivileged(f->path, NSTORE_RDONLY, -EACCES);
	assert_int_equal(chmod(f->path, 0644), 0);
}

static void test_helpers(void **state)
{
	uint8_t id[16], back[16];
	char hex[33];
	int i;

	(void)state;
	for (i = 0; i < 16; i++)
		id[i] = i * 17;
	nstore_boot_id_hex(id, hex);
	assert_string_equal(hex, "00112233445566778899aabbccddeeff");
	assert_int_equal(nstore_boot_id_parse(
		"00112233-4455-6677-8899-AABBCCDDEEFF", back), 0);
	assert_memory_equal(id, back, 16);
	assert_int_equal(nstore_boot_id_parse("0011", back), -EINVAL);
	assert_int_equal(nstore_reason_parse("panic"), NETOOPS_REASON_PANIC);
	assert_int_equal(nstore_reason_parse("2"), NETOOPS_REASON_OOPS);
	assert_int_equal(nstore_reason_parse("bogus"), -EINVAL);
	assert_string_equal(nstore_reason_name(NETOOPS_REASON_OOPS), "oops");
	assert_string_equal(nstore_reason_name(999), "unknown");
	assert_string_equal(nstore_reg_name(NETOOPS_ARCH_X86_64,
					    NETOOPS_X86_64_REG_RIP), "rip");
	assert_string_equal(nstore_reg_name(NETOOPS_ARCH_ARM64, 33), "pstate");
	assert_null(nstore_reg_name(NETOOPS_ARCH_X86_64, 40));
}

/* ---- retention, file size, order and globs ---------------------------- */

#define DAY_MS	86400000LL

/* A dump of host @host received at @ms with @log_len bytes of log text
 * that deflate cannot shrink much (as real logs with addresses).
 */
static struct nstore_dump *mk_at(int n, const char *host, const char *sig,
				 int64_t ms, size_t log_len)
{
	struct nstore_dump *d = mk(1, n, host, "6.12.0-test", sig, true, 4);

	memset(d->boot_id, 0, 16);
	memcpy(d->boot_id, &n, sizeof(n));
	d->received_ms = ms;
	if (log_len) {
		free(d->log);
		d->log = malloc(log_len + 1);
		assert_non_null(d->log);
		gen_noise(d->log, log_len, n);
		d->log_len = log_len;
	}
	return d;
}

struct seen {
	int64_t ids[512];
	int64_t ms[512];
	int n;
};

static int seen_cb(const struct nstore_dump *d, void *arg)
{
	struct seen *x = arg;

	assert_true(x->n < 512);
	assert_non_null(d->hostname);
	x->ids[x->n] = d->id;
	x->ms[x->n++] = d->received_ms;
	return 0;
}


/* Dumps 0..9 received 0..9 days ago (plus an hour): prune by age removes
 * exactly those older than the limit, and the buckets count what is left.
 */
static void test_prune_age(void **state)
{
	struct fx *f = *state;
	int64_t now = 1764756000000LL, removed[4];
	struct nstore_prune_result res;
	struct nstore_prune p = { 0 };
	struct nstore_dump *d[10];
	struct nstore *ro;
	struct seen gone = { .n = 0 }, left = { .n = 0 };
	struct bk k = { 0 };
	int i;

	for (i = 0; i < 10; i++) {
		d[i] = mk_at(i, i % 2 ? "odd" : "even", i < 3 ? "new" : "old",
			     now - i * DAY_MS - 3600000, 0);
		assert_int_equal(nstore_put(f->st, &d[i], 1, NULL), 0);
	}
	for (i = 0; i < 4; i++)
		removed[i] = d[6 + i]->id;
	/* A reader cannot prune. */
	assert_int_equal(nstore_open(f->path, NSTORE_RDONLY, &ro), 0);
	p.before_ms = now - 5 * DAY_MS - 12 * 3600000LL;
	assert_int_equal(nstore_prune(ro, &p, NULL, NULL, &res), -EROFS);
	nstore_close(ro);

	assert_int_equal(nstore_prune(f->st, &p, seen_cb, &gone, &res), 0);
	assert_int_equal(res.by_age, 4);
	assert_int_equal(res.by_size, 0);
	assert_int_equal(gone.n, 4);
	for (i = 0; i < 4; i++) {
		int j, hit = 0;

		for (j = 0; j < 4; j++)
			hit += gone.ids[j] == removed[i];
		assert_int_equal(hit, 1);
	}
	assert_int_equal(nstore_list(f->st, NULL, 0, seen_cb, &left), 0);
	assert_int_equal(left.n, 6);
	for (i = 0; i < 6; i++)
		assert_int_equal(left.ids[i], d[i]->id);
	/* "old" had dumps 3..9, now 3..5; "new" untouched */
	assert_int_equal(nstore_buckets(f->st, NULL, bucket_cb, &k), 0);
	assert_int_equal(k.n, 2);
	assert_string_equal(k.hash[0], "new");
	assert_int_equal(k.count[0], 3);
	assert_string_equal(k.hash[1], "old");
	assert_int_equal(k.count[1], 3);
	/* Again: nothing more to remove. */
	assert_int_equal(nstore_prune(f->st, &p, NULL, NULL, &res), 0);
	assert_int_equal(res.by_age, 0);
	/* Everything, newest included: the next dump gets a new id, not
	 * the id of one that was removed.
	 */
	p.before_ms = INT64_MAX;
	assert_int_equal(nstore_prune(f->st, &p, NULL, NULL, &res), 0);
	assert_int_equal(res.by_age, 6);
	assert_int_equal(res.dumps_left, 0);
	d[0]->id = 0;
	d[0]->dump_id = 99;
	assert_int_equal(nstore_put(f->st, &d[0], 1, NULL), 0);
	assert_int_equal(d[0]->id, d[9]->id + 1);
	for (i = 0; i < 10; i++)
		nstore_dump_free(d[i]);
}

/*
 * 300 dumps of 8 KiB of log: --max-bytes 512 KiB leaves the newest that
 * fit and the files (database, -wal, -shm) under the limit on disk.
 * @old_format: the store was made without auto_vacuum (before retention):
 * the first prune converts it.
 */
static void prune_size(struct fx *f, bool old_format)
{
	const int64_t max = 512 * 1024, now = 1764756000000LL;
	struct nstore_prune_result res;
	struct nstore_prune p = { .max_bytes = max };
	struct nstore_stats stats;
	struct seen left = { .n = 0 };
	struct nstore_dump *d;
	int64_t before, av = -1;
	sqlite3 *db;
	sqlite3_stmt *q;
	int i;

	for (i = 0; i < 300; i++) {
		d = mk_at(i, "h", "s", now + i, 8192);
		assert_int_equal(nstore_put(f->st, &d, 1, NULL), 0);
		nstore_dump_free(d);
	}
	if (old_format) {
		nstore_close(f->st);
		assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
		assert_int_equal(sqlite3_exec(db, "PRAGMA auto_vacuum=NONE;"
					      " VACUUM", NULL, NULL, NULL),
				 SQLITE_OK);
		sqlite3_close(db);
		assert_int_equal(nstore_open(f->path, NSTORE_SYNC_NORMAL,
					     &f->st), 0);
	}
	before = harness_disk_bytes(f->path);
	assert_true(before > 4 * max);
	assert_int_equal(nstore_prune(f->st, &p, NULL, NULL, &res), 0);
	print_message("prune %s: %lld -> %lld bytes on disk, %ld dumps"
		      " removed\n", old_format ? "(converted)" : "",
		      (long long)res.bytes_before, (long long)res.bytes_after,
		      res.by_size);
	assert_int_equal(res.by_age, 0);
	assert_int_equal(res.bytes_before, before);
	assert_true(res.bytes_after <= max);
	assert_int_equal(harness_disk_bytes(f->path), res.bytes_after);
	assert_int_equal(nstore_stats(f->st, &stats), 0);
	assert_int_equal(stats.file_bytes, res.bytes_after);
	/* The newest stayed, and not needlessly few of them. */
	assert_int_equal(nstore_list(f->st, NULL, 0, seen_cb, &left), 0);
	assert_int_equal(left.n + res.by_size, 300);
	assert_true(left.n * 8192 > max / 2);
	for (i = 0; i < left.n; i++)
		assert_int_equal(left.ms[i], now + res.by_size + i);
	/* Incremental vacuum from now on. */
	assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA auto_vacuum", -1, &q,
					    NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(q), SQLITE_ROW);
	av = sqlite3_column_int64(q, 0);
	sqlite3_finalize(q);
	sqlite3_close(db);
	assert_int_equal(av, 2);
}

static void test_prune_size(void **state)
{
	prune_size(*state, false);
}

static void test_prune_size_old_store(void **state)
{
	prune_size(*state, true);
}

/* stats counts the WAL and -shm files, where recent commits are. */
static void test_stats_wal(void **state)
{
	struct fx *f = *state;
	struct nstore_stats s;
	struct nstore_dump *d = mk_at(1, "h", "s", 1, 65536);
	char wal[300];
	struct stat db, w;

	assert_int_equal(nstore_put(f->st, &d, 1, NULL), 0);
	nstore_dump_free(d);
	snprintf(wal, sizeof(wal), "%s-wal", f->path);
	assert_int_equal(stat(f->path, &db), 0);
	assert_int_equal(stat(wal, &w), 0);
	assert_true(w.st_size > 65536);	/* not checkpointed yet */
	assert_int_equal(nstore_stats(f->st, &s), 0);
	assert_int_equal(s.file_bytes, harness_disk_bytes(f->path));
	assert_true(s.file_bytes > db.st_size + 65536);
}

static int one_bucket_cb(const struct nstore_bucket *b, void *arg)
{
	(void)b;
	(*(long *)arg)++;
	return 0;
}

static int one_row_cb(const struct nstore_count_row *r, void *arg)
{
	(void)r;
	(*(long *)arg)++;
	return 0;
}

/*
 * Every query that takes a filter, on filter @flt: @want from list,
 * buckets and count alike (0 when it matches).
 */
static void filter_refused(struct nstore *st, const struct nstore_filter *flt,
			   int want)
{
	long n = 0;

	assert_int_equal(nstore_list(st, flt, 0, count_cb, &n), want);
	assert_int_equal(nstore_buckets(st, flt, one_bucket_cb, &n), want);
	assert_int_equal(nstore_count(st, flt, NSTORE_BY_HOST, 0, one_row_cb,
				      &n), want);
	assert_int_equal(nstore_count(st, flt, NSTORE_BY_TIME, 3600000,
				      one_row_cb, &n), want);
}

/*
 * Patterns that cost a store's matcher exponential or quadratic time: 200
 * '*', a 100 KB pattern.  Both stores refuse a --host or --kernel over 256
 * bytes (-ENAMETOOLONG) or with more than 32 wildcards and [...] sets
 * (-E2BIG), in list, buckets and count, at once; at the limits they match
 * as before.  A --bucket is a prefix: only its length counts.
 */
static void test_glob_limits(void **state)
{
	struct fx *f = *state;
	struct nstore_filter flt;
	struct nstore_dump *d;
	char *big, p[400];
	struct timespec t0, t1;
	size_t i;

	d = mk_at(1, "web-1", "s", 1000, 0);
	assert_int_equal(nstore_put(f->st, &d, 1, NULL), 0);
	nstore_dump_free(d);
	nstore_filter_init(&flt);

	/* 32 '*' and a literal: matches; 33: refused, kernel alike */
	memset(p, '*', 32);
	strcpy(p + 32, "web-1");
	flt.host = p;
	assert_int_equal(nstore_glob_check(p), 0);
	assert_int_equal(count_where(f->st, &flt), 1);
	filter_refused(f->st, &flt, 0);
	memmove(p + 1, p, strlen(p) + 1);
	assert_int_equal(nstore_glob_check(p), -E2BIG);
	filter_refused(f->st, &flt, -E2BIG);
	flt.host = NULL;
	flt.kernel = p;
	filter_refused(f->st, &flt, -E2BIG);
	flt.kernel = NULL;

	/* 200 '*', then "?" and sets: each counts one, whatever a set holds */
	memset(p, '*', 200);
	p[200] = 0;
	flt.host = p;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	filter_refused(f->st, &flt, -E2BIG);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	assert_true(t1.tv_sec - t0.tv_sec < 2);
	for (i = 0; i < 32; i++)
		memcpy(p + 3 * i, i % 2 ? "[*]" : "[?]", 3);
	strcpy(p + 96, "web-1");
	assert_int_equal(count_where(f->st, &flt), 0);
	strcpy(p, "[]*?[^a-z]w][-*?]?eb-1");	/* 2 sets, 1 '?' */
	assert_int_equal(nstore_glob_check(p), 0);
	memset(p, '?', 33);
	p[33] = 0;
	assert_int_equal(nstore_glob_check(p), -E2BIG);
	strcpy(p, "w[");			/* unclosed: one set */
	assert_int_equal(nstore_glob_check(p), 0);
	assert_int_equal(count_where(f->st, &flt), 0);

	/* 256 bytes with 32 wildcards: matches nothing, no error; 257: refused */
	memset(p, 'x', 256);
	memset(p, '?', 32);
	p[256] = 0;
	assert_int_equal(count_where(f->st, &flt), 0);
	p[256] = 'x';
	p[257] = 0;
	filter_refused(f->st, &flt, -ENAMETOOLONG);

	/* 100 KB: refused as too long, not scanned for wildcards first */
	big = malloc(100 * 1024 + 1);
	assert_non_null(big);
	memset(big, '*', 100 * 1024);
	big[100 * 1024] = 0;
	flt.host = big;
	filter_refused(f->st, &flt, -ENAMETOOLONG);
	flt.host = NULL;

	/* a bucket prefix: '*' and '?' are literal, only 256 bytes count */
	memset(big, '?', 256);
	big[256] = 0;
	flt.bucket = big;
	filter_refused(f->st, &flt, 0);
	big[256] = '?';
	big[257] = 0;
	filter_refused(f->st, &flt, -ENAMETOOLONG);
	free(big);
}

/* Newest first with a limit; --host and --kernel as globs. */
static void test_order_glob(void **state)
{
	struct fx *f = *state;
	static const char *const hosts[] = { "web-1", "web-2", "db-1",
					     "we*b", "web-3" };
	struct nstore_filter flt;
	struct nstore_dump *d;
	struct seen x = { .n = 0 };
	int64_t last = -1;
	int i;

	assert_int_equal(nstore_last_id(f->st, &last), 0);
	assert_int_equal(last, 0);
	for (i = 0; i < 5; i++) {
		/* received out of id order: dump 4 arrived first */
		d = mk_at(i, hosts[i], "s", 1000 + (i == 4 ? -500 : i), 0);
		assert_int_equal(nstore_put(f->st, &d, 1, NULL), 0);
		nstore_dump_free(d);
	}
	nstore_filter_init(&flt);
	flt.newest_first = true;
	flt.limit = 2;
	assert_int_equal(nstore_list(f->st, &flt, 0, seen_cb, &x), 0);
	assert_int_equal(x.n, 2);
	assert_int_equal(x.ms[0], 1003);
	assert_int_equal(x.ms[1], 1002);
	nstore_filter_init(&flt);
	flt.host = "web-*";
	assert_int_equal(count_where(f->st, &flt), 3);
	flt.host = "web-[12]";
	assert_int_equal(count_where(f->st, &flt), 2);
	flt.host = "we*b";		/* '*' is a wildcard: web-1.. no */
	assert_int_equal(count_where(f->st, &flt), 1);
	flt.host = "we[*]*";		/* a literal '*' */
	assert_int_equal(count_where(f->st, &flt), 1);
	flt.host = "db-1";		/* no wildcard: exact */
	assert_int_equal(count_where(f->st, &flt), 1);
	flt.host = "DB-1";		/* case matters */
	assert_int_equal(count_where(f->st, &flt), 0);
	flt.host = NULL;
	flt.kernel = "6.12.*";
	assert_int_equal(count_where(f->st, &flt), 5);
	flt.kernel = "6.1";
	assert_int_equal(count_where(f->st, &flt), 0);
	/* after_id: what watch asks for, from the last id */
	assert_int_equal(nstore_last_id(f->st, &last), 0);
	assert_int_equal(last, 5);
	nstore_filter_init(&flt);
	flt.after_id = 3;
	assert_int_equal(count_where(f->st, &flt), 2);
}

struct counted_rows {
	int n;
	int64_t slot[16];
	char key[16][16];
	bool null_key[16];
	long count[16], buckets[16];
	int64_t last[16];
};

static int rows_cb(const struct nstore_count_row *r, void *arg)
{
	struct counted_rows *c = arg;

	assert_true(c->n < 16);
	c->slot[c->n] = r->slot_ms;
	c->null_key[c->n] = !r->key;
	snprintf(c->key[c->n], sizeof(c->key[0]), "%s", r->key ?: "");
	c->count[c->n] = r->count;
	c->buckets[c->n] = r->buckets;
	c->last[c->n] = r->last_ms;
	c->n++;
	return 0;
}

static int stop_cb(const struct nstore_count_row *r, void *arg)
{
	(void)r;
	(*(int *)arg)++;
	return 42;
}

/* One dump, host "h", signature "s", received at each of @ms[0..@n). */
static void put_at_times(struct nstore *st, const int64_t *ms, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct nstore_dump *d = mk_at((int)i, "h", "s", ms[i], 0);

		assert_int_equal(nstore_put(st, &d, 1, NULL), 0);
		nstore_dump_free(d);
	}
}

/*
 * nstore_count() by time with a step near INT64_MAX (the web's
 * step=9223372036854775 seconds): slots are floor(received_ms / step) *
 * step on both stores, computed without overflow (SQLite's old key went
 * to REAL: one slot per dump); a slot below INT64_MIN is INT64_MIN.
 */
static void test_count_huge_step(void **state)
{
	static const int64_t ms[] = {
		1000, 1764756000000LL, -1, INT64_MAX, INT64_MIN,
	};
	const int64_t s1 = 9223372036854775LL * 1000;
	struct fx *f = *state;
	struct counted_rows c;

	put_at_times(f->st, ms, sizeof(ms) / sizeof(ms[0]));
	memset(&c, 0, sizeof(c));
	assert_int_equal(nstore_count(f->st, NULL, NSTORE_BY_TIME, s1,
				      rows_cb, &c), 0);
	assert_int_equal(c.n, 4);
	assert_true(c.slot[0] == INT64_MIN);	/* -2 * s1: below */
	assert_int_equal(c.count[0], 1);
	assert_true(c.slot[1] == -s1);
	assert_int_equal(c.count[1], 1);
	assert_true(c.slot[2] == 0);
	assert_int_equal(c.count[2], 2);
	assert_true(c.slot[3] == s1);
	assert_int_equal(c.count[3], 1);
	memset(&c, 0, sizeof(c));
	assert_int_equal(nstore_count(f->st, NULL, NSTORE_BY_TIME, INT64_MAX,
				      rows_cb, &c), 0);
	assert_int_equal(c.n, 4);
	assert_true(c.slot[0] == INT64_MIN);
	assert_true(c.slot[1] == -INT64_MAX);
	assert_true(c.slot[2] == 0);
	assert_int_equal(c.count[2], 2);
	assert_true(c.slot[3] == INT64_MAX);
	memset(&c, 0, sizeof(c));
	assert_int_equal(nstore_count(f->st, NULL, NSTORE_BY_TIME, 1,
				      rows_cb, &c), 0);
	assert_int_equal(c.n, 5);
	assert_true(c.slot[0] == INT64_MIN);
	assert_true(c.slot[4] == INT64_MAX);
}

/*
 * The web's rate plot: each slot of nstore_count() into one of 30 daily
 * bars by nstore_slot_index(), for dumps received at the extremes a store
 * can hold (INT64_MIN, 1969, 1970, far ahead, INT64_MAX): only those of
 * the last 30 days land, none overflows (UBSan aborted on INT64_MIN -
 * start).  Then the index itself at the corners.
 */
static void test_slot_extremes(void **state)
{
	const int64_t day = 86400000LL, now = 1764756000123LL;
	const int64_t start = now - now % day - 29 * day;
	const int64_t ms[] = {
		INT64_MIN, INT64_MIN + 1, -day, -1, 0 + 1, start - 1, start,
		now, now + day, INT64_MAX - 1, INT64_MAX,
	};
	struct fx *f = *state;
	struct counted_rows c;
	long bars[30] = { 0 }, i, drawn = 0;
	size_t k;

	put_at_times(f->st, ms, sizeof(ms) / sizeof(ms[0]));
	memset(&c, 0, sizeof(c));
	assert_int_equal(nstore_count(f->st, NULL, NSTORE_BY_TIME, day,
				      rows_cb, &c), 0);
	assert_true(c.n >= 8);
	for (k = 0; k < (size_t)c.n; k++) {
		i = nstore_slot_index(c.slot[k], start, day, 30);
		assert_true(i >= -1 && i < 30);
		if (i >= 0) {
			bars[i] += c.count[k];
			drawn += c.count[k];
		}
	}
	assert_int_equal(drawn, 2);
	assert_int_equal(bars[0], 1);
	assert_int_equal(bars[29], 1);

	assert_int_equal(nstore_slot_index(INT64_MIN, INT64_MAX, 1, 30), -1);
	assert_int_equal(nstore_slot_index(INT64_MIN, start, day, 30), -1);
	assert_int_equal(nstore_slot_index(INT64_MAX, start, day, 30), -1);
	assert_int_equal(nstore_slot_index(INT64_MAX, INT64_MIN, INT64_MAX,
					   30), 2);
	assert_int_equal(nstore_slot_index(INT64_MAX, INT64_MIN, 1, 30), -1);
	assert_int_equal(nstore_slot_index(0, INT64_MIN, INT64_MAX, 30), 1);
	assert_int_equal(nstore_slot_index(start - 1, start, day, 30), -1);
	assert_int_equal(nstore_slot_index(start, start, day, 30), 0);
	assert_int_equal(nstore_slot_index(start + 30 * day - 1, start, day,
					   30), 29);
	assert_int_equal(nstore_slot_index(start + 30 * day, start, day, 30),
			 -1);
	assert_int_equal(nstore_slot_index(start, start, 0, 30), -1);
	assert_int_equal(nstore_slot_index(start, start, -day, 30), -1);
	assert_int_equal(nstore_slot_index(start, start, day, 0), -1);
}

/* nstore_count(): slots, ordering, NULL keys, filters, limit, errors. */
static void test_count(void **state)
{
	static const struct {
		const char *host, *rel, *sig;
		int64_t ms;
	} rows[] = {
		{ "b", "6.12", "s1", 1000 },	/* slot 1000 */
		{ "b", "6.12", "s1", 1999 },	/* slot 1000 */
		{ "a", "6.1", "s2", 1500 },	/* slot 1000 */
		{ "a", "6.1", NULL, 5000 },	/* slot 5000 */
		{ "c", NULL, "s1", -1 },	/* slot -1000: floor */
		{ NULL, NULL, "s3", 5999 },	/* slot 5000 */
		{ "c", "6.12", "s3", 3000 },	/* slot 3000 */
	};
	struct fx *f = *state;
	struct nstore_filter flt;
	struct counted_rows c;
	size_t i;
	int calls = 0;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct nstore_dump *d = mk_at(i, "x", "x", rows[i].ms, 0);

		free(d->hostname);
		free(d->release);
		free(d->sig_hash);
		d->hostname = rows[i].host ? strdup(rows[i].host) : NULL;
		d->release = rows[i].rel ? strdup(rows[i].rel) : NULL;
		d->sig_hash = rows[i].sig ? strdup(rows[i].sig) : NULL;
		assert_int_equal(nstore_put(f->st, &d, 1, NULL), 0);
		nstore_dump_free(d);
	}

	memset(&c, 0, sizeof(c));
	assert_int_equal(nstore_count(f->st, NULL, NSTORE_BY_TIME, 1000,
				      rows_cb, &c), 0);
	assert_int_equal(c.n, 4);	/* empty slots omitted */
	assert_int_equal(c.slot[0], -1000);
	assert_int_equal(c.count[0], 1);
	assert_int_equal(c.slot[1], 1000);
	assert_int_equal(c.count[1], 3);
	assert_int_equal(c.buckets[1], 2);
	assert_int_equal(c.last[1], 1999);
	assert_int_equal(c.slot[2], 3000);
	assert_int_equal(c.slot[3], 5000);
	assert_int_equal(c.count[3], 2);
	assert_int_equal(c.buckets[3], 1);	/* NULL sig_hash not counted_rows */
	assert_int_equal(c.last[3], 5999);
	assert_true(c.null_key[0]);

	/* by host: count desc, then key, NULL last */
	memset(&c, 0, sizeof(c));
	assert_int_equal(nstore_count(f->st, NULL, NSTORE_BY_HOST, 0,
				      rows_cb, &c), 0);
	assert_int_equal(c.n, 4);
	assert_string_equal(c.key[0], "a");
	assert_int_equal(c.count[0], 2);
	assert_int_equal(c.buckets[0], 1);
	assert_int_equal(c.last[0], 5000);
	assert_string_equal(c.key[1], "b");
	assert_string_equal(c.key[2], "c");
	assert_int_equal(c.count[2], 2);
	assert_int_equal(c.buckets[2], 2);
	assert_int_equal(c.last[2], 3000);
	assert_true(c.null_key[3]);
	assert_int_equal(c.count[3], 1);

	/* by kernel, filtered and limited */
	memset(&c, 0, sizeof(c));
	assert_int_equal(nstore_count(f->st, NULL, NSTORE_BY_KERNEL, -5,
				      rows_cb, &c), 0);	/* step ignored */
	assert_int_equal(c.n, 3);
	assert_string_equal(c.key[0], "6.12");
	assert_int_equal(c.count[0], 3);
	assert_true(c.null_key[1] == false);
	assert_string_equal(c.key[1], "6.1");
	assert_true(c.null_key[2]);
	assert_int_equal(c.count[2], 2);
	nstore_filter_init(&flt);
	flt.since_ms = 1500;
	flt.until_ms = 5000;
	flt.limit = 1;
	memset(&c, 0, sizeof(c));
	assert_int_equal(nstore_count(f->st, &flt, NSTORE_BY_KERNEL, 0,
				      rows_cb, &c), 0);
	assert_int_equal(c.n, 1);
	assert_string_equal(c.key[0], "6.12");
	assert_int_equal(c.count[0], 2);
	nstore_filter_init(&flt);
	flt.bucket = "s1";
	flt.host = "[bc]";
	memset(&c, 0, sizeof(c));
	assert_int_equal(nstore_count(f->st, &flt, NSTORE_BY_TIME, 2000,
				      rows_cb, &c), 0);
	assert_int_equal(c.n, 2);
	assert_int_equal(c.slot[0], -2000);
	assert_int_equal(c.slot[1], 0);
	assert_int_equal(c.count[1], 2);
	flt.limit = 1;
	memset(&c, 0, sizeof(c));
	assert_int_equal(nstore_count(f->st, &flt, NSTORE_BY_TIME, 2000,
				      rows_cb, &c), 0);
	assert_int_equal(c.n, 1);	/* the oldest */
	assert_int_equal(c.slot[0], -2000);

	/* a callback's non-zero value stops and is returned */
	assert_int_equal(nstore_count(f->st, NULL, NSTORE_BY_HOST, 0,
				      stop_cb, &calls), 42);
	assert_int_equal(calls, 1);

	assert_int_equal(nstore_count(f->st, NULL, NSTORE_BY_TIME, 0,
				      rows_cb, &c), -EINVAL);
	assert_int_equal(nstore_count(f->st, NULL, NSTORE_BY_TIME, -1,
				      rows_cb, &c), -EINVAL);
	assert_int_equal(nstore_count(f->st, NULL, (enum nstore_group)99, 1,
				      rows_cb, &c), -EINVAL);
}

/* ---- PostgreSQL ------------------------------------------------------- */

/* Until child @pid exits; its exit status (-1 if it did not exit). */
static int child_status(pid_t pid)
{
	int status;

	assert_int_equal(waitpid(pid, &status, 0), pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/*
 * setup() migrated an empty database; opening it again changes nothing;
 * collectors opening an empty database at once migrate it once.
 */
static void test_pg_migrate(void **state)
{
	struct fx *f = *state;
	struct nstore_dump *d = mk(1, 1, "h", "r", "s", true, 4);
	struct nstore *ro;
	pid_t pid[4];
	int i;

	assert_int_equal(pg_sql("SELECT max(version) FROM"
				" netoops_schema_version"), 2);
	assert_int_equal(nstore_put(f->st, &d, 1, NULL), 0);
	nstore_close(f->st);
	/* a version 1 database (before merging) read without migrating,
	 * then migrated by a writer, its row kept
	 */
	pg_sql("ALTER TABLE dumps DROP COLUMN collectors, DROP COLUMN"
	       " conflicts, DROP COLUMN pieces");
	pg_sql("DELETE FROM netoops_schema_version WHERE version = 2");
	assert_int_equal(nstore_open(f->path, NSTORE_RDONLY, &ro), 0);
	assert_int_equal(count_where(ro, NULL), 1);
	nstore_close(ro);
	assert_int_equal(nstore_open(f->path, 0, &f->st), 0);
	assert_int_equal(pg_sql("SELECT count(*) FROM information_schema"
				".columns WHERE table_name = 'dumps' AND"
				" column_name IN ('collectors', 'conflicts',"
				" 'pieces')"), 3);
	nstore_close(f->st);
	assert_int_equal(nstore_open(f->path, 0, &f->st), 0);
	assert_int_equal(nstore_open(f->path, NSTORE_RDONLY, &ro), 0);
	assert_int_equal(pg_sql("SELECT count(*) FROM"
				" netoops_schema_version"), 2);
	assert_int_equal(count_where(ro, NULL), 1);
	assert_int_equal(nstore_put(ro, &d, 1, NULL), -EROFS);
	nstore_close(ro);
	nstore_close(f->st);
	f->st = NULL;

	pg_empty();
	for (i = 0; i < 4; i++) {
		pid[i] = fork();
		assert_true(pid[i] >= 0);
		if (!pid[i]) {
			struct nstore *st;
			int r;

			d->dump_id = 10 + i;
			r = nstore_open(f->path, 0, &st);
			if (!r)
				r = nstore_put(st, &d, 1, NULL);
			nstore_close(st);
			_exit(r ? 1 : 0);
		}
	}
	for (i = 0; i < 4; i++)
		assert_int_equal(child_status(pid[i]), 0);
	assert_int_equal(pg_sql("SELECT count(*) FROM"
				" netoops_schema_version"), 2);
	assert_int_equal(pg_sql("SELECT count(*) FROM dumps"), 4);
	assert_int_equal(nstore_open(f->path, 0, &f->st), 0);
	nstore_dump_free(d);
}

/* What nstore_open() says about a database it cannot use (store.h). */
static void test_pg_open_errors(void **state)
{
	const char *dir = getenv("NETOOPS_PG_DIR");
	struct fx *f = *state;
	struct nstore *st;
	char loc[300];

	if (!dir) {
		print_message("  no NETOOPS_PG_DIR: run under pg_cluster.sh\n");
		skip();
	}
	snprintf(loc, sizeof(loc), "pg:host=%s user=netoops dbname=nodb", dir);
	assert_int_equal(nstore_open(loc, NSTORE_RDONLY, &st), -ENOENT);
	assert_int_equal(nstore_open(loc, 0, &st), -ENOENT);
	snprintf(loc, sizeof(loc), "pg:host=%s user=norole dbname=netoops",
		 dir);
	assert_int_equal(nstore_open(loc, 0, &st), -EACCES);
	assert_int_equal(nstore_open("pg:host", 0, &st), -EINVAL);
	/* a database that would not take every UTF-8 text */
	pg_sql("DROP DATABASE IF EXISTS latin1");
	pg_sql("CREATE DATABASE latin1 ENCODING 'LATIN1' TEMPLATE template0"
	       " LC_COLLATE 'C' LC_CTYPE 'C'");
	snprintf(loc, sizeof(loc), "pg:host=%s user=netoops dbname=latin1",
		 dir);
	assert_int_equal(nstore_open(loc, 0, &st), -EILSEQ);
	assert_string_equal(nstore_open_strerror(-EILSEQ), "database encoding"
			    " is neither UTF8 nor SQL_ASCII");
	assert_int_equal(nstore_open("postgresql://h/d?nosuchoption=1", 0,
				     &st), -EINVAL);
	nstore_close(f->st);
	f->st = NULL;
	/* a reader neither takes an empty database for a store nor
	 * creates one
	 */
	pg_empty();
	assert_int_equal(nstore_open(f->path, NSTORE_RDONLY, &st), -EBADMSG);
	assert_int_equal(pg_sql("SELECT count(*) FROM pg_tables WHERE"
				" tablename IN ('dumps',"
				" 'netoops_schema_version')"), 0);
	/* another program's table named dumps */
	pg_sql("CREATE TABLE dumps(x int)");
	assert_int_equal(nstore_open(f->path, 0, &st), -EBADMSG);
	assert_int_equal(nstore_open(f->path, NSTORE_RDONLY, &st), -EBADMSG);
	assert_string_equal(nstore_open_strerror(-EBADMSG),
			    "not a netoops database");
	pg_empty();
	assert_int_equal(nstore_open(f->path, 0, &f->st), 0);
}

/* The log byte for byte (NUL, bytes that are not UTF-8), plain or kept
 * deflated; metadata that is not UTF-8 with '?' for the stray bytes.
 */
static void test_pg_lossless(void **state)
{
	static const char log[] = "a\0b\xff\xc3\x28 \x80 \xe2\x82\xac end\n";
	struct fx *f = *state;
	struct nstore_dump *d = mk(3, 1, "h\xff\xfe-\xc3\xa9", "6.12", "s",
				   true, 4);
	struct nstore_dump *z = mk(3, 2, "h", "6.12", "s", true, 4), *g;

	free(d->log);
	d->log = malloc(sizeof(log));
	memcpy(d->log, log, sizeof(log));
	d->log_len = sizeof(log) - 1;
	free(z->log);
	z->log = NULL;
	z->log_len = sizeof(log) - 1;
	assert_int_equal(gen_deflate(log, z->log_len, 6, &z->log_z,
				     &z->log_z_len), 0);
	assert_int_equal(nstore_put(f->st, &d, 1, NULL), 0);
	assert_int_equal(nstore_put(f->st, &z, 1, NULL), 0);

	assert_int_equal(nstore_get(f->st, d->id, &g), 0);
	assert_int_equal(g->log_len, sizeof(log) - 1);
	assert_memory_equal(g->log, log, sizeof(log) - 1);
	assert_string_equal(g->hostname, "h?" "?-\xc3\xa9");
	nstore_dump_free(g);
	assert_int_equal(nstore_get(f->st, z->id, &g), 0);
	assert_int_equal(g->log_len, sizeof(log) - 1);
	assert_memory_equal(g->log, log, sizeof(log) - 1);
	nstore_dump_free(g);
	assert_int_equal(pg_sql("SELECT octet_length(log) FROM dumps"
				" WHERE dump_id = 1"), sizeof(log) - 1);
	assert_int_equal(pg_sql("SELECT log_enc FROM dumps"
				" WHERE dump_id = 2"), 1);
	nstore_dump_free(d);
	nstore_dump_free(z);
}

/* --host/--kernel select on PostgreSQL what SQLite's GLOB selects. */
static void test_pg_glob(void **state)
{
	static const char *const hosts[] = {
		"web-1", "web-2", "db-1", "we*b", "web-3", "a]b", "a-b",
		"a^b", "x.y", "x?y", "a\\b", "\xc3\xbf\xc3\xbc",
		"\xe4\xb8\xad\xe6\x96\x87", "[x]", "a$", "(p)", "b+c",
		"a|b", "{1}", "A-B", "", "-", "]", "web-10",
	};
	static const char *const globs[] = {
		"*", "web-*", "web-[12]", "we[*]*", "we*b", "[]]*", "a[]-]b",
		"a[^-]b", "[^a-c]*", "[c-a]*", "[a-]b", "a[-]b", "x.y",
		"x?y", "x[.?]y", "a\\b", "a\\*", "*[", "[", "[^]]*",
		"\xe4\xb8\xad*", "?\xe6\x96\x87", "[\xc3\xbf-\xc3\xbf]?",
		"*[0-9]", "[[]x]", "(p)", "b+c", "a$", "a|b", "{1}", "?",
		"??", "", "[a-b-c]*", "[^]", "*-*", "[A-Za-z]-[A-Za-z]",
		"[^a-zA-Z0-9]*", "web-?", "web-??", "[\\]*", "*.*",
		"[w][e][b]*", "[-]", "[]]", "[]-]*", "^*", "*\\*",
	};
	struct fx *f = *state;
	struct nstore_filter flt;
	struct nstore_dump *d;
	struct nstore *sq;
	char path[160];
	size_t i;
	long a, b;

	snprintf(path, sizeof(path), "%s/glob.db", f->dir);
	assert_int_equal(nstore_open(path, NSTORE_SYNC_NORMAL, &sq), 0);
	for (i = 0; i < sizeof(hosts) / sizeof(hosts[0]); i++) {
		d = mk_at(i, hosts[i], "s", 1000 + i, 0);
		assert_int_equal(nstore_put(f->st, &d, 1, NULL), 0);
		assert_int_equal(nstore_put(sq, &d, 1, NULL), 0);
		nstore_dump_free(d);
	}
	nstore_filter_init(&flt);
	for (i = 0; i < sizeof(globs) / sizeof(globs[0]); i++) {
		flt.host = globs[i];
		a = count_where(sq, &flt);
		b = count_where(f->st, &flt);
		if (a != b)
			fail_msg("glob \"%s\": SQLite %ld, PostgreSQL %ld",
				 globs[i], a, b);
	}
	flt.host = NULL;
	flt.kernel = "6.12.[0-9]-t*";
	assert_int_equal(count_where(f->st, &flt), count_where(sq, &flt));
	assert_int_equal(count_where(f->st, &flt),
			 sizeof(hosts) / sizeof(hosts[0]));
	nstore_close(sq);
}

/*
 * Filters that are not valid UTF-8 (the web's host=%ff, bucket=%c3): on
 * PostgreSQL they match nothing, as no stored text can hold those bytes
 * (stored with '?' for them), rather than fail with the server's "invalid
 * byte sequence" (-EINVAL, HTTP 500); list, buckets and count alike.
 */
static void test_pg_filter_not_utf8(void **state)
{
	static const char *const bad[] = {
		"\xff", "\xc3", "web-\xff*", "*\xe4\xb8", "[\xff]*",
		"\xc0\xaf",
	};
	struct fx *f = *state;
	struct nstore_filter flt;
	struct counted_rows c;
	struct bk b;
	size_t i, k;

	for (i = 0; i < 3; i++) {
		struct nstore_dump *d = mk_at(i, i ? "web-\xff" : "web-1",
					      "abc", 1000 + i, 0);

		assert_int_equal(nstore_put(f->st, &d, 1, NULL), 0);
		nstore_dump_free(d);
	}
	nstore_filter_init(&flt);
	flt.host = "web-?";
	assert_int_equal(count_where(f->st, &flt), 3);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		for (k = 0; k < 3; k++) {
			nstore_filter_init(&flt);
			if (k == 0)
				flt.host = bad[i];
			else if (k == 1)
				flt.kernel = bad[i];
			else
				flt.bucket = bad[i];
			assert_int_equal(count_where(f->st, &flt), 0);
			memset(&b, 0, sizeof(b));
			assert_int_equal(nstore_buckets(f->st, &flt,
							bucket_cb, &b), 0);
			assert_int_equal(b.n, 0);
			memset(&c, 0, sizeof(c));
			assert_int_equal(nstore_count(f->st, &flt,
						      NSTORE_BY_HOST, 0,
						      rows_cb, &c), 0);
			assert_int_equal(c.n, 0);
		}
	}
	/* a valid filter beside a bad one still matches nothing */
	nstore_filter_init(&flt);
	flt.host = "web-1";
	flt.bucket = "\xc3";
	assert_int_equal(count_where(f->st, &flt), 0);
}

/*
 * 300 dumps of 8 KiB of log: max_bytes 512 KiB leaves the newest that
 * fit, the dumps table (heap, TOAST, indexes) under the limit.
 */
static void test_pg_prune_size(void **state)
{
	const int64_t max = 512 * 1024, now = 1764756000000LL;
	struct nstore_prune p = { .max_bytes = max };
	struct nstore_prune_result res;
	struct seen left = { .n = 0 };
	struct nstore_stats stats;
	struct fx *f = *state;
	struct nstore_dump *d;
	int i;

	for (i = 0; i < 300; i++) {
		d = mk_at(i, "h", "s", now + i, 8192);
		assert_int_equal(nstore_put(f->st, &d, 1, NULL), 0);
		nstore_dump_free(d);
	}
	assert_int_equal(nstore_stats(f->st, &stats), 0);
	assert_true(stats.file_bytes > 4 * max);
	assert_int_equal(nstore_prune(f->st, &p, NULL, NULL, &res), 0);
	print_message("  prune: dumps table %lld -> %lld bytes, %ld dumps"
		      " removed, %ld left\n", (long long)res.bytes_before,
		      (long long)res.bytes_after, res.by_size,
		      res.dumps_left);
	assert_int_equal(res.by_age, 0);
	assert_int_equal(res.bytes_before, stats.file_bytes);
	assert_true(res.bytes_after <= max);
	assert_int_equal(nstore_stats(f->st, &stats), 0);
	assert_int_equal(stats.file_bytes, res.bytes_after);
	assert_int_equal(nstore_list(f->st, NULL, 0, seen_cb, &left), 0);
	assert_int_equal(left.n, res.dumps_left);
	assert_int_equal(left.n + res.by_size, 300);
	assert_true(left.n * 8192 > max / 2);
	for (i = 0; i < left.n; i++)
		assert_int_equal(left.ms[i], now + res.by_size + i);
}

/*
 * Prune by size while another session holds the dumps table (a reader
 * in a long transaction, pg_dump): VACUUM FULL cannot take its lock, the
 * table keeps its size whatever is deleted.  A pass must not delete by
 * size while the space of earlier deletions is not reclaimed: run twice,
 * no pass deletes by size (the table's size would not have told it how
 * much); once the reader is gone, one pass reclaims and gets under the
 * limit.
 */
static void test_pg_prune_size_reader(void **state)
{
	const int64_t max = 512 * 1024, now = 1764756000000LL;
	struct nstore_prune p = { .max_bytes = max };
	struct nstore_prune_result res;
	struct fx *f = *state;
	struct nstore_dump *d;
	int i, pass;
	PGresult *r;
	PGconn *x;

	for (i = 0; i < 300; i++) {
		d = mk_at(i, "h", "s", now + i, 8192);
		assert_int_equal(nstore_put(f->st, &d, 1, NULL), 0);
		nstore_dump_free(d);
	}
	x = PQconnectdb(strncmp(pg, "pg:", 3) ? pg : pg + 3);
	assert_int_equal(PQstatus(x), CONNECTION_OK);
	r = PQexec(x, "BEGIN; SELECT count(*) FROM dumps");
	assert_int_equal(PQresultStatus(r), PGRES_TUPLES_OK);
	PQclear(r);
	for (pass = 1; pass <= 2; pass++) {
		assert_int_equal(nstore_prune(f->st, &p, NULL, NULL, &res), 0);
		print_message("  pass %d with a reader: %lld -> %lld bytes,"
			      " %ld removed, %ld left\n", pass,
			      (long long)res.bytes_before,
			      (long long)res.bytes_after, res.by_size,
			      res.dumps_left);
		assert_int_equal(res.by_size, 0);
		assert_int_equal(res.dumps_left, 300);
	}
	PQclear(PQexec(x, "COMMIT"));
	PQfinish(x);
	assert_int_equal(nstore_prune(f->st, &p, NULL, NULL, &res), 0);
	print_message("  reader gone: %lld -> %lld bytes, %ld removed, %ld"
		      " left\n", (long long)res.bytes_before,
		      (long long)res.bytes_after, res.by_size, res.dumps_left);
	assert_true(res.bytes_after <= max);
	assert_true(res.by_size > 0);
	assert_int_equal(res.by_size + res.dumps_left, 300);
	assert_true(res.dumps_left * 8192 > max / 2);
}

#define WRITERS		4
#define KEYS		200
#define BATCH		5

/*
 * Writer @w's copy of dump @k: from 1 to 4 packets (4: complete); for
 * every fifth dump, writer 0's copy is authenticated and has 1.
 */
static struct nstore_dump *copy_of(int w, int k)
{
	uint32_t pkts = 1 + (k * 7 + w * 3) % 4;
	struct nstore_dump *d;
	char host[16];

	snprintf(host, sizeof(host), "w%d", w);
	d = mk(0x40, k, host, "6.12", "s", pkts == 4, pkts);
	if (k % 5 == 0 && w == 0) {
		d->complete = false;
		d->pkt_received = 1;
		d->authenticated = true;
		d->auth_key_id = 7;
	}
	return d;
}

static int watch_cb(const struct nstore_dump *d, void *arg)
{
	struct seen *x = arg;

	/* each row once, in id order */
	assert_true(x->n == 0 || d->id > x->ids[x->n - 1]);
	assert_true(x->n < 512);
	x->ids[x->n++] = d->id;
	return 0;
}

/*
 * WRITERS processes put overlapping copies of KEYS dumps at once, in
 * batches: one row per dump, the best copy kept, and a reader following
 * after_id as `netoops watch` does sees every row (ids commit in order).
 */
static void test_pg_concurrent(void **state)
{
	struct fx *f = *state;
	struct nstore_filter flt;
	struct seen seen = { .n = 0 };
	struct nstore_dump *g;
	pid_t pid[WRITERS];
	uint64_t t0 = now_ms();
	int w, k, live, rounds = 0, status;

	nstore_close(f->st);	/* no connection shared with the children */
	f->st = NULL;
	for (w = 0; w < WRITERS; w++) {
		pid[w] = fork();
		assert_true(pid[w] >= 0);
		if (pid[w])
			continue;
		struct nstore_dump *b[BATCH];
		struct nstore *st;
		int r, i;

		r = nstore_open(f->path, 0, &st);
		for (k = 0; !r && k < KEYS; k += BATCH) {
			for (i = 0; i < BATCH; i++)
				b[i] = copy_of(w, (k + i + w * 20) % KEYS);
			r = nstore_put(st, b, BATCH, NULL);
			for (i = 0; i < BATCH; i++)
				nstore_dump_free(b[i]);
		}
		nstore_close(st);
		_exit(r ? 1 : 0);
	}
	assert_int_equal(nstore_open(f->path, NSTORE_RDONLY, &f->st), 0);
	nstore_filter_init(&flt);
	for (live = WRITERS; live; ) {
		if (now_ms() - t0 > 120000)
			fail_msg("writers still running after 120 s");
		flt.after_id = seen.n ? seen.ids[seen.n - 1] : 0;
		assert_int_equal(nstore_list(f->st, &flt, 0, watch_cb, &seen),
				 0);
		rounds++;
		for (w = 0; w < WRITERS; w++) {
			if (pid[w] <= 0)
				continue;
			if (waitpid(pid[w], &status, WNOHANG) == pid[w]) {
				assert_true(WIFEXITED(status));
				assert_int_equal(WEXITSTATUS(status), 0);
				pid[w] = 0;
				live--;
			}
		}
	}
	flt.after_id = seen.n ? seen.ids[seen.n - 1] : 0;
	assert_int_equal(nstore_list(f->st, &flt, 0, watch_cb, &seen), 0);
	print_message("  %d writers x %d copies in %llu ms; the watcher saw"
		      " %d rows in %d rounds\n", WRITERS, KEYS,
		      (unsigned long long)(now_ms() - t0), seen.n, rounds);
	assert_int_equal(pg_sql("SELECT count(*) FROM dumps"), KEYS);
	assert_int_equal(seen.n, KEYS);		/* none missed */
	for (k = 0; k < KEYS; k++) {
		uint32_t best = 0;
		char sql[128];

		for (w = 0; w < WRITERS; w++) {
			g = copy_of(w, k);
			if (g->pkt_received > best)
				best = g->pkt_received;
			nstore_dump_free(g);
		}
		snprintf(sql, sizeof(sql), "SELECT pkt_received FROM dumps"
			 " WHERE dump_id = %d", k);
		assert_int_equal(pg_sql(sql), k % 5 ? best : 1);
		snprintf(sql, sizeof(sql), "SELECT auth_key FROM dumps"
			 " WHERE dump_id = %d", k);
		assert_int_equal(pg_sql(sql), k % 5 ? -1 : 7);
	}
}

/*
 * The server stopped: every call fails with -ECONNREFUSED and a dump put
 * meanwhile is not stored; started again, the same store works on.
 */
static void test_pg_conn_loss(void **state)
{
	struct fx *f = *state;
	struct nstore_dump *a, *b, *g;
	struct nstore_stats stats;
	struct nstore *st;
	int64_t last;
	uint64_t t0;

	if (!getenv("NETOOPS_PG_CTL")) {
		print_message("  no NETOOPS_PG_CTL: run under pg_cluster.sh\n");
		skip();
	}
	a = mk(5, 1, "h", "r", "s", true, 4);
	b = mk(5, 2, "h", "r", "s", true, 4);
	assert_int_equal(nstore_put(f->st, &a, 1, NULL), 0);
	t0 = now_ms();
	harness_pg_ctl("stop");
	print_message("  server stopped in %llu ms\n",
		      (unsigned long long)(now_ms() - t0));
	assert_int_equal(nstore_put(f->st, &b, 1, NULL), -ECONNREFUSED);
	assert_int_equal(nstore_get(f->st, a->id, &g), -ECONNREFUSED);
	assert_int_equal(nstore_last_id(f->st, &last), -ECONNREFUSED);
	assert_int_equal(nstore_stats(f->st, &stats), -ECONNREFUSED);
	assert_int_equal(nstore_list(f->st, NULL, 0, count_cb, &last),
			 -ECONNREFUSED);
	assert_int_equal(nstore_open(f->path, 0, &st), -ECONNREFUSED);
	assert_int_equal(nstore_open(f->path, NSTORE_RDONLY, &st),
			 -ECONNREFUSED);
	t0 = now_ms();
	harness_pg_ctl("start");
	print_message("  server started in %llu ms\n",
		      (unsigned long long)(now_ms() - t0));
	assert_int_equal(nstore_put(f->st, &b, 1, NULL), 0);
	assert_int_equal(nstore_last_id(f->st, &last), 0);
	assert_int_equal(last, b->id);
	assert_int_equal(count_where(f->st, NULL), 2);
	assert_int_equal(nstore_get(f->st, a->id, &g), 0);
	nstore_dump_free(g);
	nstore_dump_free(a);
	nstore_dump_free(b);
}

/*
 * A deadlock: another session holds the row of a dump, our put (in a
 * child) waits for it holding the writers' advisory lock, then the other
 * session asks for that lock.  The put, which waited first, is the victim
 * (deadlock_timeout 5 s for it, an hour for the other): it rolls back, is
 * tried again and succeeds, and the other session gets its lock.
 */
static void test_pg_deadlock_retry(void **state)
{
	struct fx *f = *state;
	struct nstore_dump *a = mk(6, 1, "old", "r", "s", false, 2), *g;
	uint64_t t0;
	PGresult *r;
	PGconn *x;
	pid_t pid;

	assert_int_equal(nstore_put(f->st, &a, 1, NULL), 0);
	x = PQconnectdb(strncmp(pg, "pg:", 3) ? pg : pg + 3);
	assert_int_equal(PQstatus(x), CONNECTION_OK);
	PQclear(PQexec(x, "SET deadlock_timeout = '1h'"));
	PQclear(PQexec(x, "SET application_name = 'other'"));
	r = PQexec(x, "BEGIN; SELECT 1 FROM dumps WHERE dump_id = 1"
		   " FOR UPDATE");
	assert_int_equal(PQresultStatus(r), PGRES_TUPLES_OK);
	PQclear(r);
	nstore_close(f->st);
	f->st = NULL;
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		struct nstore_dump *b = mk(6, 1, "new", "r", "s", true, 4);
		struct nstore *st;
		int e;

		setenv("PGOPTIONS", "-c deadlock_timeout=5s", 1);
		e = nstore_open(f->path, 0, &st);
		if (!e)
			e = nstore_put(st, &b, 1, NULL);
		_exit(e ? 1 : 0);
	}
	t0 = now_ms();
	while (harness_pg_sql(pg, "SELECT count(*) FROM pg_stat_activity"
			      " WHERE application_name = 'netoops' AND"
			      " wait_event_type = 'Lock'") < 1) {
		if (now_ms() - t0 > 60000)
			fail_msg("the put does not wait for the row");
		nap();
	}
	/* PUT_LOCK of store_pg.c */
	r = PQexec(x, "SELECT pg_advisory_xact_lock(7954892338779681538)");
	assert_int_equal(PQresultStatus(r), PGRES_TUPLES_OK);
	PQclear(r);
	PQclear(PQexec(x, "COMMIT"));
	PQfinish(x);
	assert_int_equal(child_status(pid), 0);
	print_message("  deadlock: the put retried, stored %llu ms after it"
		      " began to wait\n", (unsigned long long)(now_ms() - t0));
	assert_int_equal(nstore_open(f->path, 0, &f->st), 0);
	assert_int_equal(nstore_get(f->st, a->id, &g), 0);
	assert_string_equal(g->hostname, "new");
	nstore_dump_free(g);
	nstore_dump_free(a);
}

/* ---- merging partial copies (store/merge.c) ---------------------------- */

/* A row count, or a value, by SQL on either backend. */
static long long any_sql(const struct fx *f, const char *sql)
{
	return pg ? pg_sql(sql) : sql_int(f->path, sql);
}

/*
 * The datagrams of dump (@boot, @dump_id): @log sent uncompressed in
 * datagrams of at most 256 bytes, signed with @key (id @key_id) if any.
 */
static void merge_pkts(struct gen_pkts *pk, uint8_t boot, uint64_t dump_id,
		       const char *log, size_t len, struct netoops_key *key,
		       uint32_t key_id)
{
	struct gen_opts o = {
		.hostname = "merge-host", .release = "6.12",
		.reason = NETOOPS_REASON_OOPS, .max_pkt = 256,
		.mac = key ? netoops_hmac : NULL, .mac_ctx = key,
		.key_id = key_id,
	};
	uint8_t id[16];

	memset(id, boot, 16);
	assert_int_equal(gen_dump(pk, id, dump_id, &o, log, len), 0);
	assert_true(pk->n >= 8);
}

/*
 * The record a collector @name puts after receiving the datagrams of @pk
 * whose index is not in @lost (ending with -1): built as netoopsd builds
 * it (reassembler, nstore_record_from_dump()), with its datagrams when
 * partial.  @auth: they were verified with their key.
 */
static struct nstore_dump *partial_copy(const struct gen_pkts *pk,
				   const int *lost, const char *name,
				   bool auth)
{
	struct netoops_dump *nd = NULL, *done;
	struct netoops_reasm *r;
	struct netoops_packet np;
	struct nstore_dump *rec;
	uint8_t *pieces = NULL;
	size_t i, len = 0;
	int k, rc;

	assert_int_equal(netoops_reasm_new(NULL, &r), 0);
	for (i = 0; i < pk->n; i++) {
		for (k = 0; lost[k] >= 0 && (size_t)lost[k] != i; k++)
			;
		if (lost[k] >= 0)
			continue;
		assert_int_equal(netoops_decode_packet(pk->buf[i], pk->len[i],
						       &np), 0);
		np.verified = auth;
		done = NULL;
		rc = netoops_reasm_add(r, NULL, 0, &np, 0, &done, NULL);
		assert_true(rc >= 0);
		if (done)
			nd = done;
		pieces = realloc(pieces, len + pk->len[i]);
		memcpy(pieces + len, pk->buf[i], pk->len[i]);
		len += pk->len[i];
	}
	if (!nd)
		assert_int_equal(netoops_reasm_flush(r, &nd), 1);
	netoops_reasm_free(r);
	assert_int_equal(nstore_record_from_dump(nd, 1764756000000LL, &rec,
						 NULL), 0);
	netoops_dump_free(nd);
	rec->collectors = strdup(name);
	rec->src = strdup("192.0.2.1");
	rec->stored_ms = 1764756001000LL;
	if (!rec->complete) {
		rec->pieces = pieces;
		rec->pieces_len = len;
	} else {
		free(pieces);
	}
	return rec;
}

static void put1(struct fx *f, struct nstore_dump *d, size_t want_dups)
{
	size_t dups = 99;

	assert_int_equal(nstore_put(f->st, &d, 1, &dups), 0);
	assert_int_equal(dups, want_dups);
}

static struct nstore_dump *get_row(struct fx *f, int64_t id)
{
	struct nstore_dump *g;

	assert_int_equal(nstore_get(f->st, id, &g), 0);
	return g;
}

/* Two copies with disjoint losses: one dump, complete, as sent. */
static void test_merge_disjoint(void **state)
{
	struct fx *f = *state;
	static const int lost_a[] = { 1, 2, -1 }, lost_b[] = { 5, -1 };
	static const int none[] = { -1 };
	struct nstore_dump *a, *b, *whole, *g;
	struct nstore_stats s;
	struct gen_pkts pk;
	size_t len;
	char *log = gen_log(3000, "merge_disjoint", 1, &len);

	merge_pkts(&pk, 0x31, 1, log, len, NULL, 0);
	a = partial_copy(&pk, lost_a, "A", false);
	b = partial_copy(&pk, lost_b, "B", false);
	whole = partial_copy(&pk, none, "W", false);
	assert_false(a->complete);
	assert_false(b->complete);
	put1(f, a, 0);
	assert_false(a->merged);
	g = get_row(f, a->id);
	assert_string_equal(g->collectors, "A");
	assert_false(g->complete);
	nstore_dump_free(g);
	assert_int_equal(any_sql(f, "SELECT count(*) FROM dumps WHERE"
				 " pieces IS NOT NULL"), 1);

	put1(f, b, 0);
	assert_true(b->merged);
	assert_int_equal(b->id, a->id);
	g = get_row(f, a->id);
	assert_true(g->complete);
	assert_int_equal(g->pkt_received, pk.n);
	assert_int_equal(g->nr_gaps, 0);
	assert_string_equal(g->collectors, "A,B");
	assert_int_equal(g->conflicts, 0);
	assert_int_equal(g->log_len, len);
	assert_memory_equal(g->log, log, len);
	assert_string_equal(g->sig_hash, whole->sig_hash);
	assert_string_equal(g->src, "192.0.2.1");
	nstore_dump_free(g);
	assert_int_equal(nstore_stats(f->st, &s), 0);
	assert_int_equal(s.dumps, 1);
	assert_int_equal(s.complete, 1);
	/* complete: its datagrams are not kept */
	assert_int_equal(any_sql(f, "SELECT count(*) FROM dumps WHERE"
				 " pieces IS NOT NULL"), 0);
	/* and a complete copy after it is a duplicate */
	put1(f, whole, 1);
	assert_int_equal(whole->dup_of, a->id);
	nstore_dump_free(a);
	nstore_dump_free(b);
	nstore_dump_free(whole);
	gen_pkts_free(&pk);
	free(log);
}

/*
 * Overlapping losses: the union still lacks what both lost, then a third
 * copy completes it; a copy that adds nothing is a duplicate.
 */
static void test_merge_overlap(void **state)
{
	struct fx *f = *state;
	static const int lost_a[] = { 1, 2, 3, -1 }, lost_b[] = { 3, 4, -1 };
	static const int lost_c[] = { 0, 1, -1 };
	static const int lost_d[] = { 1, 2, 3, 4, 6, -1 };
	struct nstore_dump *a, *b, *c, *d, *g;
	struct gen_pkts pk;
	size_t len;
	char *log = gen_log(3000, "merge_overlap", 2, &len);

	merge_pkts(&pk, 0x32, 7, log, len, NULL, 0);
	a = partial_copy(&pk, lost_a, "A", false);
	b = partial_copy(&pk, lost_b, "B", false);
	c = partial_copy(&pk, lost_c, "C", false);
	d = partial_copy(&pk, lost_d, "D", false);
	put1(f, a, 0);
	put1(f, b, 0);
	assert_true(b->merged);
	g = get_row(f, a->id);
	assert_false(g->complete);
	assert_int_equal(g->pkt_received, pk.n - 1);
	assert_string_equal(g->collectors, "A,B");
	assert_int_equal(g->nr_gaps, 1);
	nstore_dump_free(g);
	/* adds nothing the stored union lacks */
	put1(f, d, 1);
	assert_false(d->merged);
	assert_int_equal(d->dup_of, a->id);
	g = get_row(f, a->id);
	assert_string_equal(g->collectors, "A,B");
	assert_int_equal(g->pkt_received, pk.n - 1);
	nstore_dump_free(g);
	/* has the one datagram missing */
	put1(f, c, 0);
	assert_true(c->merged);
	g = get_row(f, a->id);
	assert_true(g->complete);
	assert_string_equal(g->collectors, "A,B,C");
	assert_memory_equal(g->log, log, len);
	nstore_dump_free(g);
	assert_int_equal(any_sql(f, "SELECT count(*) FROM dumps"), 1);
	nstore_dump_free(a);
	nstore_dump_free(b);
	nstore_dump_free(c);
	nstore_dump_free(d);
	gen_pkts_free(&pk);
	free(log);
}

/*
 * A copy whose datagram contradicts a stored one (same index, other
 * bytes): the stored bytes stay, the contradiction is counted, the rest
 * of the copy still merges.
 */
static void test_merge_conflict(void **state)
{
	struct fx *f = *state;
	struct nstore_dump *a, *b, *b2, *g;
	struct gen_pkts pk, bad;
	int lost_a[] = { -1, -1 }, lost_b[] = { -1, -1 };
	int lost_b2[] = { -1, -1, -1 };
	size_t len, i, k = 0;
	char *log = gen_log(3000, "merge_conflict", 3, &len);
	char *other = malloc(len);

	memcpy(other, log, len);
	other[len / 2] ^= 0x20;		/* same length: same datagrams */
	merge_pkts(&pk, 0x33, 9, log, len, NULL, 0);
	merge_pkts(&bad, 0x33, 9, other, len, NULL, 0);
	assert_int_equal(bad.n, pk.n);
	for (i = 0; i < pk.n; i++)
		if (pk.len[i] != bad.len[i] ||
		    memcmp(pk.buf[i], bad.buf[i], pk.len[i]))
			k = i, lost_a[0]++;
	assert_int_equal(lost_a[0], 0);	/* exactly one differs: k */
	/* A lacks j, B (the other bytes at k) lacks m */
	lost_a[0] = k == 2 ? 3 : 2;
	lost_b[0] = k == 4 ? 5 : 4;
	a = partial_copy(&pk, lost_a, "A", false);
	b = partial_copy(&bad, lost_b, "B", false);
	/* and B2 only has what A has, with the other bytes at k */
	lost_b2[0] = lost_a[0];
	lost_b2[1] = lost_b[0];
	b2 = partial_copy(&bad, lost_b2, "B2", false);
	put1(f, a, 0);
	put1(f, b2, 1);
	g = get_row(f, a->id);
	assert_int_equal(g->conflicts, 1);
	assert_string_equal(g->collectors, "A");
	nstore_dump_free(g);
	put1(f, b, 0);
	assert_true(b->merged);
	g = get_row(f, a->id);
	assert_true(g->complete);
	assert_int_equal(g->conflicts, 2);
	assert_string_equal(g->collectors, "A,B");
	assert_int_equal(g->log_len, len);
	assert_memory_equal(g->log, log, len);	/* A's bytes, not B's */
	nstore_dump_free(g);
	nstore_dump_free(a);
	nstore_dump_free(b);
	nstore_dump_free(b2);
	gen_pkts_free(&pk);
	gen_pkts_free(&bad);
	free(log);
	free(other);
}

/*
 * Copies of one key merge and stay authenticated; never with an
 * unauthenticated copy nor with another key's; an authenticated copy
 * replaces an unauthenticated union alone.
 */
static void test_merge_auth(void **state)
{
	struct fx *f = *state;
	static const int lost_a[] = { 1, -1 }, lost_b[] = { 3, -1 };
	static const int lost_c[] = { 2, -1 }, lost_u[] = { 4, -1 };
	struct netoops_key k1 = { (const uint8_t *)"key-one-32-bytes", 16 };
	struct netoops_key k2 = { (const uint8_t *)"key-two-32-bytes", 16 };
	struct nstore_dump *a, *b, *c, *u, *g;
	struct gen_pkts p1, p2, pu;
	size_t len;
	char *log = gen_log(3000, "merge_auth", 4, &len);

	merge_pkts(&p1, 0x34, 1, log, len, &k1, 1);
	merge_pkts(&p2, 0x34, 1, log, len, &k2, 2);
	merge_pkts(&pu, 0x34, 1, log, len, NULL, 0);
	a = partial_copy(&p1, lost_a, "A", true);
	b = partial_copy(&p1, lost_b, "B", true);
	c = partial_copy(&p2, lost_c, "C", true);
	u = partial_copy(&pu, lost_u, "U", false);
	assert_true(a->authenticated);
	assert_int_equal(c->auth_key_id, 2);
	put1(f, a, 0);
	put1(f, u, 1);		/* unauthenticated: never merged in */
	put1(f, c, 1);		/* another key: neither */
	g = get_row(f, a->id);
	assert_string_equal(g->collectors, "A");
	assert_false(g->complete);
	nstore_dump_free(g);
	put1(f, b, 0);
	assert_true(b->merged);
	g = get_row(f, a->id);
	assert_true(g->complete);
	assert_true(g->authenticated);
	assert_int_equal(g->auth_key_id, 1);
	assert_string_equal(g->collectors, "A,B");
	nstore_dump_free(g);
	nstore_dump_free(a);
	nstore_dump_free(b);
	nstore_dump_free(c);
	nstore_dump_free(u);

	/* the reverse: an unauthenticated union, then a signed copy */
	gen_pkts_free(&p1);
	gen_pkts_free(&pu);
	merge_pkts(&p1, 0x35, 1, log, len, &k1, 1);
	merge_pkts(&pu, 0x35, 1, log, len, NULL, 0);
	a = partial_copy(&pu, lost_a, "A", false);
	b = partial_copy(&pu, lost_b, "B", false);
	c = partial_copy(&p1, lost_c, "C", true);
	put1(f, a, 0);
	put1(f, b, 0);
	assert_true(b->merged);
	put1(f, c, 0);
	assert_false(c->merged);
	g = get_row(f, a->id);
	assert_true(g->authenticated);
	assert_false(g->complete);
	assert_string_equal(g->collectors, "C");
	nstore_dump_free(g);
	nstore_dump_free(a);
	nstore_dump_free(b);
	nstore_dump_free(c);
	gen_pkts_free(&p1);
	gen_pkts_free(&p2);
	gen_pkts_free(&pu);
	free(log);
}

/* A complete copy after partials replaces their union, alone. */
static void test_merge_complete_later(void **state)
{
	struct fx *f = *state;
	static const int lost_a[] = { 1, 2, -1 }, lost_b[] = { 2, 3, -1 };
	static const int none[] = { -1 };
	struct nstore_dump *a, *b, *c, *g;
	struct gen_pkts pk;
	size_t len;
	char *log = gen_log(3000, "merge_later", 5, &len);

	merge_pkts(&pk, 0x36, 3, log, len, NULL, 0);
	a = partial_copy(&pk, lost_a, "A", false);
	b = partial_copy(&pk, lost_b, "B", false);
	c = partial_copy(&pk, none, "C", false);
	put1(f, a, 0);
	put1(f, b, 0);
	g = get_row(f, a->id);
	assert_false(g->complete);
	assert_string_equal(g->collectors, "A,B");
	nstore_dump_free(g);
	put1(f, c, 0);
	assert_false(c->merged);
	assert_int_equal(c->id, a->id);
	g = get_row(f, a->id);
	assert_true(g->complete);
	assert_string_equal(g->collectors, "C");
	assert_memory_equal(g->log, log, len);
	nstore_dump_free(g);
	assert_int_equal(any_sql(f, "SELECT count(*) FROM dumps WHERE"
				 " pieces IS NOT NULL"), 0);
	/* partials after it: duplicates */
	put1(f, a, 1);
	assert_int_equal(any_sql(f, "SELECT count(*) FROM dumps"), 1);
	nstore_dump_free(a);
	nstore_dump_free(b);
	nstore_dump_free(c);
	gen_pkts_free(&pk);
	free(log);
}

#define BOTH	0
#define SQLITE	1
#define PG	2
#define T(f, only) { cmocka_unit_test_setup_teardown(f, setup, teardown), only }

int main(int argc, char **argv)
{
	static const struct {
		struct CMUnitTest t;
		int only;
	} all[] = {
		T(test_roundtrip, BOTH),
		T(test_auth_never_downgraded, BOTH),
		T(test_replace_if_better, BOTH),
		T(test_filters_buckets, BOTH),
		T(test_reader_sees_writer, BOTH),
		T(test_auth_roundtrip, BOTH),
		T(test_migrate_v1, SQLITE),
		T(test_open_errors, SQLITE),
		T(test_prune_age, BOTH),
		T(test_prune_size, SQLITE),
		T(test_prune_size_old_store, SQLITE),
		T(test_stats_wal, SQLITE),
		T(test_order_glob, BOTH),
		T(test_glob_limits, BOTH),
		T(test_count, BOTH),
		T(test_count_huge_step, BOTH),
		T(test_slot_extremes, BOTH),
		T(test_merge_disjoint, BOTH),
		T(test_merge_overlap, BOTH),
		T(test_merge_conflict, BOTH),
		T(test_merge_auth, BOTH),
		T(test_merge_complete_later, BOTH),
		{ cmocka_unit_test(test_render_gaps), BOTH },
		{ cmocka_unit_test(test_helpers), BOTH },
		T(test_pg_migrate, PG),
		T(test_pg_open_errors, PG),
		T(test_pg_lossless, PG),
		T(test_pg_glob, PG),
		T(test_pg_filter_not_utf8, PG),
		T(test_pg_prune_size, PG),
		T(test_pg_prune_size_reader, PG),
		T(test_pg_concurrent, PG),
		T(test_pg_deadlock_retry, PG),
		T(test_pg_conn_loss, PG),
	};
	struct CMUnitTest run[sizeof(all) / sizeof(all[0])];
	size_t i, n = 0;

	pg = argc > 1 ? argv[1] : NULL;
	if (pg)		/* a server that hangs fails the run, bounded */
		alarm(600);
	for (i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (all[i].only == BOTH || all[i].only == (pg ? PG : SQLITE))
			run[n++] = all[i].t;
	return _cmocka_run_group_tests(pg ? "store (PostgreSQL)" :
				       "store (SQLite)", run, n, NULL, NULL);
}
