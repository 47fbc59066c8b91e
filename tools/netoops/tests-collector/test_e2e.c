// SPDX-License-Identifier: GPL-2.0
/*
 * End-to-end: netoopsd on 127.0.0.1 port 0 with a temporary database, fed
 * real encoded dumps over loopback; results checked through the netoops CLI
 * (JSON parsed with jansson) and the daemon's Prometheus counters (HTTP).
 * Then what an admin sees: hostile sender text never reaches the terminal
 * raw (show, list, buckets, decode, netoopsd -v), and every error names
 * the file and the real reason with a non-zero exit status.
 *
 * Environment: NETOOPSD and NETOOPS_CLI name the programs under test;
 * NETOOPS_TEST_FILTER, a cmocka test name pattern, runs only those.
 * Every wait is for a condition, bounded by a deadline.
 */
#include <arpa/inet.h>
#include <dirent.h>
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
#include <grp.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>
#include <pcap/pcap.h>

#include "gen_dump.h"
#include "harness.h"
#include "netoops_decode.h"

#define DEADLINE_MS 20000

struct daemon_run {
	struct harness_daemon d;
	char metrics[128];
	char archive[128];
};

/* @extra: more arguments (NULL-terminated), after the others, or NULL. */
static void start_daemon(struct daemon_run *r, const char *timeout_ms,
			 const char *const *extra)
{
	harness_dir(&r->d, "e2e");
	snprintf(r->metrics, sizeof(r->metrics), "%s/metrics", r->d.dir);
	snprintf(r->archive, sizeof(r->archive), "%s/archive", r->d.dir);
	harness_start(&r->d, (const char *const []){
			"--listen", "127.0.0.1", "--port", "0",
			"--db", r->d.db, "--ready-file", r->d.ready,
			"--metrics-file", r->metrics, "--metrics-listen",
			"127.0.0.1:0", "--timeout-ms", timeout_ms,
			"--max-packet", "2048", "--workers", "2", "--sync",
			"normal", "--archive", r->archive, NULL },
		      extra, DEADLINE_MS);
}

static int stop_daemon(struct daemon_run *r)
{
	return harness_stop(&r->d.pid);
}

static void cleanup(struct daemon_run *r)
{
	harness_cleanup(r->d.dir);
}

/*
 * Sends packets in @order (indices), or all in order when NULL, each from
 * a new source port: a dump still has to meet in one worker (boot_id
 * steering).
 */
static void send_pkts(int port, const struct gen_pkts *p, const int *order,
		      int n)
{
	int i;

	if (!order)
		n = p->n;
	for (i = 0; i < n; i++) {
		int k = order ? order[i] : i;

		harness_send_raw(port, p->buf[k], p->len[k]);
	}
}

/* GET /metrics over loopback; returns the value of @name or -1. */
static double metric(const struct daemon_run *r, const char *name)
{
	return harness_metric(r->d.mport, name);
}

static void wait_metric(const struct daemon_run *r, const char *name,
			double want)
{
	assert_true(harness_wait_metric(r->d.mport, name, want, DEADLINE_MS,
					r->d.log) == want);
}

/* Runs the CLI with "--db DB" and @args, returns its parsed JSON output. */
static json_t *cli_json(const struct daemon_run *r, const char *args)
{
	return harness_cli_json(r->d.db, args);
}

static void mkboot(uint8_t boot[16], int n)
{
	memset(boot, 0, 16);
	boot[0] = 0xe2;
	boot[1] = 0xe0;
	boot[15] = n;
}

