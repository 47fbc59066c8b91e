// SPDX-License-Identifier: GPL-2.0
/*
 * netoopsd loses no dump to a failing store or a restart: real encoded
 * dumps over loopback, counted in the store through the CLI and in the
 * daemon's Prometheus counters, the daemon's log read for the names.
 *
 *   store_locked    another process holds BEGIN EXCLUSIVE for 20 s while 20
 *                   dumps arrive: 20 stored once it lets go, 0 lost
 *   spool_restart   dumps spooled while the store is locked, SIGTERM: the
 *                   next start stores them
 *   disk_full       database and spool on a 4 MiB tmpfs, filled up: 40
 *                   dumps held in memory, 40 stored once space is freed
 *   refused         the same with --spool-memory 0: refused and counted,
 *                   each named; netoopsd carries on
 *   resume_restart  30 dumps half received, SIGTERM (30 partial), restart,
 *                   the other halves: 30 complete, 0 partial
 *   resume_timeout  a dump stored partial after --timeout-ms is completed
 *                   by the datagrams that come later
 *   pg_server_down  a PostgreSQL store whose server stops while 20 dumps
 *                   arrive: all kept, stored when the server is back
 *   pg_down_at_start  netoopsd starts with the server down, is stopped
 *                   with 10 dumps spooled; the next start stores them
 *
 * The pg_ cases run only with $NETOOPS_PG (make collector-pg, in the
 * cluster of pg_cluster.sh), the others only without it.
 * The tmpfs is mounted in a mount namespace of this test's own (as root,
 * or in a user namespace); without either, those two cases are skipped.
 * Environment: NETOOPSD and NETOOPS_CLI name the programs under test.
 * Every wait is for a condition, bounded by a deadline; the 20 s of the
 * lock are the scenario, not a wait.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>
#include <sqlite3.h>

#include "gen_dump.h"
#include "harness.h"

#define DEADLINE_MS	40000
#define LOCK_MS		20000

struct run {
	struct harness_daemon d;	/* d.log: of the last start */
	char fs[80];		/* the tmpfs of start_full(), or "" */
	char filler[128];	/* the file that fills it */
	int starts;
};

static void new_dir(struct run *r)
{
	memset(r, 0, sizeof(*r));
	harness_dir(&r->d, "dur");
}

/* Starts netoopsd on r->d.db; @extra: more arguments, NULL-terminated. */
static void start(struct run *r, const char *timeout_ms,
		  const char *const *extra)
{
	snprintf(r->d.log, sizeof(r->d.log), "%s/netoopsd.%d.log", r->d.dir,
		 ++r->starts);
	harness_start(&r->d, (const char *const []){
			"--listen", "127.0.0.1", "--port", "0",
			"--db", r->d.db, "--ready-file", r->d.ready,
			"--metrics-listen", "127.0.0.1:0", "--timeout-ms",
			timeout_ms, "--max-packet", "2048", "--workers", "2",
			"--sync", "normal", NULL }, extra, DEADLINE_MS);
}

/* SIGTERM; returns the exit status. */
static int stop(struct run *r)
{
	return harness_stop(&r->d.pid);
}

static void cleanup(struct run *r)
{
	harness_cleanup(r->d.dir);
}

static void send_pkts(int port, const struct gen_pkts *p, size_t from,
		      size_t to)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	size_t i;

	assert_true(fd >= 0);
	sa.sin_port = htons(port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	for (i = from; i < to; i++)
		assert_int_equal(sendto(fd, p->buf[i], p->len[i], 0,
					(struct sockaddr *)&sa, sizeof(sa)),
				 (ssize_t)p->len[i]);
	close(fd);
}

/* GET /metrics; the value of @name, or -1 if it is not there. */
static double metric(const struct run *r, const char *name)
{
	return harness_metric(r->d.mport, name);
}

/* Waits until metric @name is at least @want; returns its value. */
static double wait_metric(const struct run *r, const char *name,
			  double want)
{
	return harness_wait_metric(r->d.mport, name, want, DEADLINE_MS,
				   r->d.log);
}

