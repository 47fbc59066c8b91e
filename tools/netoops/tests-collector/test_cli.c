// SPDX-License-Identifier: GPL-2.0
/*
 * The CLI verbs that follow and trim the store, and the figures an admin
 * reads (issue 12): list newest first with ages and glob filters, prune,
 * watch, --version of both programs, import-log of a log already stored,
 * netoopsd's retention (--retain-days, --max-store-bytes) while it keeps
 * storing, its kernel drop counter over two sockets, and a default the
 * documents gave wrong.  Run from tools/netoops (the documents' paths).
 *
 * Stores are filled through the store API with chosen receive times, then
 * read through the CLI.  Environment: NETOOPSD and NETOOPS_CLI name the
 * programs under test.  Every wait is for a condition, bounded.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include <linux/netoops.h>

#include "gen_dump.h"
#include "harness.h"
#include "netoops_decode.h"
#include "netoops_version.h"
#include "store/store.h"

#define DEADLINE_MS	20000
#define DAY_MS		86400000LL

static int64_t wall_now_ms(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return tv.tv_sec * 1000LL + tv.tv_usec / 1000;
}

static void mkdir_tmp(char *dir, size_t len)
{
	snprintf(dir, len, "/tmp/netoops-cli-XXXXXX");
	assert_non_null(mkdtemp(dir));
	current.active = true;
	current.pid = 0;
	snprintf(current.dir, sizeof(current.dir), "%s", dir);
}

/* A new temporary directory @dir with a store @db ("n.db") open in it. */
static struct nstore *open_tmp_store(char *dir, size_t dlen, char *db,
				     size_t dblen)
{
	struct nstore *st;

	mkdir_tmp(dir, dlen);
	snprintf(db, dblen, "%s/n.db", dir);
	assert_int_equal(nstore_open(db, NSTORE_SYNC_NORMAL, &st), 0);
	return st;
}

/*
 * Dump @n of host @host received at @ms, with @log_len bytes of log that
 * deflate cannot shrink much, in bucket @sig.
 */
static void put_dump(struct nstore *st, int n, const char *host,
		     const char *rel, const char *sig, int64_t ms,
		     size_t log_len, int64_t *ret_id)
{
	struct nstore_dump *d = nstore_dump_new();

	assert_non_null(d);
	memcpy(d->boot_id, &n, sizeof(n));
	d->boot_id[15] = 0xc1;
	d->dump_id = n;
	d->hostname = strdup(host);
	d->release = strdup(rel);
	d->reason = NETOOPS_REASON_OOPS;
	d->complete = true;
	d->pkt_count = d->pkt_received = 1;
	d->log = malloc(log_len + 1);
	assert_non_null(d->log);
	gen_noise(d->log, log_len, n);
	d->log_len = log_len;
	d->received_ms = d->stored_ms = ms;
	d->sig_hash = strdup(sig);
	d->sig_title = strdup("BUG: test crash");
	assert_int_equal(nstore_put(st, &d, 1, NULL), 0);
	if (ret_id)
		*ret_id = d->id;
	nstore_dump_free(d);
}

/* Line @i (0-based) of @text, without its newline, into @buf. */
static const char *line_of(const char *text, int i, char *buf, size_t len)
{
	const char *nl;

	while (i-- > 0) {
		text = strchr(text, '\n');
		assert_non_null(text);
		text++;
	}
	nl = strchr(text, '\n');
	snprintf(buf, len, "%.*s", (int)(nl ? nl - text : (long)strlen(text)),
		 text);
	return buf;
}

static void test_version(void **state)
{
	char cmd[512], out[256];
	const char *bins[2] = { getenv("NETOOPS_CLI"), getenv("NETOOPSD") };
	int i, st;
	FILE *f;

	(void)state;
	for (i = 0; i < 2; i++) {
		size_t n;

		snprintf(cmd, sizeof(cmd), "%s --version", bins[i]);
		f = popen(cmd, "r");
		assert_non_null(f);
		n = fread(out, 1, sizeof(out) - 1, f);
		out[n] = 0;
		st = pclose(f);
		assert_true(WIFEXITED(st));
		assert_int_equal(WEXITSTATUS(st), 0);
		snprintf(cmd, sizeof(cmd), "%s " NETOOPS_TOOLS_VERSION
			 " (wire protocol %d)\n", i ? "netoopsd" : "netoops",
			 NETOOPS_VERSION);
		assert_string_equal(out, cmd);
	}
}

/*
 * Three dumps stored out of time order: list shows the newest first, with
 * an age, --limit keeps the newest, JSON keeps absolute times, --host and
 * --kernel take globs.
 */
