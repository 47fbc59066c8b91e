// SPDX-License-Identifier: GPL-2.0
/*
 * netoopsd --archive and `netoops decode` of what it writes: every
 * datagram counted as received is in the archive whole after SIGKILL;
 * rotation at --archive-bytes keeps --archive-keep files, byte for byte
 * what was sent; SIGHUP after a rename starts a new file; write errors
 * are counted and logged once; fdatasync follows writes.  Decode streams an archive larger than
 * 64 MiB, and runs the collector's reassembler: it rebuilds a lost
 * datagram from parity, lists parity as parity, counts every refusal,
 * the reassembler's too, and reads on past a datagram cut short.
 *
 * Environment: NETOOPSD and NETOOPS_CLI name the programs under test.
 * Every wait is for a condition, bounded by a deadline.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
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
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "gen_dump.h"
#include "harness.h"
#include "netoops_decode.h"

#define DEADLINE_MS 20000

struct run {
	struct harness_daemon d;
	char archive[128];
};

/* netoopsd on 127.0.0.1 with --archive DIR/archive and @extra arguments. */
static void start(struct run *r, const char *const *extra)
{
	harness_dir(&r->d, "arch");
	snprintf(r->archive, sizeof(r->archive), "%s/archive", r->d.dir);
	harness_start(&r->d, (const char *const []){
			"--listen", "127.0.0.1", "--port", "0",
			"--db", r->d.db, "--ready-file", r->d.ready,
			"--metrics-listen", "127.0.0.1:0", "--sync", "normal",
			"--archive", r->archive, NULL }, extra, DEADLINE_MS);
}

/* Waits until netoopsd counted @n datagrams as received. */
static void wait_received(const struct run *r, double n)
{
	assert_true(harness_wait_metric(r->d.mport,
					"netoops_packets_received_total", n,
					DEADLINE_MS, r->d.log) == n);
}

/*
 * Sends one datagram, the @sent-th; every 32, waits until netoopsd has
 * them all, so that no burst overflows its socket buffer.
 */
static void send_paced(const struct run *r, const void *buf, size_t len,
		       size_t *sent)
{
	harness_send_raw(r->d.port, buf, len);
	if (++*sent % 32 == 0)
		wait_received(r, *sent);
}

static void mkboot(uint8_t boot[16], int n)
{
	memset(boot, 0, 16);
	boot[0] = 0xa4;
	boot[1] = 0xc1;
	boot[15] = n;
}

static void make_dump(struct gen_pkts *p, int n, size_t log_size,
		      size_t max_pkt, bool compress)
{
	struct gen_opts op = { .hostname = "archive", .reason = 1,
			       .release = "6.1.0", .max_pkt = max_pkt,
			       .compress = compress };
	char *log;
	uint8_t b[16];
	size_t len;

	mkboot(b, n);
	log = gen_log(log_size, "archive_fn", n, &len);
	assert_int_equal(gen_dump(p, b, 1, &op, log, len), 0);
	free(log);
}

/* Runs the CLI's `decode --json @path`; its JSON, exit status @status. */
static json_t *decode_json(const char *path, int status)
{
	char cmd[512];
	json_error_t err;
	json_t *j;
	FILE *f;
	int st;

	snprintf(cmd, sizeof(cmd), "%s decode --json %s", getenv("NETOOPS_CLI"),
		 path);
	f = popen(cmd, "r");
	assert_non_null(f);
	j = json_loadf(f, JSON_ALLOW_NUL, &err);
	if (!j)
		fail_msg("`%s`: bad JSON: %s", cmd, err.text);
	st = pclose(f);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), status);
	return j;
}

static long long jint(json_t *j, const char *key)
{
	json_t *v = json_object_get(j, key);

	assert_non_null(v);
	return json_integer_value(v);
}

static off_t file_size(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return -1;
	return st.st_size;
}

static void read_all(const char *path, uint8_t **ret, size_t *ret_len)
{
	FILE *f = fopen(path, "rb");
	off_t n = file_size(path);

	assert_non_null(f);
	assert_true(n >= 0);
	*ret = malloc(n + 1);
	assert_non_null(*ret);
	assert_int_equal(fread(*ret, 1, n, f), (size_t)n);
	fclose(f);
	*ret_len = n;
}

/*
 * SIGKILL: every datagram netoopsd counted as received is in the archive,
 * whole (a buffered stream would have lost its tail).
 */