static void test_daemon(void **state)
{
	struct gen_opts oc = { .hostname = "e2e-complete", .reason = 2,
			       .release = "6.12.118+deb12-amd64",
			       .compress = true, .user_key = "rack",
			       .user_value = "r42", .regs = true };
	struct gen_opts op = { .hostname = "e2e-plain", .reason = 1,
			       .release = "6.1.0-57-amd64", .max_pkt = 512 };
	struct gen_pkts pc, pr, pl, pz, pd;
	struct netoops_packet a, b;
	struct daemon_run r;
	uint8_t b1[16], b2[16], b3[16], b4[16], b5[16];
	int order[64], lossy[64], nl = 0, i, n;
	size_t len1, len2, len3;
	char *log1, *log2, *log3, garbage[300], trunc[2048], big[3000];
	json_t *list, *d, *show;
	uint64_t t0;
	char args[256];

	(void)state;
	start_daemon(&r, "1500", NULL);
	mkboot(b1, 1);
	mkboot(b2, 2);
	mkboot(b3, 3);
	mkboot(b4, 4);
	mkboot(b5, 5);
	log1 = gen_log(40000, "e2e_complete_fn", 1, &len1);
	log2 = gen_log(12000, "e2e_reorder_fn", 2, &len2);
	log3 = gen_log(12000, "e2e_lossy_fn", 3, &len3);
	assert_int_equal(gen_dump(&pc, b1, 1, &oc, log1, len1), 0);
	assert_int_equal(gen_dump(&pr, b2, 1, &op, log2, len2), 0);
	assert_int_equal(gen_dump(&pl, b3, 1, &op, log3, len3), 0);
	oc.hostname = "e2e-zlost";
	oc.max_pkt = 512;
	assert_int_equal(gen_dump(&pz, b4, 1, &oc, log3, len3), 0);
	op.hostname = "e2e-dups";
	assert_int_equal(gen_dump(&pd, b5, 9, &op, log2, len2), 0);
	assert_true(pr.n > 10 && pr.n < 64 && pl.n < 64 && pz.n > 4);

	/* 1. complete, in order */
	send_pkts(r.d.port, &pc, NULL, 0);
	/* 2. complete, shuffled: even indices descending, then odd ones */
	for (i = 0, n = 0; i < (int)pr.n; i++)
		if (!(((int)pr.n - 1 - i) % 2))
			order[n++] = pr.n - 1 - i;
	for (i = 1; i < (int)pr.n; i += 2)
		order[n++] = i;
	assert_int_equal(n, pr.n);
	send_pkts(r.d.port, &pr, order, n);
	/* 3. lossy plain: packets 1 and 4 never come */
	for (i = 0; i < (int)pl.n; i++)
		if (i != 1 && i != 4)
			lossy[nl++] = i;
	send_pkts(r.d.port, &pl, lossy, nl);
	assert_int_equal(netoops_decode_packet(pl.buf[1], pl.len[1], &a), 0);
	assert_int_equal(netoops_decode_packet(pl.buf[4], pl.len[4], &b), 0);
	/* 4. lossy compressed: packet 2 never comes */
	for (i = 0, nl = 0; i < (int)pz.n; i++)
		if (i != 2)
			lossy[nl++] = i;
	send_pkts(r.d.port, &pz, lossy, nl);
	/* 5. every packet twice */
	send_pkts(r.d.port, &pd, NULL, 0);
	send_pkts(r.d.port, &pd, NULL, 0);
	/* 6. bad packets, one of each kind */
	for (i = 0; i < (int)sizeof(garbage); i++)
		garbage[i] = (char)(i * 7 + 3);
	harness_send_raw(r.d.port, garbage, sizeof(garbage));	/* magic */
	memcpy(trunc, pr.buf[0], pr.len[0]);
	harness_send_raw(r.d.port, trunc, pr.len[0] - 10);	/* length */
	trunc[pr.len[0] - 1] ^= 0x55;
	harness_send_raw(r.d.port, trunc, pr.len[0]);		/* checksum */
	memset(big, 'x', sizeof(big));
	harness_send_raw(r.d.port, big, sizeof(big));		/* oversized */
	harness_send_raw(r.d.port, "NOPS", 4);			/* short */

	t0 = now_ms();
	/* Every datagram accounted for. */
	n = pc.n + pr.n + (pl.n - 2) + (pz.n - 1) + 2 * pd.n + 5;
	wait_metric(&r, "netoops_packets_received_total", n);
	wait_metric(&r, "netoops_packets_processed_total", n - 1);
	wait_metric(&r, "netoops_dumps_total{state=\"complete\"}", 3);
	/* The partials come after the timeout (1.5 s), not before. */
	wait_metric(&r, "netoops_dumps_total{state=\"partial\"}", 2);
	assert_true(now_ms() - t0 >= 1000);
	wait_metric(&r, "netoops_dumps_stored_total", 5);
	assert_true(metric(&r, "netoops_packets_dropped_total{reason=\"magic\"}") == 1);
	assert_true(metric(&r, "netoops_packets_dropped_total{reason=\"length\"}") == 1);
	assert_true(metric(&r, "netoops_packets_dropped_total{reason=\"checksum\"}") == 1);
	assert_true(metric(&r, "netoops_packets_dropped_total{reason=\"oversized\"}") == 1);
	assert_true(metric(&r, "netoops_packets_dropped_total{reason=\"short\"}") == 1);
	assert_true(metric(&r, "netoops_packets_duplicate_total") == pd.n);
	assert_true(metric(&r, "netoops_packets_accepted_total") ==
		    pc.n + pr.n + (pl.n - 2) + (pz.n - 1) + pd.n);

	list = cli_json(&r, "list --json");
	assert_int_equal(json_array_size(list), 5);

	d = harness_find_dump(list, b1);
	assert_non_null(d);
	assert_true(json_is_true(json_object_get(d, "complete")));
	assert_string_equal(json_string_value(json_object_get(d, "host")),
			    "e2e-complete");
	assert_string_equal(json_string_value(json_object_get(d, "reason")),
			    "oops");
	assert_string_equal(json_string_value(json_object_get(d, "release")),
			    "6.12.118+deb12-amd64");
	assert_string_equal(json_string_value(json_object_get(
		json_object_get(d, "user"), "rack")), "r42");
	assert_string_equal(json_string_value(json_object_get(
		json_object_get(d, "regs"), "rip")), "0xffffffffc0ffee00");
	assert_int_equal(json_array_size(json_object_get(d, "gaps")), 0);
	assert_int_equal(json_string_length(json_object_get(d, "log")), len1);
	assert_memory_equal(json_string_value(json_object_get(d, "log")), log1,
			    len1);
	assert_non_null(strstr(json_string_value(json_object_get(d, "title")),
			       "e2e_complete_fn"));

	d = harness_find_dump(list, b2);
	assert_non_null(d);
	assert_true(json_is_true(json_object_get(d, "complete")));
	assert_memory_equal(json_string_value(json_object_get(d, "log")), log2,
			    len2);

	/* Plain partial: exact gaps in log coordinates. */
	d = harness_find_dump(list, b3);
	assert_non_null(d);
	assert_true(json_is_false(json_object_get(d, "complete")));
	assert_int_equal(json_integer_value(json_object_get(d, "pkt_received")),
			 pl.n - 2);
	{
		json_t *g = json_object_get(d, "gaps");

		assert_int_equal(json_array_size(g), 2);
		assert_int_equal(json_integer_value(json_object_get(
			json_array_get(g, 0), "off")), a.payload_off);
		assert_int_equal(json_integer_value(json_object_get(
			json_array_get(g, 0), "len")), a.chunk_len);
		assert_int_equal(json_integer_value(json_object_get(
			json_array_get(g, 1), "off")),
			b.payload_off - a.chunk_len);
		assert_int_equal(json_integer_value(json_object_get(
			json_array_get(g, 1), "len")), b.chunk_len);
		snprintf(args, sizeof(args), "[... %zu bytes missing ...]",
			 a.chunk_len);
		assert_non_null(strstr(json_string_value(
			json_object_get(d, "log")), args));
	}

	/* Compressed partial: a prefix, then the rest marked missing. */
	d = harness_find_dump(list, b4);
	assert_non_null(d);
	assert_true(json_is_false(json_object_get(d, "complete")));
	assert_int_equal(json_array_size(json_object_get(d, "gaps")), 1);
	assert_int_equal(json_integer_value(json_object_get(d, "log_len")) +
			 json_integer_value(json_object_get(d,
							    "missing_bytes")),
			 len3);

	/* Duplicates: stored once, complete. */
	d = harness_find_dump(list, b5);
	assert_non_null(d);
	assert_true(json_is_true(json_object_get(d, "complete")));

	/* show --json of one id gives the same record. */
	snprintf(args, sizeof(args), "show %lld --json",
		 (long long)json_integer_value(json_object_get(d, "id")));
	show = cli_json(&r, args);
	assert_string_equal(json_string_value(json_object_get(show, "host")),
			    "e2e-dups");
	assert_true(json_equal(json_object_get(show, "log"),
			       json_object_get(d, "log")));
	json_decref(show);

	/* buckets and export parse too. */
	show = cli_json(&r, "buckets --json");
	assert_true(json_array_size(show) >= 3);
	json_decref(show);
	show = cli_json(&r, "list --json --partial");
	assert_int_equal(json_array_size(show), 2);
	json_decref(show);
	show = cli_json(&r, "list --json --host e2e-plain");
	assert_int_equal(json_array_size(show), 2);
	json_decref(show);
	show = cli_json(&r, "list --json --no-log --reason oops");
	assert_int_equal(json_array_size(show), 2);	/* b1 and b4 */
	assert_null(json_object_get(json_array_get(show, 0), "log"));
	assert_non_null(json_object_get(json_array_get(show, 0), "gaps"));
	json_decref(show);

	/* export: JSON Lines, one full record per line. */
	{
		char cmd[256], *line = NULL;
		size_t cap = 0, lines = 0;
		FILE *f;

		snprintf(cmd, sizeof(cmd), "%s --db %s export",
			 getenv("NETOOPS_CLI"), r.d.db);
		f = popen(cmd, "r");
		assert_non_null(f);
		/* export goes oldest first, list newest first: the same
		 * dumps, each once
		 */
		while (getline(&line, &cap, f) > 0) {
			json_t *o = json_loads(line, 0, NULL), *e;
			size_t k, same = 0;

			assert_non_null(o);
			assert_non_null(json_object_get(o, "log"));
			json_array_foreach(list, k, e)
				same += json_equal(json_object_get(o, "id"),
						   json_object_get(e, "id")) &&
					json_equal(json_object_get(o,
								   "boot_id"),
						   json_object_get(e,
								   "boot_id"));
			assert_int_equal(same, 1);
			json_decref(o);
			lines++;
		}
		free(line);
		assert_int_equal(pclose(f), 0);
		assert_int_equal(lines, 5);
	}
	json_decref(list);
	assert_int_equal(stop_daemon(&r), 0);
	/* The archive holds every valid datagram: decoding it gives the same
	 * five dumps (the partial ones partial), and nothing refused.
	 */
	snprintf(args, sizeof(args), "decode --json %s", r.archive);
	/* exit status 3: partial dumps */
	show = harness_cli_json_status(r.d.db, args, 3);
	assert_int_equal(json_integer_value(json_object_get(show, "refused")),
			 0);
	assert_int_equal(json_integer_value(json_object_get(show, "packets")),
			 pc.n + pr.n + (pl.n - 2) + (pz.n - 1) + 2 * pd.n);
	assert_int_equal(json_array_size(json_object_get(show, "dumps")), 5);
	json_decref(show);
	/* stats shows the store and the daemon's last counters. */
	snprintf(args, sizeof(args), "--metrics-file %s stats --json",
		 r.metrics);
	show = cli_json(&r, args);
	assert_int_equal(json_integer_value(json_object_get(show, "dumps")), 5);
	assert_int_equal(json_integer_value(json_object_get(show, "partial")),
			 2);
	assert_true(json_real_value(json_object_get(json_object_get(show,
		"daemon"), "netoops_dumps_stored_total")) == 5.0);
	json_decref(show);
	/* The metrics file is written at exit. */
	{
		FILE *f = fopen(r.metrics, "r");
		char line[256];
		bool found = false;

		assert_non_null(f);
		while (fgets(line, sizeof(line), f))
			if (!strcmp(line, "netoops_dumps_stored_total 5\n"))
				found = true;
		fclose(f);
		assert_true(found);
	}
	cleanup(&r);
	gen_pkts_free(&pc);
	gen_pkts_free(&pr);
	gen_pkts_free(&pl);
	gen_pkts_free(&pz);
	gen_pkts_free(&pd);
	free(log1);
	free(log2);
	free(log3);
}