static void test_list_order(void **state)
{
	char dir[64], db[128], out[8192], l[512];
	int64_t now = wall_now_ms(), id[3], ms[3];
	struct nstore *st;
	json_t *j, *d;
	json_error_t err;

	(void)state;
	st = open_tmp_store(dir, sizeof(dir), db, sizeof(db));
	ms[0] = now - 3 * 3600000 - 60000;
	ms[1] = now - 3 * DAY_MS - 60000;
	ms[2] = now - 90000;
	put_dump(st, 0, "web-1", "6.12.1", "aaaa", ms[0], 100, &id[0]);
	put_dump(st, 1, "db-1", "6.1.9", "aaaa", ms[1], 100, &id[1]);
	put_dump(st, 2, "web-2", "6.12.2", "bbbb", ms[2], 100, &id[2]);
	nstore_close(st);

	assert_int_equal(harness_cli(db, "list", out, sizeof(out)), 0);
	assert_non_null(strstr(line_of(out, 0, l, sizeof(l)), "AGE"));
	/* newest first: 2 (90 s ago), 0 (3 h ago), 1 (3 days ago) */
	assert_int_equal(atoll(line_of(out, 1, l, sizeof(l))), id[2]);
	assert_non_null(strstr(l, "  1 min ago  "));
	assert_int_equal(atoll(line_of(out, 2, l, sizeof(l))), id[0]);
	assert_non_null(strstr(l, "  3 h ago  "));
	assert_int_equal(atoll(line_of(out, 3, l, sizeof(l))), id[1]);
	assert_non_null(strstr(l, "  3 d ago  "));
	assert_string_equal(line_of(out, 4, l, sizeof(l)), "");

	snprintf(l, sizeof(l), "show %lld", (long long)id[0]);
	assert_int_equal(harness_cli(db, l, out, sizeof(out)), 0);
	assert_non_null(strstr(out, " UTC (3 h ago) from "));

	assert_int_equal(harness_cli(db, "buckets", out, sizeof(out)), 0);
	assert_non_null(strstr(out, "; last seen 1 min ago; e.g. `netoops"
			       " show"));

	assert_int_equal(harness_cli(db, "list --limit 2", out,
				     sizeof(out)), 0);
	assert_int_equal(atoll(line_of(out, 1, l, sizeof(l))), id[2]);
	assert_int_equal(atoll(line_of(out, 2, l, sizeof(l))), id[0]);
	assert_string_equal(line_of(out, 3, l, sizeof(l)), "");

	/* JSON: the same order, times exact and absolute */
	assert_int_equal(harness_cli(db, "list --json --no-log --limit 1", out,
				     sizeof(out)), 0);
	j = json_loads(out, 0, &err);
	assert_non_null(j);
	assert_int_equal(json_array_size(j), 1);
	d = json_array_get(j, 0);
	assert_int_equal(json_integer_value(json_object_get(d, "id")), id[2]);
	assert_int_equal(json_integer_value(json_object_get(d, "received_ms")),
			 ms[2]);
	assert_non_null(json_string_value(json_object_get(d, "received")));
	assert_null(json_object_get(d, "age"));
	json_decref(j);

	/* globs, and a plain name still exact */
	assert_int_equal(harness_cli(db, "list --host 'web-*'", out,
				     sizeof(out)), 0);
	assert_non_null(strstr(out, "web-1"));
	assert_non_null(strstr(out, "web-2"));
	assert_null(strstr(out, "db-1"));
	assert_int_equal(harness_cli(db,
				     "list --kernel '6.12.*' --host '*-[2]'",
				     out, sizeof(out)), 0);
	assert_int_equal(atoll(line_of(out, 1, l, sizeof(l))), id[2]);
	assert_string_equal(line_of(out, 2, l, sizeof(l)), "");
	assert_int_equal(harness_cli(db, "list --host web", out,
				     sizeof(out)), 0);
	assert_string_equal(line_of(out, 1, l, sizeof(l)), "");
	assert_int_equal(harness_cli(db, "buckets --json --host 'web-?'", out,
				     sizeof(out)), 0);
	j = json_loads(out, 0, &err);
	assert_int_equal(json_array_size(j), 2);
	json_decref(j);
	harness_cleanup(dir);
}

/*
 * Times and limits out of range are usage errors, never a wrapped product
 * (UBSan aborted, a release build listed everything), nor 0 ("no bound");
 * the earliest time taken, 1970-01-01 00:00:01, is a real bound.
 */
static void test_bad_bounds(void **state)
{
	static const char *const bad[] = {
		"--since 9223372036854776", "--since -106751991167301d",
		"--until 9223372036854775807", "--since -9999999999999999999d",
		"--until 1970-01-01", "--until 0", "--since 0",
		"--until '1969-12-31 23:59:59'",
		"--limit 99999999999999999999", "--limit 9223372036854775808",
	};
	char dir[64], db[128], out[8192], args[256];
	struct nstore *st;
	json_t *j;
	size_t i;

	(void)state;
	st = open_tmp_store(dir, sizeof(dir), db, sizeof(db));
	put_dump(st, 0, "old-1", "6.12.1", "aaaa", 1500, 100, NULL);
	put_dump(st, 1, "new-1", "6.12.1", "aaaa", wall_now_ms(), 100, NULL);
	nstore_close(st);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(args, sizeof(args), "list %s 2>/dev/null", bad[i]);
		if (harness_cli(db, args, out, sizeof(out)) != 2)
			fail_msg("netoops %s: not a usage error", args);
		snprintf(args, sizeof(args), "count --by time %s 2>/dev/null",
			 bad[i]);
		if (harness_cli(db, args, out, sizeof(out)) != 2)
			fail_msg("netoops %s: not a usage error", args);
	}
	/* the smallest bound there is: one second after the epoch */
	j = harness_cli_json(db, "list --json --no-log"
			     " --until '1970-01-01 00:00:02'");
	assert_int_equal(json_array_size(j), 1);
	assert_string_equal(json_string_value(json_object_get(
		json_array_get(j, 0), "host")), "old-1");
	json_decref(j);
	j = harness_cli_json(db, "list --json --no-log --since 1");
	assert_int_equal(json_array_size(j), 2);
	json_decref(j);
	harness_cleanup(dir);
}

/*
 * --host, --kernel and --bucket take at most 256 bytes, --host and
 * --kernel at most 32 wildcards and [...] sets: a long run of '?' or '*'
 * kept PostgreSQL's regex matching busy for seconds per query.  Beyond
 * that, exit status 2 and a message that says which limit; a --bucket
 * prefix has no wildcards (its '?' are literal).
 */