static void test_sigkill(void **state)
{
	/* an hour: only write(2) itself can have put them in the file */
	const char *const extra[] = { "--archive-sync-ms", "3600000", NULL };
	struct gen_pkts p[3];
	size_t i, k, total = 0, bytes = 0, sent = 0;
	struct run r;
	json_t *j;
	int st;

	(void)state;
	for (k = 0; k < 3; k++) {
		make_dump(&p[k], 1 + k, 30000 + 7001 * k, 700, false);
		total += p[k].n;
	}
	start(&r, extra);
	/* two complete dumps, and all but the last datagram of a third */
	for (k = 0; k < 3; k++)
		for (i = 0; i < p[k].n - (k == 2); i++) {
			send_paced(&r, p[k].buf[i], p[k].len[i], &sent);
			bytes += p[k].len[i];
		}
	total--;
	wait_received(&r, total);
	assert_int_equal(kill(r.d.pid, SIGKILL), 0);
	assert_int_equal(waitpid(r.d.pid, &st, 0), r.d.pid);
	r.d.pid = 0;
	current.pid = 0;
	assert_true(WIFSIGNALED(st));
	assert_int_equal(file_size(r.archive), (off_t)bytes);
	/* exit status 3: the third dump is partial */
	j = decode_json(r.archive, 3);
	assert_int_equal(jint(j, "packets"), total);
	assert_int_equal(jint(j, "refused"), 0);
	assert_int_equal(json_array_size(json_object_get(j, "dumps")), 3);
	json_decref(j);
	harness_cleanup(r.d.dir);
	current.active = false;
	for (k = 0; k < 3; k++)
		gen_pkts_free(&p[k]);
}

/*
 * --archive-bytes 64K --archive-keep 2: the files are exactly what a
 * rotation before the datagram that would pass 64 KiB makes of the
 * datagrams sent (one worker: in order); the oldest are gone.
 */
static void test_rotation(void **state)
{
	const char *const extra[] = { "--archive-bytes", "64K",
				      "--archive-keep", "2",
				      "--workers", "1", NULL };
	const size_t max = 65536;
	struct gen_pkts p[4];
	uint8_t *want[8] = { 0 }, *got;	/* want[0]: the current file */
	size_t want_len[8] = { 0 }, got_len, i, k, total = 0, sent = 0;
	int files = 1, rotations = 0, f;
	char path[160];
	struct run r;
	json_t *j;

	(void)state;
	for (k = 0; k < 4; k++) {
		make_dump(&p[k], 10 + k, 60000, 1400, false);
		total += p[k].n;
	}
	start(&r, extra);
	for (k = 0; k < 4; k++)
		for (i = 0; i < p[k].n; i++) {
			send_paced(&r, p[k].buf[i], p[k].len[i], &sent);
			/* the rotation netoopsd must do */
			if (want_len[0] && want_len[0] + p[k].len[i] > max) {
				free(want[7]);
				memmove(want + 1, want, 7 * sizeof(*want));
				memmove(want_len + 1, want_len,
					7 * sizeof(*want_len));
				want[0] = NULL;
				want_len[0] = 0;
				rotations++;
				files++;
			}
			want[0] = realloc(want[0], want_len[0] + p[k].len[i]);
			assert_non_null(want[0]);
			memcpy(want[0] + want_len[0], p[k].buf[i],
			       p[k].len[i]);
			want_len[0] += p[k].len[i];
		}
	assert_true(rotations >= 3);
	wait_received(&r, total);
	assert_true(harness_metric(r.d.mport, "netoops_archive_rotations_total")
		    == rotations);
	assert_true(harness_metric(r.d.mport, "netoops_archive_packets_total")
		    == total);
	/* archive, archive.1, archive.2, and no archive.3 */
	for (f = 0; f < 3; f++) {
		if (f)
			snprintf(path, sizeof(path), "%s.%d", r.archive, f);
		else
			snprintf(path, sizeof(path), "%s", r.archive);
		read_all(path, &got, &got_len);
		assert_true(got_len <= max);
		assert_int_equal(got_len, want_len[f]);
		assert_memory_equal(got, want[f], got_len);
		free(got);
	}
	snprintf(path, sizeof(path), "%s.3", r.archive);
	assert_int_equal(file_size(path), -1);
	/* a rotated file decodes on its own, nothing refused */
	snprintf(path, sizeof(path), "%s.1", r.archive);
	j = decode_json(path, 3);	/* its dumps are cut: partial */
	assert_int_equal(jint(j, "refused"), 0);
	assert_true(jint(j, "packets") > 0);
	json_decref(j);
	assert_int_equal(harness_stop(&r.d.pid), 0);
	harness_cleanup(r.d.dir);
	current.active = false;
	for (i = 0; i < 8; i++)
		free(want[i]);
	for (k = 0; k < 4; k++)
		gen_pkts_free(&p[k]);
}