/* SIGTERM stores a dump still in flight as partial, with its gaps. */
static void test_sigterm_flush(void **state)
{
	struct gen_opts op = { .hostname = "e2e-flush", .reason = 1,
			       .release = "6.1.0", .max_pkt = 512 };
	struct daemon_run r;
	struct gen_pkts p;
	uint8_t b[16];
	json_t *list, *d;
	size_t len;
	char *log;

	(void)state;
	start_daemon(&r, "600000", NULL);	/* nothing times out by itself */
	mkboot(b, 9);
	log = gen_log(8000, "flush_fn", 9, &len);
	assert_int_equal(gen_dump(&p, b, 3, &op, log, len), 0);
	assert_true(p.n > 4);
	send_pkts(r.d.port, &p, (int[]){ 0, 1, 2 }, 3);
	wait_metric(&r, "netoops_packets_accepted_total", 3);
	assert_true(metric(&r, "netoops_dumps_stored_total") == 0);
	assert_int_equal(stop_daemon(&r), 0);

	list = cli_json(&r, "list --json");
	assert_int_equal(json_array_size(list), 1);
	d = json_array_get(list, 0);
	assert_true(json_is_false(json_object_get(d, "complete")));
	assert_int_equal(json_integer_value(json_object_get(d, "pkt_received")),
			 3);
	assert_int_equal(json_array_size(json_object_get(d, "gaps")), 1);
	assert_int_equal(json_integer_value(json_object_get(d, "log_len")) +
			 json_integer_value(json_object_get(d,
							    "missing_bytes")),
			 len);
	assert_memory_equal(json_string_value(json_object_get(d, "log")), log,
			    json_integer_value(json_object_get(d, "log_len")));
	json_decref(list);
	cleanup(&r);
	gen_pkts_free(&p);
	free(log);
}

/* A sender that opens more dumps than allowed is refused, and counted. */
static void test_limit_per_source(void **state)
{
	struct gen_opts op = { .hostname = "e2e-greedy", .reason = 1,
			       .release = "6.1.0", .max_pkt = 512 };
	struct daemon_run r;
	struct gen_pkts p[9];
	uint8_t b[16];
	json_t *list;
	size_t len;
	char *log;
	int i;

	(void)state;
	start_daemon(&r, "600000", NULL);
	mkboot(b, 12);
	log = gen_log(4000, "greedy_fn", 12, &len);
	/* Nine dumps of one boot, each missing its last packet: with the
	 * default of 8 open dumps per source, the ninth is refused.
	 */
	for (i = 0; i < 9; i++) {
		assert_int_equal(gen_dump(&p[i], b, 100 + i, &op, log, len), 0);
		assert_true(p[i].n > 2);
		send_pkts(r.d.port, &p[i], (int[]){ 0, 1 }, 2);
	}
	wait_metric(&r, "netoops_packets_processed_total", 18);
	assert_true(metric(&r, "netoops_packets_dropped_total{reason=\"limit_source\"}") == 2);
	assert_true(metric(&r, "netoops_open_dumps") == 8);
	assert_int_equal(stop_daemon(&r), 0);
	list = cli_json(&r, "list --json --partial");
	assert_int_equal(json_array_size(list), 8);
	json_decref(list);
	cleanup(&r);
	for (i = 0; i < 9; i++)
		gen_pkts_free(&p[i]);
	free(log);
}