static void test_glob_cap(void **state)
{
	static const char *const opts[] = { "--host", "--kernel", "--bucket" };
	char dir[64], db[128], out[8192], args[512], glob[258];
	struct nstore *st;
	size_t i;

	(void)state;
	st = open_tmp_store(dir, sizeof(dir), db, sizeof(db));
	put_dump(st, 0, "web-1", "6.12.1", "aaaa", wall_now_ms(), 100, NULL);
	nstore_close(st);
	for (i = 0; i < 3; i++) {
		memset(glob, 'x', 257);
		memset(glob, '?', i < 2 ? 32 : 257);
		glob[257] = 0;
		snprintf(args, sizeof(args), "list %s '%s' 2>&1",
			 opts[i], glob);
		if (harness_cli(db, args, out, sizeof(out)) != 2)
			fail_msg("%s of 257 bytes: not a usage error", opts[i]);
		if (!strstr(out, "glob too long (at most 256 bytes)"))
			fail_msg("%s of 257 bytes: \"%s\"", opts[i], out);
		glob[256] = 0;
		snprintf(args, sizeof(args), "buckets %s '%s'", opts[i], glob);
		assert_int_equal(harness_cli(db, args, out, sizeof(out)), 0);
	}
	/* 33 wildcards, or 200: refused before any query; 32: taken */
	for (i = 0; i < 2; i++) {
		memset(glob, '*', 200);
		glob[200] = 0;
		snprintf(args, sizeof(args), "count %s '%s' 2>&1", opts[i],
			 glob);
		assert_int_equal(harness_cli(db, args, out, sizeof(out)), 2);
		if (!strstr(out, "netoops count: ") ||
		    !strstr(out, "glob too complex (at most 32 wildcards"))
			fail_msg("%s of 200 '*': \"%s\"", opts[i], out);
		/* a set and 32 '*', then a set and 31 */
		memcpy(glob, "[0-9a-z]", 8);
		glob[40] = 0;
		snprintf(args, sizeof(args), "list %s '%s' 2>/dev/null",
			 opts[i], glob);
		assert_int_equal(harness_cli(db, args, out, sizeof(out)), 2);
		glob[39] = 0;
		snprintf(args, sizeof(args), "--json list %s '%s' 2>/dev/null",
			 opts[i], glob);
		assert_int_equal(harness_cli(db, args, out, sizeof(out)), 0);
		assert_non_null(strstr(out, "web-1"));
	}
	harness_cleanup(dir);
}

/* A log imported twice: the second time names the stored dump's id. */
static void test_import_again(void **state)
{
	char dir[64], db[128], a[160], b[160], args[512], out[2048];
	json_t *j;
	FILE *f;

	(void)state;
	mkdir_tmp(dir, sizeof(dir));
	snprintf(db, sizeof(db), "%s/n.db", dir);
	snprintf(a, sizeof(a), "%s/a.log", dir);
	snprintf(b, sizeof(b), "%s/b.log", dir);
	f = fopen(a, "w");
	fputs("BUG: unable to handle page fault\nRIP: a_func+0x1/0x10\n", f);
	fclose(f);
	f = fopen(b, "w");
	fputs("Kernel panic - not syncing: b\n", f);
	fclose(f);
	snprintf(args, sizeof(args), "import-log %s %s", b, a);
	assert_int_equal(harness_cli(db, args, out, sizeof(out)), 0);
	assert_non_null(strstr(out, "a.log: stored #2 "));
	snprintf(args, sizeof(args), "import-log %s", a);
	assert_int_equal(harness_cli(db, args, out, sizeof(out)), 0);
	assert_non_null(strstr(out, "a.log: already stored #2 "));
	snprintf(args, sizeof(args), "--json import-log %s", a);
	assert_int_equal(harness_cli(db, args, out, sizeof(out)), 0);
	j = json_loads(out, 0, NULL);
	assert_non_null(j);
	assert_int_equal(json_integer_value(json_object_get(j, "id")), 2);
	assert_true(json_is_true(json_object_get(j, "duplicate")));
	json_decref(j);
	harness_cleanup(dir);
}

/*
 * prune: by age exactly the dumps older than the limit, printed; by size
 * under the limit on disk, the newest kept; usage and missing stores.
 */