/* logrotate: rename the archive, SIGHUP, and netoopsd writes a new one. */
static void test_sighup_reopen(void **state)
{
	struct gen_pkts a, b;
	char old[160];
	uint64_t end;
	struct run r;
	size_t i;
	json_t *j;

	(void)state;
	make_dump(&a, 20, 20000, 1000, true);
	make_dump(&b, 21, 20000, 1000, true);
	start(&r, NULL);
	for (i = 0; i < a.n; i++)
		harness_send_raw(r.d.port, a.buf[i], a.len[i]);
	wait_received(&r, a.n);
	snprintf(old, sizeof(old), "%s.old", r.archive);
	assert_int_equal(rename(r.archive, old), 0);
	assert_int_equal(kill(r.d.pid, SIGHUP), 0);
	end = now_ms() + DEADLINE_MS;
	while (file_size(r.archive) < 0) {
		if (now_ms() > end)
			fail_msg("no new %s after SIGHUP (log: %s)", r.archive,
				 r.d.log);
		nap();
	}
	for (i = 0; i < b.n; i++)
		harness_send_raw(r.d.port, b.buf[i], b.len[i]);
	wait_received(&r, a.n + b.n);
	assert_int_equal(harness_stop(&r.d.pid), 0);
	/* the renamed file has A, the new one B, both complete */
	j = decode_json(old, 0);
	assert_int_equal(jint(j, "packets"), a.n);
	assert_int_equal(json_array_size(json_object_get(j, "dumps")), 1);
	json_decref(j);
	j = decode_json(r.archive, 0);
	assert_int_equal(jint(j, "packets"), b.n);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(
		json_object_get(j, "dumps"), 0), "dump_id")), 1);
	assert_string_equal(json_string_value(json_object_get(json_array_get(
		json_object_get(j, "dumps"), 0), "boot_id")),
		"a4c10000000000000000000000000015");
	json_decref(j);
	harness_cleanup(r.d.dir);
	current.active = false;
	gen_pkts_free(&a);
	gen_pkts_free(&b);
}

/*
 * A device that refuses every write (/dev/full: ENOSPC): each datagram
 * counted as an archive error, one log line for all of them, and the dump
 * still stored.
 */
static void test_write_errors(void **state)
{
	const char *const extra[] = { "--archive", "/dev/full", NULL };
	char *text, *line, buf[128];
	struct gen_pkts p;
	size_t i, sent = 0, len;
	struct run r;

	(void)state;
	make_dump(&p, 60, 30000, 700, false);
	start(&r, extra);
	for (i = 0; i < p.n; i++)
		send_paced(&r, p.buf[i], p.len[i], &sent);
	wait_received(&r, p.n);
	assert_true(harness_metric(r.d.mport,
				   "netoops_archive_write_errors_total") ==
		    p.n);
	assert_true(harness_metric(r.d.mport, "netoops_archive_packets_total")
		    == 0);
	assert_true(harness_wait_metric(r.d.mport, "netoops_dumps_stored_total",
					1, DEADLINE_MS, r.d.log) == 1);
	assert_int_equal(harness_stop(&r.d.pid), 0);
	read_all(r.d.log, (uint8_t **)&text, &len);
	text[len] = 0;
	line = strstr(text, "netoopsd: archive /dev/full: cannot write: No"
		      " space left on device\n");
	assert_non_null(line);
	line = strchr(line, '\n');
	assert_null(strstr(line, "cannot write"));
	/* the others are summed up at exit */
	snprintf(buf, sizeof(buf), "netoopsd: archive /dev/full: %zu errors"
		 " not logged\n", p.n - 1);
	assert_non_null(strstr(line, buf));
	free(text);
	harness_cleanup(r.d.dir);
	current.active = false;
	gen_pkts_free(&p);
}

/*
 * fdatasync: with --archive-sync-ms 0 done before the batch is counted as
 * received; with 200, by the archive thread soon after the write.
 */