/* IPv6: the same port on ::1 next to 127.0.0.1. */
static void test_ipv6(void **state)
{
	struct gen_opts op = { .hostname = "e2e-v6", .reason = 1,
			       .compress = true, .release = "6.12" };
	struct sockaddr_in6 sa = { .sin6_family = AF_INET6 };
	struct daemon_run r;
	struct gen_pkts p;
	uint8_t b[16];
	json_t *list, *d;
	size_t len, i;
	char *log;
	int fd;

	(void)state;
	fd = socket(AF_INET6, SOCK_DGRAM, 0);
	sa.sin6_addr = in6addr_loopback;
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		if (fd >= 0)
			close(fd);
		skip();	/* prints SKIPPED: no IPv6 loopback here */
	}
	close(fd);
	start_daemon(&r, "600000",
		     (const char *const []){ "--listen", "::1", NULL });
	mkboot(b, 6);
	log = gen_log(30000, "v6_fn", 6, &len);
	assert_int_equal(gen_dump(&p, b, 1, &op, log, len), 0);
	fd = socket(AF_INET6, SOCK_DGRAM, 0);
	assert_true(fd >= 0);
	sa.sin6_port = htons(r.d.port);
	for (i = 0; i < p.n; i++)
		assert_int_equal(sendto(fd, p.buf[i], p.len[i], 0,
					(struct sockaddr *)&sa, sizeof(sa)),
				 (ssize_t)p.len[i]);
	close(fd);
	wait_metric(&r, "netoops_dumps_stored_total", 1);
	list = cli_json(&r, "list --json");
	d = json_array_get(list, 0);
	assert_non_null(d);
	assert_true(json_is_true(json_object_get(d, "complete")));
	assert_string_equal(json_string_value(json_object_get(d, "src")),
			    "::1");
	assert_memory_equal(json_string_value(json_object_get(d, "log")), log,
			    len);
	json_decref(list);
	assert_int_equal(stop_daemon(&r), 0);
	cleanup(&r);
	gen_pkts_free(&p);
	free(log);
}

/* `netoops decode` of an archive-style concatenation, no store. */
static void test_decode_file(void **state)
{
	struct gen_opts op = { .hostname = "dec", .reason = 1,
			       .compress = true, .release = "r" };
	char path[] = "/tmp/netoops-decode-XXXXXX", args[128];
	struct daemon_run r = { .d.db = "/nonexistent" };
	struct gen_pkts p;
	uint8_t b[16];
	json_t *j, *d;
	size_t len, i;
	char *log;
	int fd;

	(void)state;
	mkboot(b, 10);
	log = gen_log(20000, "decode_fn", 10, &len);
	assert_int_equal(gen_dump(&p, b, 1, &op, log, len), 0);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	for (i = p.n; i-- > 0;)		/* reversed order on purpose */
		assert_int_equal(write(fd, p.buf[i], p.len[i]),
				 (ssize_t)p.len[i]);
	assert_int_equal(write(fd, "garbage!", 8), 8);
	close(fd);
	snprintf(args, sizeof(args), "decode --json %s", path);
	j = harness_cli_json_status(r.d.db, args, 3);	/* 3: one refused */
	assert_int_equal(json_integer_value(json_object_get(j, "packets")),
			 p.n + 1);
	assert_int_equal(json_integer_value(json_object_get(j, "refused")), 1);
	d = json_array_get(json_object_get(j, "dumps"), 0);
	assert_non_null(d);
	assert_true(json_is_true(json_object_get(d, "complete")));
	assert_memory_equal(json_string_value(json_object_get(d, "log")), log,
			    len);
	json_decref(j);
	unlink(path);
	gen_pkts_free(&p);
	free(log);
}

/* A capture as QEMU's filter-dump writes it: Ethernet, IPv4, UDP. */
static void write_frame(pcap_dumper_t *pd, const uint8_t *pl, size_t len,
			int proto)
{
	struct pcap_pkthdr h = { .caplen = 42 + len, .len = 42 + len };
	static uint8_t f[65600];
	size_t iplen = 20 + 8 + len;

	memset(f, 0, 42);
	memcpy(f, "\x52\x55\x0a\x00\x02\x02\x52\x54\x00\x12\x34\x56", 12);
	f[12] = 0x08;			/* IPv4 */
	f[14] = 0x45;
	f[16] = iplen >> 8;
	f[17] = iplen & 0xff;
	f[22] = 64;
	f[23] = proto;
	memcpy(f + 26, "\x0a\x00\x02\x0f\x0a\x00\x02\x02", 8);
	f[34] = 0x1a;			/* ports 6666 -> 6667 */
	f[35] = 0x0a;
	f[36] = 0x1a;
	f[37] = 0x0b;
	f[38] = (8 + len) >> 8;
	f[39] = (8 + len) & 0xff;
	memcpy(f + 42, pl, len);
	pcap_dump((u_char *)pd, &h, f);
}

static void test_decode_pcap(void **state)
{
	struct gen_opts op = { .hostname = "cap", .reason = 1,
			       .compress = true, .release = "r" };
	char path[] = "/tmp/netoops-pcap-XXXXXX", args[128];
	struct daemon_run r = { .d.db = "/nonexistent" };
	pcap_dumper_t *pd;
	struct gen_pkts p;
	pcap_t *pc;
	uint8_t b[16];
	json_t *j, *d;
	size_t len, i;
	char *log;
	int fd;

	(void)state;
	mkboot(b, 11);
	log = gen_log(20000, "pcap_fn", 11, &len);
	assert_int_equal(gen_dump(&p, b, 1, &op, log, len), 0);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	pc = pcap_open_dead(DLT_EN10MB, 65535);
	assert_non_null(pc);
	pd = pcap_dump_open(pc, path);
	assert_non_null(pd);
	write_frame(pd, (const uint8_t *)"not udp", 7, 6);	/* TCP */
	for (i = 0; i < p.n; i++)
		write_frame(pd, p.buf[i], p.len[i], 17);
	pcap_dump_close(pd);
	pcap_close(pc);
	snprintf(args, sizeof(args), "decode --json %s", path);
	j = cli_json(&r, args);
	assert_int_equal(json_integer_value(json_object_get(j, "packets")),
			 p.n);
	assert_int_equal(json_integer_value(json_object_get(j,
							    "skipped_frames")),
			 1);
	d = json_array_get(json_object_get(j, "dumps"), 0);
	assert_non_null(d);
	assert_true(json_is_true(json_object_get(d, "complete")));
	assert_string_equal(json_string_value(json_object_get(d, "host")),
			    "cap");
	assert_memory_equal(json_string_value(json_object_get(d, "log")), log,
			    len);
	json_decref(j);
	unlink(path);
	gen_pkts_free(&p);
	free(log);
}

/* Runs netoopsd with @args (a shell fragment); returns its exit status. */
static int run_daemon_status(const char *args)
{
	char cmd[512];
	int st;

	snprintf(cmd, sizeof(cmd), "%s %s 2>/dev/null", getenv("NETOOPSD"),
		 args);
	st = system(cmd);
	assert_true(WIFEXITED(st));
	return WEXITSTATUS(st);
}

/* Bad flags and config lines are refused before anything is bound. */
static void test_bad_options(void **state)
{
	char path[] = "/tmp/netoops-conf-XXXXXX", args[128];
	int fd;

	(void)state;
	assert_int_equal(run_daemon_status("--port 70000"), 2);
	assert_int_equal(run_daemon_status("--workers 0"), 2);
	assert_int_equal(run_daemon_status("--sync sometimes"), 2);
	assert_int_equal(run_daemon_status("--max-memory 12Q"), 2);
	assert_int_equal(run_daemon_status("--help >/dev/null"), 0);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "# comment\nport = 0\nbogus = 1\n", 30),
			 30);
	close(fd);
	snprintf(args, sizeof(args), "--config %s", path);
	assert_int_equal(run_daemon_status(args), 2);
	unlink(path);
}