static void test_prune(void **state)
{
	char dir[64], db[128], db2[128], out[65536], args[256];
	int64_t now = wall_now_ms(), id[10];
	struct nstore *st;
	json_t *j, *rm, *e;
	size_t i;
	int k, lines;

	(void)state;
	st = open_tmp_store(dir, sizeof(dir), db, sizeof(db));
	/* dump k received k days and 12 hours ago */
	for (k = 0; k < 10; k++)
		put_dump(st, k, "h", "6.12", k < 5 ? "young" : "old",
			 now - k * DAY_MS - DAY_MS / 2, 200, &id[k]);
	nstore_close(st);

	assert_int_equal(harness_cli(db, "prune", out, sizeof(out)), 2);
	assert_int_equal(harness_cli(db, "prune --older-than -1", out,
				     sizeof(out)), 2);
	assert_int_equal(harness_cli(db, "prune --max-bytes 12Q", out,
				     sizeof(out)), 2);
	/* older than 4 days: dumps 4..9 */
	assert_int_equal(harness_cli(db, "prune --older-than 4 --json", out,
				     sizeof(out)), 0);
	j = json_loads(out, 0, NULL);
	assert_non_null(j);
	assert_int_equal(json_integer_value(json_object_get(j, "by_age")), 6);
	assert_int_equal(json_integer_value(json_object_get(j, "by_size")), 0);
	assert_int_equal(json_integer_value(json_object_get(j, "dumps_left")),
			 4);
	rm = json_object_get(j, "removed");
	assert_int_equal(json_array_size(rm), 6);
	json_array_foreach(rm, i, e) {
		int64_t v = json_integer_value(json_object_get(e, "id"));

		for (k = 4; k < 10 && id[k] != v; k++)
			;
		assert_true(k < 10);
		id[k] = -1;		/* each once */
	}
	json_decref(j);
	assert_int_equal(harness_cli(db, "buckets --json", out,
				     sizeof(out)), 0);
	j = json_loads(out, 0, NULL);
	assert_int_equal(json_array_size(j), 1);
	assert_string_equal(json_string_value(json_object_get(
		json_array_get(j, 0), "bucket")), "young");
	assert_int_equal(json_integer_value(json_object_get(
		json_array_get(j, 0), "count")), 4);
	json_decref(j);
	/* human output: one line per dump removed, then the summary */
	assert_int_equal(harness_cli(db, "prune --older-than 2.25", out,
				     sizeof(out)), 0);
	for (lines = 0, k = 0; out[k]; k++)
		lines += out[k] == '\n';
	assert_int_equal(lines, 3);
	assert_non_null(strstr(out, "removed #"));
	assert_non_null(strstr(out, "pruned 2 dump(s): 2 by age, 0 by size,"
			       " 2 left"));
	assert_int_equal(harness_cli(db, "prune --older-than 2.25", out,
				     sizeof(out)), 0);
	assert_non_null(strstr(out, "pruned 0 dump(s)"));

	/* by size: 300 dumps of 8 KiB, 1 MiB allowed */
	snprintf(db2, sizeof(db2), "%s/big.db", dir);
	assert_int_equal(nstore_open(db2, NSTORE_SYNC_NORMAL, &st), 0);
	for (k = 0; k < 300; k++)
		put_dump(st, k, "h", "6.12", "s", now - (300 - k) * 1000,
			 8192, NULL);
	nstore_close(st);
	assert_true(harness_disk_bytes(db2) > 2 << 20);
	assert_int_equal(harness_cli(db2, "prune --max-bytes 1M --json", out,
				     sizeof(out)), 0);
	j = json_loads(out, 0, NULL);
	assert_non_null(j);
	print_message("prune --max-bytes 1M: %lld -> %lld bytes, %lld of 300"
		      " dumps removed\n",
		      json_integer_value(json_object_get(j, "bytes_before")),
		      json_integer_value(json_object_get(j, "bytes_after")),
		      json_integer_value(json_object_get(j, "by_size")));
	assert_true(json_integer_value(json_object_get(j, "bytes_after")) <=
		    1 << 20);
	k = json_integer_value(json_object_get(j, "dumps_left"));
	assert_true(k * 8192 > (1 << 20) / 2);
	json_decref(j);
	/* the CLI has closed the store: what is on disk now */
	assert_true(harness_disk_bytes(db2) <= 1 << 20);
	assert_int_equal(harness_cli(db2, "list --json --no-log --limit 1", out,
				     sizeof(out)), 0);
	j = json_loads(out, 0, NULL);
	assert_int_equal(json_integer_value(json_object_get(
		json_array_get(j, 0), "received_ms")), now - 1000);
	json_decref(j);

	/* no such store: an error, and none created */
	snprintf(args, sizeof(args), "%s/none.db", dir);
	assert_int_equal(harness_cli(args, "prune --older-than 1 2>/dev/null",
				     out, sizeof(out)), 1);
	assert_int_equal(access(args, F_OK), -1);
	harness_cleanup(dir);
}

/* Reads what @fd has until @want is in @buf or @deadline (monotonic ms). */
static bool read_until(int fd, char *buf, size_t cap, size_t *len,
		       const char *want, uint64_t deadline)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	ssize_t n;

	while (!strstr(buf, want)) {
		if (now_ms() >= deadline || *len + 1 >= cap)
			return false;
		if (poll(&p, 1, 50) <= 0)
			continue;
		n = read(fd, buf + *len, cap - 1 - *len);
		if (n <= 0)
			return false;
		*len += n;
		buf[*len] = 0;
	}
	return true;
}

/*
 * watch (text, then --json): a dump stored after it started shows up as
 * one line; SIGTERM (then SIGINT) ends it with status 0.
 */
static void watch_once(const char *db, bool json, int sig)
{
	char out[8192] = "", err[1024] = "";
	int po[2], pe[2], st, k;
	size_t olen = 0, elen = 0;
	struct nstore *s;
	int64_t id;
	pid_t pid;

	assert_int_equal(pipe(po), 0);
	assert_int_equal(pipe(pe), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		const char *argv[] = { getenv("NETOOPS_CLI"), "--db", db,
				       "watch", "--interval", "50",
				       json ? "--json" : "--host", json ?
				       NULL : "w*", NULL };

		dup2(po[1], 1);
		dup2(pe[1], 2);
		execv(argv[0], (char **)argv);
		_exit(127);
	}
	current.pid = pid;
	close(po[1]);
	close(pe[1]);
	/* started: it has read the last id, what comes next is new */
	assert_true(read_until(pe[0], err, sizeof(err), &elen, "following",
			       now_ms() + DEADLINE_MS));
	assert_int_equal(nstore_open(db, NSTORE_SYNC_NORMAL, &s), 0);
	k = json ? 101 : 100;
	put_dump(s, k, json ? "x-json" : "w-text", "6.12", "s",
		 wall_now_ms(), 64, &id);
	if (!json)	/* filtered out: --host w* */
		put_dump(s, 102, "other", "6.12", "s", wall_now_ms(), 64,
			 NULL);
	nstore_close(s);
	assert_true(read_until(po[0], out, sizeof(out), &olen,
			       json ? "x-json" : "w-text",
			       now_ms() + DEADLINE_MS));
	assert_int_equal(kill(pid, sig), 0);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	current.pid = 0;
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	/* the rest of its output, to the end */
	read_until(po[0], out, sizeof(out), &olen, "\x01", now_ms() + 1000);
	close(po[0]);
	close(pe[0]);
	assert_null(strstr(out, "other"));
	if (json) {
		json_t *j = json_loads(out, JSON_DISABLE_EOF_CHECK, NULL);

		assert_non_null(j);
		assert_int_equal(json_integer_value(json_object_get(j, "id")),
				 id);
		assert_string_equal(json_string_value(json_object_get(j,
				    "host")), "x-json");
		assert_non_null(json_object_get(j, "received_ms"));
		assert_null(json_object_get(j, "log"));
		json_decref(j);
		assert_int_equal(strchr(out, '\n')[1], 0);	/* one line */
	} else {
		char l[512];

		assert_non_null(strstr(line_of(out, 0, l, sizeof(l)), "AGE"));
		assert_int_equal(atoll(line_of(out, 1, l, sizeof(l))), id);
		assert_non_null(strstr(l, "w-text"));
		assert_string_equal(line_of(out, 2, l, sizeof(l)), "");
	}
}