static void test_sync(void **state)
{
	const char *const now[] = { "--archive-sync-ms", "0", NULL };
	const char *const later[] = { "--archive-sync-ms", "200", NULL };
	const char *const *args[] = { now, later };
	struct gen_pkts p;
	size_t i, sent;
	struct run r;
	int k;

	(void)state;
	make_dump(&p, 80, 10000, 1000, false);
	for (k = 0; k < 2; k++) {
		start(&r, args[k]);
		sent = 0;
		for (i = 0; i < p.n; i++)
			send_paced(&r, p.buf[i], p.len[i], &sent);
		wait_received(&r, p.n);
		if (!k)
			assert_true(harness_metric(r.d.mport,
					"netoops_archive_syncs_total") >= 1);
		else
			harness_wait_metric(r.d.mport,
					    "netoops_archive_syncs_total", 1,
					    DEADLINE_MS, r.d.log);
		assert_true(harness_metric(r.d.mport,
					   "netoops_archive_file_bytes") ==
			    file_size(r.archive));
		assert_int_equal(harness_stop(&r.d.pid), 0);
		harness_cleanup(r.d.dir);
		current.active = false;
	}
	gen_pkts_free(&p);
}

/*
 * An archive of 66 MiB (more than the 64 MiB decode used to refuse):
 * dumps of 1000 KB each, every one complete, the last one after the
 * 64 MiB mark.  Written from a few encodings, the dump_id patched in.
 */
static void test_decode_large(void **state)
{
	const size_t target = 66u << 20;
	char dir[] = "/tmp/netoops-big-XXXXXX", path[64], out[64], cmd[256];
	char line[256], last[256] = "";
	struct gen_opts op = { .hostname = "big", .reason = 1,
			       .release = "r", .max_pkt = 16384 };
	size_t len, i, written = 0, pkts = 0, dumps = 0;
	struct gen_pkts p;
	uint64_t t0;
	uint8_t b[16];
	char *log;
	FILE *f;
	int st;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/archive", dir);
	snprintf(out, sizeof(out), "%s/out", dir);
	log = gen_log(1000000, "big_fn", 3, &len);
	f = fopen(path, "wb");
	assert_non_null(f);
	mkboot(b, 30);
	while (written < target) {
		/* a new boot_id per dump: same log, distinct dumps */
		b[14] = dumps >> 8;
		b[15] = dumps & 0xff;
		assert_int_equal(gen_dump(&p, b, 1, &op, log, len), 0);
		for (i = 0; i < p.n; i++) {
			assert_int_equal(fwrite(p.buf[i], 1, p.len[i], f),
					 p.len[i]);
			written += p.len[i];
		}
		pkts += p.n;
		dumps++;
		gen_pkts_free(&p);
	}
	assert_int_equal(fclose(f), 0);
	assert_true(written > (64u << 20));
	t0 = now_ms();
	snprintf(cmd, sizeof(cmd), "%s decode %s > %s", getenv("NETOOPS_CLI"),
		 path, out);
	st = system(cmd);
	print_message("decode of %zu bytes (%zu datagrams, %zu dumps): %llu"
		      " ms\n", written, pkts, dumps,
		      (unsigned long long)(now_ms() - t0));
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	f = fopen(out, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (strstr(line, " packets: "))
			memcpy(last, line, sizeof(last));
	fclose(f);
	snprintf(line, sizeof(line), "%zu packets: %zu accepted, 0 duplicate,"
		 " 0 refused; %zu dumps (%zu complete)\n", pkts, pkts, dumps,
		 dumps);
	assert_string_equal(last, line);
	unlink(out);
	unlink(path);
	rmdir(dir);
	free(log);
}

/* Writes @n datagrams of @p, all but index @skip (-1: none), to @path. */
static void write_pkts(const char *path, const struct gen_pkts *p, int skip)
{
	FILE *f = fopen(path, "wb");
	size_t i;

	assert_non_null(f);
	for (i = 0; i < p->n; i++)
		if ((int)i != skip)
			assert_int_equal(fwrite(p->buf[i], 1, p->len[i], f),
					 p->len[i]);
	assert_int_equal(fclose(f), 0);
}

static bool is_parity(const struct gen_pkts *p, size_t i)
{
	struct netoops_packet np;

	assert_int_equal(netoops_decode_packet(p->buf[i], p->len[i], &np), 0);
	return np.is_parity;
}

/* Standard output of `netoops @args`; exit status @status. */
static char *cli_out(const char *args, int status)
{
	char cmd[512], *buf;
	size_t len = 0, n;
	FILE *f;
	int st;

	snprintf(cmd, sizeof(cmd), "%s %s", getenv("NETOOPS_CLI"), args);
	buf = malloc(1 << 20);
	assert_non_null(buf);
	f = popen(cmd, "r");
	assert_non_null(f);
	while ((n = fread(buf + len, 1, (1 << 20) - 1 - len, f)) > 0)
		len += n;
	buf[len] = 0;
	st = pclose(f);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), status);
	return buf;
}