/* ---- what an admin's terminal gets ---------------------------------- */

/* Whole standard output of the CLI with "--db DB" and @args (exit 0). */
static char *cli_text(const struct daemon_run *r, const char *args,
		      size_t *ret_len)
{
	size_t cap = 65536, len = 0, n;
	char cmd[512], *buf = malloc(cap);
	FILE *f;

	assert_non_null(buf);
	snprintf(cmd, sizeof(cmd), "%s --db %s %s", getenv("NETOOPS_CLI"),
		 r->d.db, args);
	f = popen(cmd, "r");
	assert_non_null(f);
	while ((n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
		len += n;
		if (len + 1 == cap) {
			cap *= 2;
			buf = realloc(buf, cap);
			assert_non_null(buf);
		}
	}
	buf[len] = 0;
	if (pclose(f))
		fail_msg("`%s` failed", cmd);
	*ret_len = len;
	return buf;
}

/*
 * Nothing a terminal could act on: the hostile text below has no valid
 * non-ASCII character, so after escaping every byte must be printable
 * ASCII, '\n' or '\t' (no C0, no DEL, no C1 byte, no invalid UTF-8).
 */
static void assert_terminal_safe(const char *what, const char *buf,
				 size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		unsigned char c = buf[i];

		if ((c >= 0x20 && c < 0x7f) || c == '\n' || c == '\t')
			continue;
		fail_msg("%s: raw byte 0x%02x at offset %zu, after \"%.*s\"",
			 what, c, i, (int)(i < 40 ? i : 40),
			 buf + (i < 40 ? 0 : i - 40));
	}
}

static void assert_contains(const char *what, const char *buf,
			    const char *needle)
{
	if (!strstr(buf, needle))
		fail_msg("%s lacks \"%s\":\n%s", what, needle, buf);
}

static size_t count_lines(const char *buf, size_t len)
{
	size_t i, n = 0;

	for (i = 0; i < len; i++)
		n += buf[i] == '\n';
	return n;
}

/* Fields a hostile sender controls, each with terminal escapes. */
#define EVIL_HOST	"host-0123456789\x1b]0;owned\x07\r"
#define EVIL_RELEASE	"\x1b]52;c;b3duZWQ=\x07" "6.1.0"
#define EVIL_VERSION	"#1 \x1b[2J\x1b[H SMP \xc2\x9b" "31m \x9b" "1m"
#define EVIL_VENDOR	"Gen\x1b[2Juine\x7f"
#define EVIL_USER	"ok\r\x1b[1A\x1b[2Kforged line \xff\xfe"
static const char evil_log[] =
	"[    1.000000] boot ok\n"
	"[    2.000000] \tindented\n"
	"[    3.000000] before\0\x1b[2J\0after\r\x1b[1Aforged\n"
	"[    4.000000] Kernel panic - not syncing: \x1b]0;pwned\x07 \x1b[2J"
	" \xc2\x9b" "31m \xc0\x9b \xff \x7f done\n";

/*
 * show, list, buckets, decode and netoopsd -v print every field escaped;
 * list cuts its columns on the escaped text and keeps one row per dump;
 * JSON stays exact.
 */
static void test_terminal_escapes(void **state)
{
	struct gen_opts oe = { .hostname = EVIL_HOST, .reason = 1,
			       .release = EVIL_RELEASE,
			       .version = EVIL_VERSION, .regs = true,
			       .cpu_vendor = EVIL_VENDOR, .user_key = "note",
			       .user_value = EVIL_USER, .max_pkt = 512 };
	struct gen_opts on = { .hostname = "e2e-normal", .reason = 2,
			       .release = "6.12.118+deb12-amd64",
			       .compress = true };
	struct daemon_run r;
	struct gen_pkts pe, pn;
	uint8_t be[16], bn[16];
	char args[256], *out, *row, *hdr_end;
	size_t len, nlen, i;
	json_t *list, *d, *j;
	const char *p;
	char *nlog;
	FILE *f;
	long col;

	(void)state;
	start_daemon(&r, "600000", (const char *const []){ "-v", NULL });
	mkboot(be, 20);
	mkboot(bn, 21);
	nlog = gen_log(6000, "normal_fn", 21, &nlen);
	assert_int_equal(gen_dump(&pe, be, 1, &oe, evil_log,
				  sizeof(evil_log) - 1), 0);
	assert_int_equal(gen_dump(&pn, bn, 1, &on, nlog, nlen), 0);
	send_pkts(r.d.port, &pe, NULL, 0);
	send_pkts(r.d.port, &pn, NULL, 0);
	wait_metric(&r, "netoops_dumps_stored_total", 2);
	assert_int_equal(stop_daemon(&r), 0);

	/* JSON stays exact: the bytes as sent, controls \u-escaped. */
	list = cli_json(&r, "list --json");
	d = harness_find_dump(list, be);
	assert_non_null(d);
	assert_string_equal(json_string_value(json_object_get(d, "host")),
			    EVIL_HOST);
	assert_string_equal(json_string_value(json_object_get(d, "release")),
			    EVIL_RELEASE);
	snprintf(args, sizeof(args), "show %lld --json",
		 (long long)json_integer_value(json_object_get(d, "id")));
	out = cli_text(&r, args, &len);
	for (i = 0; i < len; i++)
		if ((unsigned char)out[i] < 0x20 && out[i] != '\n')
			fail_msg("show --json: raw 0x%02x at %zu", out[i], i);
	free(out);

	/* show */
	snprintf(args, sizeof(args), "show %lld",
		 (long long)json_integer_value(json_object_get(d, "id")));
	out = cli_text(&r, args, &len);
	assert_terminal_safe("show", out, len);
	assert_contains("show", out,
			"  host:      host-0123456789\\x1b]0;owned\\a\\r\n");
	assert_contains("show", out, "  kernel:    \\x1b]52;c;b3duZWQ=\\a6.1.0"
			" #1 \\x1b[2J\\x1b[H SMP \\xc2\\x9b31m \\x9b1m x86_64\n");
	assert_contains("show", out, "Gen\\x1b[2Juine\\x7f family 6");
	/* the store keeps user fields as JSON: not UTF-8 became '?' */
	assert_contains("show", out, "  note = ok\\r\\x1b[1A\\x1b[2Kforged"
			" line ??\n");
	assert_contains("show", out, "\tindented\n");	/* a log keeps tabs */
	assert_contains("show", out,
			"before\\0\\x1b[2J\\0after\\r\\x1b[1Aforged\n");
	assert_contains("show", out, "  title:     Kernel panic: \\x1b]");
	free(out);

	/* list: one row per dump, columns cut whole escapes and aligned */
	out = cli_text(&r, "list", &len);
	assert_terminal_safe("list", out, len);
	assert_int_equal(count_lines(out, len), 3);
	assert_contains("list", out, "e2e-normal");
	hdr_end = strchr(out, '\n');
	col = strstr(out, "HOST") - out;
	row = strstr(hdr_end, "host-0123456789");
	assert_non_null(row);
	for (p = row; p[-1] != '\n'; p--)
		;
	/* HOST at its column; 15 characters and a space (the 4 of "\x1b"
	 * would pass 16); KERNEL cut at 22 before "\x1b" or "\a" would
	 * be split; REASON where the header says
	 */
	assert_int_equal(row - p, col);
	assert_int_equal(strstr(out, "KERNEL") - out, col + 18);
	assert_int_equal(strstr(out, "REASON") - out, col + 18 + 24);
	{
		static const char want[] = "host-0123456789   \\x1b]52;c;"
					   "b3duZWQ=\\a6.  panic ";

		assert_memory_equal(row, want, sizeof(want) - 1);
	}
	free(out);

	/* buckets: two lines per bucket */
	out = cli_text(&r, "buckets", &len);
	assert_terminal_safe("buckets", out, len);
	assert_int_equal(count_lines(out, len), 1 + 2 * 2);
	assert_contains("buckets", out, "kernels: \\x1b]52;c;b3duZWQ=\\a6.1.0;");
	free(out);
	/* a title that is not UTF-8 is still in buckets --json */
	j = cli_json(&r, "buckets --json");
	assert_int_equal(json_array_size(j), 2);
	json_array_foreach(j, i, d)
		assert_true(json_is_string(json_object_get(d, "title")));
	json_decref(j);

	/* decode of the archive netoopsd wrote: the same datagrams */
	snprintf(args, sizeof(args), "decode %s", r.archive);
	out = cli_text(&r, args, &len);
	assert_terminal_safe("decode", out, len);
	assert_contains("decode", out,
			"  host:      host-0123456789\\x1b]0;owned\\a\\r\n");
	assert_contains("decode", out, "after\\r\\x1b[1Aforged\n");
	assert_contains("decode", out, "  note = ok\\r\\x1b[1A\\x1b[2Kforged"
			" line \\xff\\xfe\n");
	free(out);
	snprintf(args, sizeof(args), "decode --packets %s", r.archive);
	out = cli_text(&r, args, &len);
	assert_terminal_safe("decode --packets", out, len);
	free(out);

	/* netoopsd -v logged the stored dumps with the hostname escaped */
	f = fopen(r.d.log, "r");
	assert_non_null(f);
	out = calloc(1, 65536);
	assert_non_null(out);
	len = fread(out, 1, 65535, f);
	fclose(f);
	assert_terminal_safe("netoopsd -v", out, len);
	assert_contains("netoopsd -v", out,
			" host-0123456789\\x1b]0;owned\\a\\r complete\n");
	assert_contains("netoopsd -v", out, " e2e-normal complete\n");
	free(out);

	json_decref(list);
	cleanup(&r);
	gen_pkts_free(&pe);
	gen_pkts_free(&pn);
	free(nlog);
}