static void test_watch(void **state)
{
	char dir[64], db[128];
	struct nstore *st;

	(void)state;
	st = open_tmp_store(dir, sizeof(dir), db, sizeof(db));
	put_dump(st, 1, "w-old", "6.12", "s", wall_now_ms(), 64, NULL);
	nstore_close(st);
	watch_once(db, false, SIGTERM);
	watch_once(db, true, SIGINT);
	harness_cleanup(dir);
}

/* netoopsd on the store in r->db, in the directory of harness_dir(). */
static void start_daemon(struct harness_daemon *r, const char *const *extra)
{
	harness_start(r, (const char *const []){
			"--port", "0", "--db", r->db, "--ready-file", r->ready,
			"--metrics-listen", "127.0.0.1:0", "--sync", "normal",
			"--workers", "1", NULL }, extra, DEADLINE_MS);
}

static void send_to(const char *addr, int port, const void *buf, size_t len)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	assert_true(fd >= 0);
	sa.sin_port = htons(port);
	assert_int_equal(inet_pton(AF_INET, addr, &sa.sin_addr), 1);
	assert_int_equal(sendto(fd, buf, len, 0, (struct sockaddr *)&sa,
				sizeof(sa)), (ssize_t)len);
	close(fd);
}

/*
 * netoopsd --retain-days 2 --max-store-bytes 2M on a store holding old
 * dumps and more than 2M of new ones: the old go, then the oldest of the
 * rest until the files fit, while a dump sent meanwhile is stored.
 */
static void test_daemon_retention(void **state)
{
	static const char *const extra[] = {
		"--listen", "127.0.0.1", "--retain-days", "2",
		"--max-store-bytes", "2M", "--retain-interval", "1", NULL
	};
	struct harness_daemon r;
	int64_t now = wall_now_ms(), newest;
	struct gen_opts go = { .hostname = "fresh", .release = "6.12",
			       .compress = true };
	struct gen_pkts p;
	struct nstore *st;
	uint8_t boot[16] = { 0xe7, 0x12 };
	char out[4096];
	double age, size;
	json_t *j;
	size_t i;
	int k;

	(void)state;
	harness_dir(&r, "cli");
	assert_int_equal(nstore_open(r.db, NSTORE_SYNC_NORMAL, &st), 0);
	for (k = 0; k < 5; k++)		/* 3 to 7 days old */
		put_dump(st, k, "old", "6.1", "o", now - (3 + k) * DAY_MS,
			 1000, NULL);
	for (k = 5; k < 505; k++)	/* 4 MB of the last hour */
		put_dump(st, k, "recent", "6.12", "r",
			 now - 3600000 + k * 1000, 8192, NULL);
	nstore_close(st);
	newest = now - 3600000 + 504 * 1000;
	assert_true(harness_disk_bytes(r.db) > 4 << 20);

	start_daemon(&r, extra);
	age = harness_wait_metric(r.mport,
		"netoops_retention_deleted_total{reason=\"age\"}", 5,
		DEADLINE_MS, r.log);
	assert_true(age == 5);
	size = harness_wait_metric(r.mport,
		"netoops_retention_deleted_total{reason=\"size\"}", 1,
		DEADLINE_MS, r.log);
	/* the daemon keeps storing meanwhile */
	assert_int_equal(gen_dump(&p, boot, 1, &go, "BUG: retention\n", 15),
			 0);
	for (i = 0; i < p.n; i++)
		send_to("127.0.0.1", r.port, p.buf[i], p.len[i]);
	gen_pkts_free(&p);
	harness_wait_metric(r.mport, "netoops_dumps_stored_total", 1,
			    DEADLINE_MS, r.log);
	assert_int_equal(harness_stop(&r.pid), 0);
	print_message("retention: deleted %g by age, %g by size\n", age,
		      size);
	print_message("retention: %lld bytes on disk after netoopsd\n",
		      (long long)harness_disk_bytes(r.db));
	assert_true(harness_disk_bytes(r.db) <= 2 << 20);
	assert_int_equal(harness_cli(r.db, "stats --json", out,
				     sizeof(out)), 0);
	j = json_loads(out, 0, NULL);
	assert_true(json_integer_value(json_object_get(j, "file_bytes")) <=
		    2 << 20);
	json_decref(j);
	/* none old left; the newest recent ones and the fresh one kept */
	assert_int_equal(harness_cli(r.db, "list --host old", out,
				     sizeof(out)), 0);
	assert_null(strchr(strchr(out, '\n') + 1, '\n'));
	assert_int_equal(harness_cli(r.db, "list --json --no-log --limit 2",
				     out, sizeof(out)), 0);
	j = json_loads(out, 0, NULL);
	assert_string_equal(json_string_value(json_object_get(
		json_array_get(j, 0), "host")), "fresh");
	assert_int_equal(json_integer_value(json_object_get(
		json_array_get(j, 1), "received_ms")), newest);
	json_decref(j);
	harness_cleanup(r.dir);
}

/*
 * netoops prune --max-bytes while netoopsd stores 40 dumps sent meanwhile:
 * both write the store; every dump is stored, none lost, the prune ends.
 */