static size_t count_str(const char *s, const char *what)
{
	size_t n = 0;

	while ((s = strstr(s, what))) {
		n++;
		s += strlen(what);
	}
	return n;
}

/*
 * A FEC dump (4 data + 2 parity per group) with one data datagram lost:
 * decode rebuilds it, says so, and lists the parity datagrams as parity.
 */
static void test_decode_fec(void **state)
{
	struct gen_opts op = { .hostname = "fec", .reason = 1,
			       .release = "r", .compress = true,
			       .max_pkt = 600, .fec_k = 4, .fec_m = 2 };
	char dir[] = "/tmp/netoops-fec-XXXXXX", path[64], args[128];
	size_t len, i, parity = 0;
	struct gen_pkts p;
	json_t *j, *d, *pl, *e;
	uint8_t b[16];
	char *log, *out;
	int lost = -1;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/archive", dir);
	mkboot(b, 40);
	log = gen_log(20000, "fec_fn", 40, &len);
	assert_int_equal(gen_dump(&p, b, 1, &op, log, len), 0);
	for (i = 0; i < p.n; i++) {
		if (is_parity(&p, i))
			parity++;
		else if (i == 2)
			lost = i;	/* a data datagram of the first group */
	}
	assert_int_equal(lost, 2);
	assert_true(parity >= 2);
	assert_int_equal(p.n - parity, 9);	/* data datagrams */
	write_pkts(path, &p, lost);

	snprintf(args, sizeof(args), "decode --json --packets %s", path);
	j = harness_cli_json_status("/nonexistent", args, 0);
	assert_int_equal(jint(j, "packets"), p.n - 1);
	assert_int_equal(jint(j, "refused"), 0);
	assert_int_equal(jint(j, "parity_packets"), parity);
	assert_int_equal(jint(j, "fec_rebuilt"), 1);
	d = json_array_get(json_object_get(j, "dumps"), 0);
	assert_non_null(d);
	assert_true(json_is_true(json_object_get(d, "complete")));
	assert_int_equal(jint(d, "fec_rebuilt"), 1);
	assert_memory_equal(json_string_value(json_object_get(d, "log")), log,
			    len);
	/* parity listed as parity, without a payload range */
	pl = json_object_get(j, "packet_list");
	assert_int_equal(json_array_size(pl), p.n - 1);
	json_array_foreach(pl, i, e) {
		size_t k = i < (size_t)lost ? i : i + 1;

		assert_int_equal(json_is_true(json_object_get(e, "parity")),
				 is_parity(&p, k));
		assert_int_equal(json_object_get(e, "payload_off") == NULL,
				 is_parity(&p, k));
	}
	json_decref(j);

	snprintf(args, sizeof(args), "decode --packets %s", path);
	out = cli_out(args, 0);
	/* "packet @OFF len N: BOOT/1 I/9 parity R/M of K data" */
	assert_int_equal(count_str(out, "/9 parity "), parity);
	assert_int_equal(count_str(out, " payload "), p.n - 1 - parity);
	assert_non_null(strstr(out, "(1 datagrams rebuilt from parity)\n"));
	free(out);
	unlink(path);
	rmdir(dir);
	gen_pkts_free(&p);
	free(log);
}

/*
 * Every datagram not accepted is counted as refused, by reason: one the
 * decoder refuses (garbage) and one the reassembler refuses (a datagram
 * that contradicts what was received of its dump).
 */