/* ---- errors: the file, the real reason, a non-zero exit ------------- */

#define NOBODY 65534

/*
 * Runs @cmd with sh; as nobody when @unprivileged and we are root (file
 * modes do not bind root).  Returns the exit status, standard output and
 * error in @out.  Skips the test if privileges cannot be dropped.
 */
static int run_cmd(const char *cmd, bool unprivileged, char *out,
		   size_t outlen)
{
	size_t len = 0;
	int pfd[2], st;
	ssize_t n;
	pid_t pid;

	assert_int_equal(pipe(pfd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		close(pfd[0]);
		if (unprivileged && !geteuid() &&
		    (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY)))
			_exit(125);
		if (dup2(pfd[1], 1) < 0 || dup2(pfd[1], 2) < 0)
			_exit(126);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	while (len + 1 < outlen &&
	       (n = read(pfd[0], out + len, outlen - 1 - len)) > 0)
		len += n;
	out[len] = 0;
	close(pfd[0]);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	if (WEXITSTATUS(st) == 125) {
		printf("cannot run as uid %d: permission checks skipped\n",
		       NOBODY);
		skip();
	}
	return WEXITSTATUS(st);
}

/* @cmd exits @status and says @msg. */
static void expect_error(const char *cmd, bool unprivileged, int status,
			 const char *msg)
{
	char out[4096];
	int st = run_cmd(cmd, unprivileged, out, sizeof(out));

	if (st != status || !strstr(out, msg))
		fail_msg("`%s`: exit %d, wanted %d with \"%s\"; said:\n%s",
			 cmd, st, status, msg, out);
}

/* A directory nobody can enter (mkdtemp makes 0700). */
static void mkdir_tmp(char *dir)
{
	strcpy(dir, "/tmp/netoops-err-XXXXXX");
	assert_non_null(mkdtemp(dir));
	assert_int_equal(chmod(dir, 0755), 0);
}

static void rm_tmp(const char *dir)
{
	char cmd[160];

	snprintf(cmd, sizeof(cmd), "chmod -R u+rwx '%s'; rm -rf '%s'", dir,
		 dir);
	assert_int_equal(system(cmd), 0);
}

/* netoops on a database it cannot use says which and why. */
static void test_cli_store_errors(void **state)
{
	const char *cli = getenv("NETOOPS_CLI");
	char dir[64], path[128], cmd[512], msg[256], junk[4096];
	struct daemon_run r;
	FILE *f;
	size_t i;

	(void)state;
	mkdir_tmp(dir);
	/* a corrupt file */
	for (i = 0; i < sizeof(junk); i++)
		junk[i] = (char)(i * 131 + 7);
	snprintf(path, sizeof(path), "%s/corrupt.db", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(junk, 1, sizeof(junk), f), sizeof(junk));
	fclose(f);
	snprintf(cmd, sizeof(cmd), "%s --db %s list", cli, path);
	snprintf(msg, sizeof(msg), "cannot open store %s: not a netoops"
		 " database\n", path);
	expect_error(cmd, false, 1, msg);
	snprintf(cmd, sizeof(cmd), "%s --db %s show 1", cli, path);
	expect_error(cmd, false, 1, msg);
	/* not SQLite at all */
	snprintf(cmd, sizeof(cmd), "%s --db /etc/passwd buckets", cli);
	expect_error(cmd, false, 1, "cannot open store /etc/passwd: not a"
		     " netoops database\n");
	/* SQLite, but not a store (no dumps table) */
	snprintf(path, sizeof(path), "%s/empty.db", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "%s --db %s list", cli, path);
	snprintf(msg, sizeof(msg), "cannot open store %s: not a netoops"
		 " database\n", path);
	expect_error(cmd, false, 1, msg);
	/* missing: the old hint still applies */
	snprintf(cmd, sizeof(cmd), "%s --db %s/none.db list", cli, dir);
	expect_error(cmd, false, 1, "none.db: no such database (has netoopsd"
		     " run?)\n");
	/* a real store the reader may not read */
	snprintf(r.d.db, sizeof(r.d.db), "%s/n.db", dir);
	snprintf(cmd, sizeof(cmd), "%s --db %s import-log /etc/hostname"
		 " >/dev/null", cli, r.d.db);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(chmod(r.d.db, 0), 0);
	snprintf(cmd, sizeof(cmd), "%s --db %s list", cli, r.d.db);
	snprintf(msg, sizeof(msg), "cannot open store %s: Permission denied\n",
		 r.d.db);
	expect_error(cmd, true, 1, msg);
	rm_tmp(dir);
}

/* netoopsd refuses to start, saying why, with status 2 for a bad option
 * and 1 for what it could not do.
 */
static void test_daemon_errors(void **state)
{
	const char *bin = getenv("NETOOPSD");
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t salen = sizeof(sa);
	char dir[64], cmd[512], msg[256];
	int fd;

	(void)state;
	mkdir_tmp(dir);
	/* a directory it may not write */
	snprintf(cmd, sizeof(cmd), "%s/ro", dir);
	assert_int_equal(mkdir(cmd, 0555), 0);
	snprintf(cmd, sizeof(cmd), "%s --listen 127.0.0.1 --port 0 --db"
		 " %s/ro/n.db", bin, dir);
	snprintf(msg, sizeof(msg), "cannot open store %s/ro/n.db: Permission"
		 " denied\n", dir);
	expect_error(cmd, true, 1, msg);
	/* a file that is not a database (a copy: never write /etc) */
	snprintf(cmd, sizeof(cmd), "cp /etc/passwd %s/passwd && %s --listen"
		 " 127.0.0.1 --port 0 --db %s/passwd", dir, bin, dir);
	snprintf(msg, sizeof(msg), "cannot open store %s/passwd: not a"
		 " netoops database\n", dir);
	expect_error(cmd, false, 1, msg);
	/* the metrics port is taken */
	fd = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(fd >= 0);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(fd, 1), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sa, &salen), 0);
	snprintf(cmd, sizeof(cmd), "%s --listen 127.0.0.1 --port 0 --db"
		 " %s/n.db --metrics-listen 127.0.0.1:%d", bin, dir,
		 ntohs(sa.sin_port));
	snprintf(msg, sizeof(msg), "cannot serve metrics on 127.0.0.1:%d:"
		 " Address already in use\n", ntohs(sa.sin_port));
	expect_error(cmd, false, 1, msg);
	close(fd);
	/* bad values: refused before anything is opened */
	snprintf(cmd, sizeof(cmd), "%s --db %s/n.db --metrics-listen"
		 " 127.0.0.1:abc", bin, dir);
	expect_error(cmd, false, 2, "bad value for --metrics-listen"
		     " '127.0.0.1:abc': invalid port 'abc'");
	snprintf(cmd, sizeof(cmd), "%s --db %s/n.db --metrics-listen"
		 " 127.0.0.1:", bin, dir);
	expect_error(cmd, false, 2, "invalid port ''");
	snprintf(cmd, sizeof(cmd), "%s --db %s/n.db --max-memory"
		 " 17179869184G", bin, dir);
	expect_error(cmd, false, 2, "bad value for --max-memory"
		     " '17179869184G': value too large");
	snprintf(cmd, sizeof(cmd), "%s --db %s/n.db --pending-bytes"
		 " 18446744073709551616", bin, dir);
	expect_error(cmd, false, 2, "value too large");
	snprintf(cmd, sizeof(cmd), "%s --db %s/n.db --port 70000", bin, dir);
	expect_error(cmd, false, 2, "invalid port '70000'");
	rm_tmp(dir);
}