static void test_prune_beside_daemon(void **state)
{
	static const char *const extra[] = { "--listen", "127.0.0.1", NULL };
	struct gen_opts go = { .hostname = "during", .release = "6.12",
			       .compress = true };
	static char out[1 << 20];
	char cmd[512];
	struct harness_daemon r;
	struct gen_pkts p;
	struct nstore *st;
	int64_t now = wall_now_ms();
	uint8_t boot[16] = { 0xe7, 0x13 };
	json_t *j;
	size_t i;
	pid_t pid;
	int k, status;

	(void)state;
	harness_dir(&r, "cli");
	assert_int_equal(nstore_open(r.db, NSTORE_SYNC_NORMAL, &st), 0);
	for (k = 0; k < 400; k++)
		put_dump(st, k, "before", "6.12", "b", now - 400000 + k * 1000,
			 8192, NULL);
	nstore_close(st);
	start_daemon(&r, extra);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		snprintf(cmd, sizeof(cmd), "%s --db %s prune --max-bytes 1M"
			 " >%s/prune.out 2>&1", getenv("NETOOPS_CLI"), r.db,
			 r.dir);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	for (k = 0; k < 40; k++) {
		boot[15] = k;
		assert_int_equal(gen_dump(&p, boot, 1, &go, "BUG: during\n",
					  12), 0);
		for (i = 0; i < p.n; i++)
			send_to("127.0.0.1", r.port, p.buf[i], p.len[i]);
		gen_pkts_free(&p);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	/* 1: the daemon wrote to the WAL after the prune truncated it */
	assert_true(WEXITSTATUS(status) <= 1);
	harness_wait_metric(r.mport, "netoops_dumps_stored_total", 40,
			    DEADLINE_MS, r.log);
	assert_true(harness_metric(r.mport, "netoops_dumps_lost_total") == 0);
	assert_int_equal(harness_stop(&r.pid), 0);
	assert_int_equal(harness_cli(r.db, "list --json --no-log --host during",
				     out, sizeof(out)), 0);
	j = json_loads(out, 0, NULL);
	assert_int_equal(json_array_size(j), 40);
	json_decref(j);
	assert_int_equal(harness_cli(r.db, "list --json --no-log --host before",
				     out, sizeof(out)), 0);
	j = json_loads(out, 0, NULL);
	print_message("prune beside netoopsd: %zu of 400 old dumps left, 40"
		      " new stored\n", json_array_size(j));
	assert_true(json_array_size(j) < 400);
	json_decref(j);
	harness_cleanup(r.dir);
}

/*
 * The receive queue and drop count of the UDP socket bound to @addr
 * (network order) and @port, from /proc/net/udp.
 */
static void udp_queue(uint32_t addr, int port, unsigned int *ret_rxq,
		      unsigned int *ret_drops)
{
	unsigned int a, p, rxq, drops;
	char line[512];
	bool found = false;
	FILE *f = fopen("/proc/net/udp", "r");

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, " %*u: %8X:%4X %*8X:%*4X %*2X %*8X:%8X"
			   " %*2X:%*8X %*8X %*u %*u %*u %*u %*s %u", &a, &p,
			   &rxq, &drops) != 4)
			continue;
		if (a == addr && (int)p == port) {
			*ret_rxq = rxq;
			*ret_drops = drops;
			found = true;
		}
	}
	fclose(f);
	assert_true(found);
}

/*
 * netoops_kernel_drops_total over two sockets (one worker, two listen
 * addresses): netoopsd stopped (SIGSTOP), both receive buffers overflow;
 * once it has read all, one more datagram on each carries the final count
 * (SO_RXQ_OVFL).  The metric must be the sum of both sockets' drops as the
 * kernel counts them (/proc/net/udp), not the last socket's.
 */
static void test_kernel_drops_summed(void **state)
{
	static const char *const addrs[2] = { "127.0.0.1", "127.0.0.2" };
	static const char *const extra[] = {
		"--listen", "127.0.0.1", "--listen", "127.0.0.2",
		"--rcvbuf", "4096", NULL
	};
	unsigned int rxq[2], drops[2];
	struct harness_daemon r;
	uint32_t a[2];
	uint64_t end;
	char junk[200];
	double kd;
	int i, k, st;

	(void)state;
	harness_dir(&r, "cli");
	start_daemon(&r, extra);
	for (i = 0; i < 2; i++)
		assert_int_equal(inet_pton(AF_INET, addrs[i], &a[i]), 1);
	memset(junk, 'j', sizeof(junk));
	/*
	 * kill() returns before the daemon stops: the thread that takes the
	 * signal has to run to stop the others, and until then its receive
	 * thread may read all that is sent (seen once on a loaded host:
	 * drops 0).  Its parent learns when every thread has stopped.
	 */
	assert_int_equal(kill(r.pid, SIGSTOP), 0);
	assert_int_equal(waitpid(r.pid, &st, WUNTRACED), r.pid);
	assert_true(WIFSTOPPED(st));
	for (i = 0; i < 2; i++)
		for (k = 0; k < 300; k++)
			send_to(addrs[i], r.port, junk, sizeof(junk));
	assert_int_equal(kill(r.pid, SIGCONT), 0);
	end = now_ms() + DEADLINE_MS;
	for (;;) {
		udp_queue(a[0], r.port, &rxq[0], &drops[0]);
		udp_queue(a[1], r.port, &rxq[1], &drops[1]);
		if (!rxq[0] && !rxq[1])
			break;
		assert_true(now_ms() < end);
		nap();
	}
	assert_true(drops[0] > 0);
	assert_true(drops[1] > 0);
	for (i = 0; i < 2; i++)
		send_to(addrs[i], r.port, junk, sizeof(junk));
	kd = harness_wait_metric(r.mport, "netoops_kernel_drops_total",
				 drops[0] + drops[1], DEADLINE_MS, r.log);
	print_message("kernel drops: %u + %u, metric %g\n", drops[0],
		      drops[1], kd);
	assert_true(kd == drops[0] + drops[1]);
	assert_int_equal(harness_stop(&r.pid), 0);
	harness_cleanup(r.dir);
}