static void assert_metric(const struct run *r, const char *name,
			  double want)
{
	double v = metric(r, name);

	if (v != want)
		fail_msg("%s is %g, wanted %g (log: %s)", name, v, want,
			 r->d.log);
}

/* Dumps the CLI lists with @args (e.g. "--complete"). */
static size_t cli_count(const struct run *r, const char *args)
{
	char cmd[256];
	size_t n;
	json_t *j;

	snprintf(cmd, sizeof(cmd), "list --json --no-log %s", args);
	j = harness_cli_json(r->d.db, cmd);
	assert_true(json_is_array(j));
	n = json_array_size(j);
	json_decref(j);
	return n;
}

/* The stored log of the dump of @boot. */
static char *cli_log(const struct run *r, const uint8_t boot[16],
		     size_t *ret_len)
{
	json_t *j = harness_cli_json(r->d.db, "list --json");
	json_t *d = harness_find_dump(j, boot);
	char *log;

	assert_non_null(d);
	*ret_len = json_string_length(json_object_get(d, "log"));
	log = malloc(*ret_len + 1);
	assert_non_null(log);
	memcpy(log, json_string_value(json_object_get(d, "log")),
	       *ret_len + 1);
	json_decref(j);
	return log;
}

static char *slurp(const char *path)
{
	size_t cap = 1 << 16, len = 0, n;
	char *buf = malloc(cap);
	FILE *f = fopen(path, "r");

	assert_non_null(buf);
	assert_non_null(f);
	while ((n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
		len += n;
		if (len + 1 == cap) {
			cap *= 2;
			buf = realloc(buf, cap);
			assert_non_null(buf);
		}
	}
	fclose(f);
	buf[len] = 0;
	return buf;
}

/* How the log names the dump of @boot (with dump_id 1). */
static void log_name(const uint8_t boot[16], char needle[80])
{
	char hex[33];
	int i;

	for (i = 0; i < 16; i++)
		sprintf(hex + 2 * i, "%02x", boot[i]);
	snprintf(needle, 80, "boot_id %s dump_id 1", hex);
}

/* The log names the dump of @boot (with dump_id 1) on a line with @what. */
static void assert_named(const struct run *r, const char *log,
			 const uint8_t boot[16], const char *what)
{
	const char *p, *line;
	char needle[80];

	log_name(boot, needle);
	for (p = log; (p = strstr(p, needle)); p++) {
		for (line = p; line > log && line[-1] != '\n'; line--)
			;
		if (memmem(line, p - line, what, strlen(what)))
			return;
	}
	fail_msg("%s does not name %s on a line with \"%s\"", r->d.log, needle,
		 what);
}

static void mkboot(uint8_t boot[16], int n)
{
	memset(boot, 0, 16);
	boot[0] = 0xd0;
	boot[1] = 0x0d;
	boot[14] = n >> 8;
	boot[15] = n;
}

/* @n complete dumps, boot ids from @first, hostnames "dur-N". */
struct dumps {
	size_t n;
	uint8_t boot[64][16];
	struct gen_pkts p[64];
	char *log[64];
	size_t len[64];
};

static struct dumps *make_dumps(size_t n, int first, size_t size,
				size_t max_pkt)
{
	struct gen_opts o = { .reason = 2, .release = "6.12.0",
			      .compress = true, .max_pkt = max_pkt };
	struct dumps *ds = calloc(1, sizeof(*ds));
	char host[32];
	size_t i;

	assert_non_null(ds);
	assert_true(n <= 64);
	ds->n = n;
	for (i = 0; i < n; i++) {
		snprintf(host, sizeof(host), "dur-%d", first + (int)i);
		o.hostname = host;
		mkboot(ds->boot[i], first + i);
		ds->log[i] = gen_log(size, "durable_fn", first + i,
				     &ds->len[i]);
		assert_int_equal(gen_dump(&ds->p[i], ds->boot[i], 1, &o,
					  ds->log[i], ds->len[i]), 0);
	}
	return ds;
}

static void free_dumps(struct dumps *ds)
{
	size_t i;

	for (i = 0; i < ds->n; i++) {
		gen_pkts_free(&ds->p[i]);
		free(ds->log[i]);
	}
	free(ds);
}

/* The log of the last start has @text. */
static void assert_logged(const struct run *r, const char *text)
{
	char *log = slurp(r->d.log);
	bool has = strstr(log, text);

	free(log);
	if (!has)
		fail_msg("%s does not say \"%s\"", r->d.log, text);
}

/*
 * Until the log of the last start names every dump of @ds as not stored
 * yet and says why (@err), at most DEADLINE_MS: it names them at the
 * store's next failed try.
 */
static void wait_named(const struct run *r, const struct dumps *ds,
		       const char *err)
{
	uint64_t t0 = now_ms();
	char *log, needle[80];
	size_t i;

	for (;; nap()) {
		log = slurp(r->d.log);
		for (i = 0; i < ds->n; i++) {
			log_name(ds->boot[i], needle);
			if (!strstr(log, needle))
				break;
		}
		if (i == ds->n && strstr(log, err))
			break;
		free(log);
		if (now_ms() - t0 > DEADLINE_MS)
			fail_msg("%s does not name every dump, or not \"%s\"",
				 r->d.log, err);
	}
	for (i = 0; i < ds->n; i++)
		assert_named(r, log, ds->boot[i], "not stored yet");
	free(log);
}

/*
 * @spooled dumps went through the spool (every dump does), @waiting of
 * them are still there, @stored were stored; none lost.
 */
static void assert_spooled(const struct run *r, double spooled,
			   double waiting, double stored)
{
	wait_metric(r, "netoops_dumps_spooled_total", spooled);
	assert_metric(r, "netoops_spool_dumps", waiting);
	assert_metric(r, "netoops_dumps_lost_total", 0);
	assert_metric(r, "netoops_dumps_stored_total", stored);
}

static void send_all(const struct run *r, const struct dumps *ds)
{
	size_t i;

	for (i = 0; i < ds->n; i++)
		send_pkts(r->d.port, &ds->p[i], 0, ds->p[i].n);
}

/* The end of a test that passed: nothing of it left. */
static void finish(struct run *r, struct dumps *ds)
{
	if (r->fs[0])
		assert_int_equal(umount(r->fs), 0);
	cleanup(r);
	free_dumps(ds);
}

/* Another process (this one) takes the write lock of the database. */
static sqlite3 *lock_db(const struct run *r)
{
	sqlite3 *db;

	assert_int_equal(sqlite3_open_v2(r->d.db, &db, SQLITE_OPEN_READWRITE,
					 NULL), SQLITE_OK);
	sqlite3_busy_timeout(db, 5000);
	assert_int_equal(sqlite3_exec(db, "BEGIN EXCLUSIVE", NULL, NULL,
				      NULL), SQLITE_OK);
	return db;
}

static void unlock_db(sqlite3 *db)
{
	assert_int_equal(sqlite3_exec(db, "COMMIT", NULL, NULL, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
}

/* ---- a PostgreSQL server that goes away ------------------------------ */

/* The PostgreSQL store of the pg_ cases ($NETOOPS_PG). */
static const char *pg;

/* Starts netoopsd on the PostgreSQL store, its spool in r->d.dir. */
static void start_pg(struct run *r)
{
	char spool[128];

	snprintf(spool, sizeof(spool), "%s/spool", r->d.dir);
	snprintf(r->d.db, sizeof(r->d.db), "%s", pg);
	start(r, "10000", (const char *const []){ "--spool", spool, NULL });
}

static void assert_same_log(const struct run *r, const struct dumps *ds,
			    size_t i)
{
	size_t len;
	char *log = cli_log(r, ds->boot[i], &len);

	assert_int_equal(len, ds->len[i]);
	assert_memory_equal(log, ds->log[i], len);
	free(log);
}

static void test_pg_server_down(void **state)
{
	struct dumps *a, *b;
	struct run r;
	uint64_t t0;
	size_t i;

	(void)state;
	new_dir(&r);
	harness_pg_empty(pg);
	start_pg(&r);
	a = make_dumps(10, 300, 12000, 0);
	b = make_dumps(20, 400, 12000, 0);
	send_all(&r, a);
	wait_metric(&r, "netoops_dumps_stored_total", 10);
	harness_pg_ctl("stop");
	send_all(&r, b);
	wait_metric(&r, "netoops_store_errors_total", 1);
	assert_spooled(&r, 30, 20, 10);
	wait_named(&r, b, "Connection refused");
	t0 = now_ms();
	harness_pg_ctl("start");
	wait_metric(&r, "netoops_dumps_stored_total", 30);
	print_message("  the 20 spooled dumps stored %llu ms after the server"
		      " started\n", (unsigned long long)(now_ms() - t0));
	assert_metric(&r, "netoops_dumps_lost_total", 0);
	assert_metric(&r, "netoops_spool_dumps", 0);
	assert_int_equal(stop(&r), 0);
	assert_int_equal(cli_count(&r, "--complete"), 30);
	for (i = 0; i < b->n; i += 9)
		assert_same_log(&r, b, i);
	assert_logged(&r, "writing again after");
	free_dumps(b);
	finish(&r, a);
}

static void test_pg_down_at_start(void **state)
{
	struct dumps *ds;
	struct run r;

	(void)state;
	new_dir(&r);
	harness_pg_empty(pg);
	harness_pg_ctl("stop");
	start_pg(&r);
	ds = make_dumps(10, 500, 12000, 0);
	send_all(&r, ds);
	assert_spooled(&r, 10, 10, 0);
	assert_int_equal(stop(&r), 0);		/* nothing lost */
	assert_logged(&r, "yet: Connection refused");
	assert_logged(&r, "10 dumps left in");

	harness_pg_ctl("start");
	start_pg(&r);
	wait_metric(&r, "netoops_dumps_stored_total", 10);
	assert_metric(&r, "netoops_dumps_lost_total", 0);
	assert_int_equal(stop(&r), 0);
	assert_int_equal(cli_count(&r, "--complete"), 10);
	assert_same_log(&r, ds, 3);
	finish(&r, ds);
}

/* ---- a store that fails ---------------------------------------------- */

static void test_store_locked(void **state)
{
	struct dumps *ds;
	struct timespec rest;
	struct run r;
	uint64_t t0, left;
	sqlite3 *db;

	(void)state;
	new_dir(&r);
	start(&r, "10000", NULL);
	ds = make_dumps(20, 100, 16000, 0);
	db = lock_db(&r);
	t0 = now_ms();
	send_all(&r, ds);
	/* the store refused (after its 5 s busy timeout), the dumps are in
	 * the spool, flushed
	 */
	wait_metric(&r, "netoops_store_errors_total", 1);
	assert_spooled(&r, 20, 20, 0);
	wait_named(&r, ds, "Device or resource busy");
	left = now_ms() - t0 < LOCK_MS ? LOCK_MS - (now_ms() - t0) : 0;
	rest.tv_sec = left / 1000;
	rest.tv_nsec = left % 1000 * 1000000;
	nanosleep(&rest, NULL);
	unlock_db(db);
	printf("database locked %.1f s: %g store errors, %g dumps spooled\n",
	       (now_ms() - t0) / 1e3,
	       metric(&r, "netoops_store_errors_total"),
	       metric(&r, "netoops_dumps_spooled_total"));

	wait_metric(&r, "netoops_dumps_stored_total", 20);
	assert_metric(&r, "netoops_dumps_lost_total", 0);
	assert_metric(&r, "netoops_spool_dumps", 0);
	assert_metric(&r, "netoops_spool_bytes", 0);
	assert_int_equal(stop(&r), 0);
	assert_int_equal(cli_count(&r, "--complete"), 20);
	assert_int_equal(cli_count(&r, ""), 20);
	assert_logged(&r, "writing again after");
	finish(&r, ds);
}

/* Dumps still in the spool at SIGTERM are stored by the next start. */
static void test_spool_restart(void **state)
{
	struct dumps *ds;
	struct run r;
	sqlite3 *db;
	char *log;

	(void)state;
	new_dir(&r);
	start(&r, "10000", NULL);
	ds = make_dumps(10, 200, 12000, 0);
	db = lock_db(&r);
	send_all(&r, ds);
	wait_metric(&r, "netoops_store_errors_total", 1);
	wait_metric(&r, "netoops_dumps_total{state=\"complete\"}", 10);
	assert_metric(&r, "netoops_dumps_lost_total", 0);
	wait_metric(&r, "netoops_dumps_spooled_total", 10);
	assert_int_equal(stop(&r), 0);		/* nothing lost */
	log = slurp(r.d.log);
	assert_non_null(strstr(log, "10 dumps left in"));
	free(log);
	unlock_db(db);
	assert_int_equal(cli_count(&r, ""), 0);

	start(&r, "10000", NULL);
	wait_metric(&r, "netoops_dumps_stored_total", 10);
	assert_metric(&r, "netoops_dumps_lost_total", 0);
	assert_int_equal(stop(&r), 0);
	assert_int_equal(cli_count(&r, "--complete"), 10);
	log = slurp(r.d.log);
	assert_non_null(strstr(log, "10 dumps of the last run to store"));
	free(log);
	finish(&r, ds);
}

static void write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

/*
 * A tmpfs of @size at @path, seen by this process and its children only
 * (a mount namespace of its own; a user namespace too when not root).
 */
static void mount_tmpfs(const char *path, const char *size)
{
	char opts[64], map[64];
	uid_t uid = getuid();
	gid_t gid = getgid();

	if (unshare(CLONE_NEWNS) < 0) {
		if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0) {
			printf("cannot mount a tmpfs (not root, no user"
			       " namespaces: %s): disk-full cases skipped\n",
			       strerror(errno));
			skip();
		}
		write_file("/proc/self/setgroups", "deny");
		snprintf(map, sizeof(map), "0 %u 1", (unsigned int)uid);
		write_file("/proc/self/uid_map", map);
		snprintf(map, sizeof(map), "0 %u 1", (unsigned int)gid);
		write_file("/proc/self/gid_map", map);
	}
	assert_int_equal(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL), 0);
	snprintf(opts, sizeof(opts), "size=%s,mode=0755", size);
	assert_int_equal(mkdir(path, 0755), 0);
	if (mount("tmpfs", path, "tmpfs", 0, opts) < 0)
		fail_msg("mount -t tmpfs -o %s %s: %s", opts, path,
			 strerror(errno));
}

/* Writes @path until the file system is full. */
static void fill(const char *path)
{
	static char buf[1 << 16];
	size_t chunk = sizeof(buf);
	ssize_t n;
	int fd;

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	for (;;) {
		n = write(fd, buf, chunk);
		if (n >= 0)
			continue;
		assert_int_equal(errno, ENOSPC);
		if (chunk == 1)
			break;
		chunk /= 2;
	}
	close(fd);
}

/*
 * netoopsd started (with @extra) on a full disk: the database and, by
 * default, the spool (n.db.spool) on a tmpfs of 4 MiB, filled up once it
 * runs.  Unlinking r->filler makes room again.
 */
static void start_full(struct run *r, const char *const *extra)
{
	new_dir(r);
	snprintf(r->fs, sizeof(r->fs), "%s/fs", r->d.dir);
	mount_tmpfs(r->fs, "4m");
	snprintf(r->d.db, sizeof(r->d.db), "%s/n.db", r->fs);
	snprintf(r->filler, sizeof(r->filler), "%s/filler", r->fs);
	start(r, "10000", extra);
	fill(r->filler);
}

static void test_disk_full(void **state)
{
	struct dumps *ds;
	struct run r;
	char *log;
	size_t i;

	(void)state;
	ds = make_dumps(40, 300, 16000, 0);
	start_full(&r, NULL);
	send_all(&r, ds);
	/* the store fails; nothing is lost... */
	wait_metric(&r, "netoops_dumps_total{state=\"complete\"}", 40);
	wait_metric(&r, "netoops_store_errors_total", 1);
	assert_metric(&r, "netoops_dumps_lost_total", 0);
	/* ...held in memory: the spool cannot write either */
	wait_metric(&r, "netoops_spool_memory_dumps", 40);
	assert_true(metric(&r, "netoops_spool_write_errors_total") >= 1);
	assert_metric(&r, "netoops_dumps_spooled_total", 0);
	assert_metric(&r, "netoops_dumps_stored_total", 0);
	printf("disk full: %g dumps in memory (%g bytes), %g store errors\n",
	       metric(&r, "netoops_spool_memory_dumps"),
	       metric(&r, "netoops_spool_memory_bytes"),
	       metric(&r, "netoops_store_errors_total"));

	assert_int_equal(unlink(r.filler), 0);
	wait_metric(&r, "netoops_dumps_stored_total", 40);
	assert_metric(&r, "netoops_dumps_lost_total", 0);
	assert_metric(&r, "netoops_dumps_refused_total", 0);
	assert_metric(&r, "netoops_spool_memory_dumps", 0);
	assert_int_equal(stop(&r), 0);
	assert_int_equal(cli_count(&r, "--complete"), 40);
	log = slurp(r.d.log);
	for (i = 0; i < ds->n; i++)
		assert_named(&r, log, ds->boot[i], "holding in memory");
	assert_non_null(strstr(log, "No space left on device"));
	free(log);
	finish(&r, ds);
}

/* No room in memory either: refused loudly, counted, netoopsd goes on. */
static void test_refused(void **state)
{
	const char *extra[] = { "--spool-memory", "0", NULL };
	struct dumps *ds;
	struct run r;
	char *log;
	size_t i;

	(void)state;
	ds = make_dumps(6, 400, 8000, 0);
	start_full(&r, extra);
	for (i = 0; i < 5; i++)
		send_pkts(r.d.port, &ds->p[i], 0, ds->p[i].n);
	wait_metric(&r, "netoops_dumps_refused_total", 5);
	assert_metric(&r, "netoops_dumps_lost_total", 5);
	/* still there: space again, the next dump is stored */
	assert_int_equal(unlink(r.filler), 0);
	send_pkts(r.d.port, &ds->p[5], 0, ds->p[5].n);
	wait_metric(&r, "netoops_dumps_stored_total", 1);
	assert_int_equal(stop(&r), 1);		/* a dump was lost */
	assert_int_equal(cli_count(&r, ""), 1);
	log = slurp(r.d.log);
	for (i = 0; i < 5; i++)
		assert_named(&r, log, ds->boot[i], "dump lost");
	free(log);
	finish(&r, ds);
}

/* ---- a dump interrupted ---------------------------------------------- */

static void test_resume_restart(void **state)
{
	struct dumps *ds;
	size_t i, half, first = 0, len;
	char path[192], *log;
	struct run r;

	(void)state;
	new_dir(&r);
	start(&r, "600000", NULL);	/* nothing times out by itself */
	ds = make_dumps(30, 500, 20000, 512);
	for (i = 0; i < ds->n; i++) {
		assert_true(ds->p[i].n >= 6);
		half = ds->p[i].n / 2;
		send_pkts(r.d.port, &ds->p[i], 0, half);
		first += half;
	}
	wait_metric(&r, "netoops_packets_accepted_total", first);
	assert_int_equal(stop(&r), 0);
	assert_int_equal(cli_count(&r, "--partial"), 30);
	assert_int_equal(cli_count(&r, "--complete"), 0);

	start(&r, "600000", NULL);
	for (i = 0; i < ds->n; i++)
		send_pkts(r.d.port, &ds->p[i], ds->p[i].n / 2, ds->p[i].n);
	wait_metric(&r, "netoops_dumps_total{state=\"complete\"}", 30);
	wait_metric(&r, "netoops_dumps_stored_total", 30);
	printf("after the restart: %g dumps complete, %g resumed from %g"
	       " kept datagrams\n",
	       metric(&r, "netoops_dumps_total{state=\"complete\"}"),
	       metric(&r, "netoops_dumps_resumed_total"),
	       metric(&r, "netoops_packets_resumed_total"));
	assert_metric(&r, "netoops_dumps_total{state=\"partial\"}", 0);
	assert_metric(&r, "netoops_dumps_resumed_total", 30);
	assert_metric(&r, "netoops_packets_resumed_total", first);
	assert_metric(&r, "netoops_open_dumps", 0);
	assert_metric(&r, "netoops_resume_files", 0);
	assert_int_equal(stop(&r), 0);

	assert_int_equal(cli_count(&r, "--complete"), 30);
	assert_int_equal(cli_count(&r, "--partial"), 0);
	for (i = 0; i < ds->n; i++) {
		log = cli_log(&r, ds->boot[i], &len);
		assert_int_equal(len, ds->len[i]);
		assert_memory_equal(log, ds->log[i], len);
		free(log);
	}
	/* complete: their datagrams are no longer kept */
	snprintf(path, sizeof(path), "%s.spool/resume", r.d.db);
	{
		char cmd[256];

		snprintf(cmd, sizeof(cmd), "test -z \"$(ls -A '%s')\"", path);
		assert_int_equal(system(cmd), 0);
	}
	finish(&r, ds);
}

/* The rest of a dump that arrives after it was stored partial completes it. */
static void test_resume_timeout(void **state)
{
	struct dumps *ds;
	struct run r;
	size_t half, len;
	char *log;

	(void)state;
	new_dir(&r);
	start(&r, "1000", NULL);
	ds = make_dumps(1, 600, 20000, 512);
	half = ds->p[0].n / 2;
	send_pkts(r.d.port, &ds->p[0], 0, half);
	wait_metric(&r, "netoops_dumps_total{state=\"partial\"}", 1);
	wait_metric(&r, "netoops_dumps_stored_total", 1);
	assert_int_equal(cli_count(&r, "--partial"), 1);
	send_pkts(r.d.port, &ds->p[0], half, ds->p[0].n);
	wait_metric(&r, "netoops_dumps_total{state=\"complete\"}", 1);
	wait_metric(&r, "netoops_dumps_stored_total", 2);	/* replaced */
	assert_metric(&r, "netoops_dumps_resumed_total", 1);
	assert_metric(&r, "netoops_resume_files", 0);
	assert_int_equal(stop(&r), 0);
	assert_int_equal(cli_count(&r, "--complete"), 1);
	assert_int_equal(cli_count(&r, ""), 1);
	log = cli_log(&r, ds->boot[0], &len);
	assert_int_equal(len, ds->len[0]);
	assert_memory_equal(log, ds->log[0], len);
	free(log);
	finish(&r, ds);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		harness_test(test_resume_restart),
		harness_test(test_resume_timeout),
		harness_test(test_store_locked),
		harness_test(test_spool_restart),
		harness_test(test_disk_full),
		harness_test(test_refused),
		harness_test(test_pg_server_down),
		harness_test(test_pg_down_at_start),
	};

	if (harness_skip("collector-durability"))
		return 0;
	setvbuf(stdout, NULL, _IOLBF, 0);
	pg = getenv("NETOOPS_PG");
	if (pg)
		cmocka_set_test_filter("test_pg_*");
	else
		cmocka_set_skip_filter("test_pg_*");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