/* decode of something that holds no netoops datagram fails. */
static void test_decode_not_netoops(void **state)
{
	const char *cli = getenv("NETOOPS_CLI");
	char cmd[256];

	(void)state;
	snprintf(cmd, sizeof(cmd), "%s decode /etc/passwd", cli);
	expect_error(cmd, false, 1, "netoops decode: /etc/passwd: no valid"
		     " netoops datagram (1 refused)\n");
	snprintf(cmd, sizeof(cmd), "%s decode --json /etc/passwd", cli);
	expect_error(cmd, false, 1, "no valid netoops datagram");
	snprintf(cmd, sizeof(cmd), "%s decode - </dev/null", cli);
	expect_error(cmd, false, 1, "netoops decode: standard input: no valid"
		     " netoops datagram (0 refused)\n");
}

/* "key = value  # comment" in the config file; a '#' inside a value stays. */
static void test_config_comments(void **state)
{
	char dir[64], conf[128], mfile[128], text[512];
	const char *extra[] = { "--config", conf, NULL };
	struct daemon_run r;
	FILE *f;
	int fd;

	(void)state;
	mkdir_tmp(dir);
	snprintf(conf, sizeof(conf), "%s/netoopsd.conf", dir);
	snprintf(mfile, sizeof(mfile), "%s/m#1", dir);
	snprintf(text, sizeof(text),
		 "# netoopsd test configuration\n"
		 "workers = 1  # one is enough here\n"
		 "metrics-file = %s   # a '#' in a value is kept\n"
		 "metrics-interval = 1\t# a tab before the comment\n"
		 "   # an indented comment line\n"
		 "sync = normal #fast\n", mfile);
	f = fopen(conf, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	start_daemon(&r, "600000", extra);
	assert_int_equal(stop_daemon(&r), 0);
	f = fopen(r.d.log, "r");
	assert_non_null(f);
	assert_non_null(fgets(text, sizeof(text), f));
	fclose(f);
	assert_non_null(strstr(text, "(1 address(es) x 1 workers)"));
	fd = open(mfile, O_RDONLY);	/* written at exit, name as given */
	assert_true(fd >= 0);
	close(fd);
	cleanup(&r);
	rm_tmp(dir);
}

/*
 * Runs netoopsd with @args (a NULL-terminated list after the program),
 * standard error to @log; waits for its exit, at most DEADLINE_MS, and
 * returns its exit status.  A netoopsd still running then fails the test.
 */
static int run_until_exit(const char *const *args, const char *log)
{
	const char *argv[24] = { getenv("NETOOPSD") };
	uint64_t end = now_ms() + DEADLINE_MS;
	pid_t pid;
	int n = 1, st;

	while (*args && n < 23)
		argv[n++] = *args++;
	pid = fork();
	assert_true(pid >= 0);
	if (!pid)
		harness_exec(argv, log);
	while (!waitpid(pid, &st, WNOHANG)) {
		if (now_ms() > end) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			fail_msg("a second netoopsd kept running: see %s", log);
		}
		nap();
	}
	assert_true(WIFEXITED(st));
	return WEXITSTATUS(st);
}