static void test_decode_refusals(void **state)
{
	struct gen_opts op = { .hostname = "ref", .reason = 1,
			       .release = "r", .max_pkt = 600 };
	char dir[] = "/tmp/netoops-ref-XXXXXX", path[64], args[128];
	struct gen_pkts a, c;
	json_t *j, *why;
	uint8_t b[16];
	size_t len, i;
	char *log, *out;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/archive", dir);
	mkboot(b, 50);
	log = gen_log(5000, "ref_fn", 50, &len);
	assert_int_equal(gen_dump(&a, b, 1, &op, log, len), 0);
	/* same boot_id, dump_id and size, other text: contradicts a */
	for (i = 0; i < len; i++)
		log[i] ^= 1;
	assert_int_equal(gen_dump(&c, b, 1, &op, log, len), 0);
	assert_int_equal(c.n, a.n);
	assert_true(a.n >= 3);
	f = fopen(path, "wb");
	assert_non_null(f);
	for (i = 0; i < a.n; i++)
		assert_int_equal(fwrite(a.buf[i], 1, a.len[i], f), a.len[i]);
	/* after a completed: checked against what a was made of */
	assert_int_equal(fwrite(c.buf[a.n / 2], 1, c.len[a.n / 2], f),
			 c.len[a.n / 2]);
	assert_int_equal(fwrite("garbage!", 1, 8, f), 8);
	assert_int_equal(fclose(f), 0);

	snprintf(args, sizeof(args), "decode --json %s", path);
	j = harness_cli_json_status("/nonexistent", args, 3);
	assert_int_equal(jint(j, "packets"), a.n + 2);
	assert_int_equal(jint(j, "accepted"), a.n);
	assert_int_equal(jint(j, "refused"), 2);
	why = json_object_get(j, "refused_by_reason");
	assert_int_equal(json_object_size(why), 2);
	assert_int_equal(jint(why, "conflict"), 1);
	assert_true(json_is_true(json_object_get(json_array_get(
		json_object_get(j, "dumps"), 0), "complete")));
	json_decref(j);
	snprintf(args, sizeof(args), "decode %s", path);
	out = cli_out(args, 3);
	snprintf(args, sizeof(args), "%zu packets: %zu accepted, 0 duplicate,"
		 " 2 refused (", a.n + 2, a.n);
	assert_non_null(strstr(out, args));
	assert_non_null(strstr(out, "conflict 1"));
	free(out);
	unlink(path);
	rmdir(dir);
	gen_pkts_free(&a);
	gen_pkts_free(&c);
	free(log);
}

/*
 * A datagram cut short in the middle of an archive (a write(2) that
 * SIGKILL stopped between two pages, then netoopsd restarted): refused
 * alone, the datagram after it read whole.
 */
static void test_decode_torn(void **state)
{
	struct gen_opts op = { .hostname = "torn", .reason = 1,
			       .release = "r", .max_pkt = 1000 };
	char dir[] = "/tmp/netoops-torn-XXXXXX", path[64], args[128];
	struct gen_pkts p;
	uint8_t b[16];
	size_t len, i;
	json_t *j;
	char *log;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/archive", dir);
	mkboot(b, 70);
	log = gen_log(8000, "torn_fn", 70, &len);
	assert_int_equal(gen_dump(&p, b, 1, &op, log, len), 0);
	assert_true(p.n >= 4);
	f = fopen(path, "wb");
	assert_non_null(f);
	for (i = 0; i < p.n; i++) {
		if (i == 2)	/* half of a copy of datagram 1 first */
			assert_int_equal(fwrite(p.buf[1], 1, p.len[1] / 2, f),
					 p.len[1] / 2);
		assert_int_equal(fwrite(p.buf[i], 1, p.len[i], f), p.len[i]);
	}
	assert_int_equal(fclose(f), 0);
	snprintf(args, sizeof(args), "decode --json %s", path);
	j = harness_cli_json_status("/nonexistent", args, 3);
	assert_int_equal(jint(j, "packets"), p.n + 1);
	assert_int_equal(jint(j, "accepted"), p.n);
	assert_int_equal(jint(j, "refused"), 1);
	assert_true(json_is_true(json_object_get(json_array_get(
		json_object_get(j, "dumps"), 0), "complete")));
	json_decref(j);
	unlink(path);
	rmdir(dir);
	gen_pkts_free(&p);
	free(log);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		harness_test(test_sigkill),
		harness_test(test_rotation),
		harness_test(test_sighup_reopen),
		harness_test(test_write_errors),
		harness_test(test_sync),
		cmocka_unit_test(test_decode_large),
		cmocka_unit_test(test_decode_fec),
		cmocka_unit_test(test_decode_refusals),
		cmocka_unit_test(test_decode_torn),
	};

	if (harness_skip("collector-archive"))
		return 0;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