/* Whether file @path has a line holding @want. */
static bool file_has(const char *path, const char *want)
{
	char line[1024];
	bool found = false;
	FILE *f = fopen(path, "r");

	if (!f)
		fail_msg("cannot open %s", path);
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, want);
	fclose(f);
	return found;
}

/*
 * --max-packets-per-dump: the help, the example configuration and the
 * admin guide give the reassembler's real default (they said 4096).
 */
static void test_documented_defaults(void **state)
{
	char cmd[256], want[128];
	int st;

	(void)state;
	snprintf(want, sizeof(want), "--max-packets-per-dump N   (default %d)",
		 NETOOPS_REASM_DEF_PKTS);
	snprintf(cmd, sizeof(cmd), "%s --help | grep -qF -e '%s'",
		 getenv("NETOOPSD"), want);
	st = system(cmd);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	snprintf(want, sizeof(want), "#max-packets-per-dump = %d",
		 NETOOPS_REASM_DEF_PKTS);
	assert_true(file_has("netoopsd.conf.example", want));
	snprintf(want, sizeof(want), "``--max-packets-per-dump``   %d ",
		 NETOOPS_REASM_DEF_PKTS);
	assert_true(file_has("../../Documentation/admin-guide/"
			     "netoops-collector.rst", want));
}

/*
 * A stored crash time the sender chose out of range (a store written
 * before record.c refused it): show, text and --json, under the
 * sanitizers, prints the dump without a crash time rather than computing
 * wall_sec * 1000 on INT64_MAX / INT64_MIN.
 */
static void test_show_wall_sec_extremes(void **state)
{
	static const int64_t secs[] = { INT64_MAX, INT64_MIN };
	char dir[64], db[128], args[64], out[8192];
	struct nstore_dump *d;
	struct nstore *st;
	int64_t id, bad[2];
	json_t *j;
	size_t i;

	(void)state;
	mkdir_tmp(dir, sizeof(dir));
	snprintf(db, sizeof(db), "%s/n.db", dir);
	assert_int_equal(nstore_open(db, 0, &st), 0);
	for (i = 0; i < 2; i++) {
		put_dump(st, (int)i + 1, "time-bomb", "6.12", "s", 1000 + i,
			 100, &id);
		assert_int_equal(nstore_get(st, id, &d), 0);
		d->have_time = true;
		d->wall_sec = secs[i];
		d->wall_nsec = 999999999;
		d->dump_id += 100;
		d->id = 0;
		assert_int_equal(nstore_put(st, &d, 1, NULL), 0);
		bad[i] = d->id;
		nstore_dump_free(d);
	}
	nstore_close(st);
	for (i = 0; i < 2; i++) {
		snprintf(args, sizeof(args), "--json show %lld",
			 (long long)bad[i]);
		j = harness_cli_json(db, args);
		assert_non_null(j);
		assert_null(json_object_get(j, "crash_time"));
		assert_string_equal(json_string_value(json_object_get(j,
					"host")), "time-bomb");
		assert_true(json_integer_value(json_object_get(j, "id")) ==
			    bad[i]);
		json_decref(j);
		snprintf(args, sizeof(args), "show %lld", (long long)bad[i]);
		assert_int_equal(harness_cli(db, args, out, sizeof(out)), 0);
		assert_null(strstr(out, "crashed:"));
		assert_non_null(strstr(out, "time-bomb"));
	}
	harness_cleanup(dir);
}

/*
 * Dumps received at INT64_MIN, in 1969, 1970, far ahead and at INT64_MAX
 * (a store holds any received_ms): list, show, buckets and count print
 * them, ages included, without a signed overflow (UBSan aborted in the
 * age: now - INT64_MIN).
 */
static void test_received_extremes(void **state)
{
	static const int64_t ms[] = {
		INT64_MIN, INT64_MIN + 1, -1, 1, INT64_MAX - 1, INT64_MAX,
	};
	char dir[64], db[128], out[16384], args[64];
	int64_t id[6];
	struct nstore *st;
	size_t i;

	(void)state;
	st = open_tmp_store(dir, sizeof(dir), db, sizeof(db));
	for (i = 0; i < 6; i++)
		put_dump(st, i, "edge", "6.12.1", "eeee", ms[i], 100, &id[i]);
	nstore_close(st);
	assert_int_equal(harness_cli(db, "list 2>&1", out, sizeof(out)), 0);
	assert_null(strstr(out, "runtime error"));
	/* the oldest: 106,751,991,167 days ago and more, not wrapped */
	assert_non_null(strstr(out, " d ago"));
	assert_non_null(strstr(out, "in "));
	for (i = 0; i < 6; i++) {
		snprintf(args, sizeof(args), "show %lld 2>&1",
			 (long long)id[i]);
		assert_int_equal(harness_cli(db, args, out, sizeof(out)), 0);
		assert_null(strstr(out, "runtime error"));
	}
	assert_int_equal(harness_cli(db, "buckets 2>&1", out, sizeof(out)),
			 0);
	assert_null(strstr(out, "runtime error"));
	assert_int_equal(harness_cli(db, "count --by time --step 86400 2>&1",
				     out, sizeof(out)), 0);
	assert_null(strstr(out, "runtime error"));
	harness_cleanup(dir);
}

/* Bidirectional controls and invisible characters of a test, raw UTF-8. */
static const char *const hidden_raw[] = {
	"\xe2\x80\xae", "\xe2\x80\x8b", "\xef\xbb\xbf", "\xc2\xad",
	"\xe2\x81\xa6", "\xe2\x81\xa9", "\xe2\x80\x8f", "\xd8\x9c",
};