static char *read_text(const char *path)
{
	static char buf[4096];
	FILE *f = fopen(path, "r");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

/* Sends dumps @first..@first+@n-1 of this test, whole. */
static void send_dumps(int port, int first, int n)
{
	struct gen_opts op = { .hostname = "e2e-owner", .reason = 1,
			       .release = "6.1.0", .max_pkt = 512 };
	struct gen_pkts p;
	uint8_t b[16];
	size_t len;
	char *log;
	int i;

	for (i = first; i < first + n; i++) {
		mkboot(b, 0x40 + i);
		log = gen_log(3000, "owner_fn", i, &len);
		assert_int_equal(gen_dump(&p, b, 1, &op, log, len), 0);
		send_pkts(port, &p, NULL, 0);
		gen_pkts_free(&p);
		free(log);
	}
}

/*
 * One netoopsd per UDP port: a second one, on the same address or the
 * wildcard, refuses to start, names the owner and exits 1; the first
 * still gets every dump.  Once the owner is killed (SIGKILL: nothing
 * cleaned up), a new netoopsd takes the port.
 */
static void test_one_per_port(void **state)
{
	struct daemon_run a, b;
	char port[16], db[160], log[160], want[128];
	const char *extra[] = { "--port", port, NULL };
	const char *same[] = { "--listen", "127.0.0.1", "--port", port,
			       "--db", db, NULL };
	const char *wild[] = { "--listen", "0.0.0.0", "--port", port,
			       "--db", db, "--workers", "1", NULL };
	int st;

	(void)state;
	start_daemon(&a, "600000", NULL);
	snprintf(port, sizeof(port), "%d", a.d.port);
	snprintf(db, sizeof(db), "%s/second.db", a.d.dir);
	snprintf(log, sizeof(log), "%s/second.log", a.d.dir);
	snprintf(want, sizeof(want), "netoopsd: udp port %d is taken by"
		 " another netoopsd (pid %d): one netoopsd per port\n", a.d.port,
		 (int)a.d.pid);
	assert_int_equal(run_until_exit(same, log), 1);
	assert_string_equal(read_text(log), want);
	assert_int_equal(run_until_exit(wild, log), 1);
	assert_string_equal(read_text(log), want);
	send_dumps(a.d.port, 0, 8);
	wait_metric(&a, "netoops_dumps_stored_total", 8);
	assert_true(metric(&a, "netoops_dumps_stored_total") == 8);

	/* SIGKILL: the port is free again at once. */
	assert_int_equal(kill(a.d.pid, SIGKILL), 0);
	assert_int_equal(waitpid(a.d.pid, &st, 0), a.d.pid);
	assert_true(WIFSIGNALED(st));
	current.pid = 0;
	start_daemon(&b, "600000", extra);
	assert_int_equal(b.d.port, a.d.port);
	send_dumps(b.d.port, 8, 1);
	wait_metric(&b, "netoops_dumps_stored_total", 1);
	assert_int_equal(stop_daemon(&b), 0);
	cleanup(&b);
	harness_cleanup(a.d.dir);
}

/* The value of "@field:\t<hex>" in /proc/@pid/task/@tid/status. */
static unsigned long long task_status_hex(const char *status,
					  const char *field)
{
	const char *p = strstr(status, field);

	if (!p)
		fail_msg("no %s in:\n%s", field, status);
	return strtoull(p + strlen(field) + 1, NULL, 16);
}

/* The receive buffer the kernel gave UDP port @port (ss -m: "rb"). */
static long long udp_rcvbuf(int port)
{
	char cmd[128], line[512], *p;
	long long rb = -1;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "ss -uanmH 'sport = :%d'", port);
	f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if ((p = strstr(line, ",rb")))
			rb = strtoll(p + 3, NULL, 10);
	assert_int_equal(pclose(f), 0);
	return rb;
}

/*
 * Started as root with --rcvbuf above net.core.rmem_max: the sockets get
 * it (SO_RCVBUFFORCE, CAP_NET_ADMIN), then every thread runs with no
 * capability in any set, no_new_privs, and dumps are still stored.
 */
static void test_capabilities(void **state)
{
	char rcvbuf[32], path[320], status[4096];
	const char *extra[] = { "--rcvbuf", rcvbuf, NULL };
	long long rmem_max = 0, want;
	struct daemon_run r;
	struct dirent *de;
	int tasks = 0;
	size_t n;
	DIR *dir;
	FILE *f;

	(void)state;
	if (geteuid()) {
		print_message("SKIP: needs root (CAP_NET_ADMIN to drop)\n");
		skip();
	}
	f = fopen("/proc/sys/net/core/rmem_max", "r");
	assert_non_null(f);
	assert_int_equal(fscanf(f, "%lld", &rmem_max), 1);
	fclose(f);
	want = rmem_max + (1 << 20);
	snprintf(rcvbuf, sizeof(rcvbuf), "%lld", want);
	start_daemon(&r, "600000", extra);
	/* The kernel doubles it; without the capability, 2 x rmem_max. */
	assert_int_equal(udp_rcvbuf(r.d.port), 2 * want);

	snprintf(path, sizeof(path), "/proc/%d/task", (int)r.d.pid);
	dir = opendir(path);
	assert_non_null(dir);
	while ((de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/status",
			 (int)r.d.pid, de->d_name);
		f = fopen(path, "r");
		assert_non_null(f);
		n = fread(status, 1, sizeof(status) - 1, f);
		status[n] = 0;
		fclose(f);
		assert_int_equal(task_status_hex(status, "CapInh:"), 0);
		assert_int_equal(task_status_hex(status, "CapPrm:"), 0);
		assert_int_equal(task_status_hex(status, "CapEff:"), 0);
		assert_int_equal(task_status_hex(status, "CapBnd:"), 0);
		assert_int_equal(task_status_hex(status, "CapAmb:"), 0);
		assert_int_equal(task_status_hex(status, "NoNewPrivs:"), 1);
		tasks++;
	}
	closedir(dir);
	assert_true(tasks > 2);		/* main, workers, finishers, ... */

	send_dumps(r.d.port, 16, 2);
	wait_metric(&r, "netoops_dumps_stored_total", 2);
	assert_int_equal(stop_daemon(&r), 0);
	cleanup(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		harness_test(test_daemon),
		harness_test(test_sigterm_flush),
		harness_test(test_ipv6),
		harness_test(test_limit_per_source),
		harness_test(test_decode_file),
		harness_test(test_decode_pcap),
		harness_test(test_bad_options),
		harness_test(test_terminal_escapes),
		cmocka_unit_test(test_cli_store_errors),
		cmocka_unit_test(test_daemon_errors),
		cmocka_unit_test(test_decode_not_netoops),
		harness_test(test_config_comments),
		harness_test(test_one_per_port),
		harness_test(test_capabilities),
	};

	if (harness_skip("collector-e2e"))
		return 0;
	if (getenv("NETOOPS_TEST_FILTER"))
		cmocka_set_test_filter(getenv("NETOOPS_TEST_FILTER"));
	return cmocka_run_group_tests(tests, NULL, NULL);
}
