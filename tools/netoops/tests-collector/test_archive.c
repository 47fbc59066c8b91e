// SPDX-License-Identifier: GPL-2.0
/*
 * netoopsd --archive and `netoops decode` of what it writes: decode streams
 * an archive larger than 64 MiB; decode runs the collector's reassembler:
 * it rebuilds a lost datagram from parity, lists parity as parity, and
 * counts every refusal, the reassembler's too.
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

static void mkboot(uint8_t boot[16], int n)
{
	memset(boot, 0, 16);
	boot[0] = 0xa4;
	boot[1] = 0xc1;
	boot[15] = n;
}

static long long jint(json_t *j, const char *key)
{
	json_t *v = json_object_get(j, key);

	assert_non_null(v);
	return json_integer_value(v);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode_large),
		cmocka_unit_test(test_decode_fec),
		cmocka_unit_test(test_decode_refusals),
	};

	if (harness_skip("collector-archive"))
		return 0;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