static void assert_no_hidden(const char *what, const char *out)
{
	size_t i;

	for (i = 0; i < sizeof(hidden_raw) / sizeof(hidden_raw[0]); i++)
		if (strstr(out, hidden_raw[i]))
			fail_msg("%s: hidden character %zu raw", what, i);
}

/*
 * A sender's bidirectional controls (U+202E RIGHT-TO-LEFT OVERRIDE...)
 * and invisible characters (zero-width space, BOM, soft hyphen) in its
 * hostname, release, user field and log: `show` and `list` print them as
 * \uXXXX, --json as JSON's \uXXXX escapes (the values themselves exact),
 * never raw.  A byte that is not UTF-8 is '?' in JSON, the valid
 * characters beside it kept (they were all '?' in a user field).
 */
static void test_show_hidden(void **state)
{
	char dir[64], db[128], out[65536], args[128], jargs[128];
	struct nstore_dump *d = nstore_dump_new();
	static const char log[] = "line \xe2\x80\xae" "1\n"
				  "\xef\xbb\xbf" "bom shy\xc2\xad zw\xe2\x80\x8bsp\n"
				  "bad \xfe \xc3\xa9 end\n";
	struct nstore *st;
	const char *v;
	json_t *j;

	(void)state;
	st = open_tmp_store(dir, sizeof(dir), db, sizeof(db));
	assert_non_null(d);
	d->boot_id[0] = 0xb1;
	d->dump_id = 1;
	d->hostname = strdup("adm\xe2\x80\xaenimda");
	d->release = strdup("6.12\xe2\x80\x8f-\xd8\x9c");
	d->reason = NETOOPS_REASON_OOPS;
	d->complete = true;
	d->pkt_count = d->pkt_received = 1;
	d->log = malloc(sizeof(log));
	assert_non_null(d->log);
	memcpy(d->log, log, sizeof(log));
	d->log_len = sizeof(log) - 1;
	d->received_ms = d->stored_ms = wall_now_ms();
	d->sig_hash = strdup("bidi");
	d->sig_title = strdup("BUG: \xe2\x81\xa6title\xe2\x81\xa9");
	assert_int_equal(nstore_dump_add_user(d, "note", 4,
					      "\xc3\xa9t\xc3\xa9 \xe2\x80\xae"
					      "x \xff", 12), 0);
	assert_int_equal(nstore_put(st, &d, 1, NULL), 0);
	snprintf(args, sizeof(args), "show %lld", (long long)d->id);
	snprintf(jargs, sizeof(jargs), "--json show %lld", (long long)d->id);
	nstore_dump_free(d);
	nstore_close(st);

	assert_int_equal(harness_cli(db, args, out, sizeof(out)), 0);
	assert_no_hidden("show", out);
	assert_non_null(strstr(out, "adm\\u202enimda"));
	assert_non_null(strstr(out, "6.12\\u200f-\\u061c"));
	assert_non_null(strstr(out, "BUG: \\u2066title\\u2069"));
	assert_non_null(strstr(out, "line \\u202e1\n"));
	assert_non_null(strstr(out, "\\ufeffbom shy\\u00ad zw\\u200bsp\n"));
	assert_non_null(strstr(out, "bad \\xfe \xc3\xa9 end"));
	assert_non_null(strstr(out, "\xc3\xa9t\xc3\xa9 \\u202ex ?"));

	assert_int_equal(harness_cli(db, "list", out, sizeof(out)), 0);
	assert_no_hidden("list", out);
	assert_non_null(strstr(out, "adm\\u202enimda"));

	assert_int_equal(harness_cli(db, jargs, out, sizeof(out)), 0);
	assert_no_hidden("show --json", out);
	assert_non_null(strstr(out, "\"adm\\u202enimda\""));
	j = harness_cli_json(db, jargs);
	assert_string_equal(json_string_value(json_object_get(j, "host")),
			    "adm\xe2\x80\xaenimda");
	assert_string_equal(json_string_value(json_object_get(j, "title")),
			    "BUG: \xe2\x81\xa6title\xe2\x81\xa9");
	v = json_string_value(json_object_get(json_object_get(j, "user"),
					      "note"));
	assert_non_null(v);
	assert_string_equal(v, "\xc3\xa9t\xc3\xa9 \xe2\x80\xaex ?");
	v = json_string_value(json_object_get(j, "log"));
	assert_non_null(v);
	assert_non_null(strstr(v, "bad ? \xc3\xa9 end\n"));
	assert_non_null(strstr(v, "line \xe2\x80\xae" "1\n"));
	json_decref(j);

	assert_int_equal(harness_cli(db, "list --json", out, sizeof(out)), 0);
	assert_no_hidden("list --json", out);
	assert_int_equal(harness_cli(db, "buckets --json", out, sizeof(out)),
			 0);
	assert_no_hidden("buckets --json", out);
	assert_int_equal(harness_cli(db, "buckets", out, sizeof(out)), 0);
	assert_no_hidden("buckets", out);
	assert_int_equal(harness_cli(db, "count --by host --json", out,
				     sizeof(out)), 0);
	assert_no_hidden("count --json", out);
	assert_non_null(strstr(out, "adm\\u202enimda"));
	harness_cleanup(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_version),
		cmocka_unit_test(test_documented_defaults),
		harness_test(test_list_order),
		harness_test(test_bad_bounds),
		harness_test(test_glob_cap),
		harness_test(test_import_again),
		harness_test(test_show_wall_sec_extremes),
		harness_test(test_show_hidden),
		harness_test(test_received_extremes),
		harness_test(test_prune),
		harness_test(test_watch),
		harness_test(test_daemon_retention),
		harness_test(test_prune_beside_daemon),
		harness_test(test_kernel_drops_summed),
	};

	if (harness_skip("collector-cli"))
		return 0;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
