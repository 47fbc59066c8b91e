// SPDX-License-Identifier: GPL-2.0
/*
 * dump_bench: the finishing cost of one dump, the work netoopsd's finisher
 * threads do per dump after reassembly, on the storm's logs (bench/storm:
 * 128 KiB of kernel log, raw-deflated like pstore, 8 distinct crashes).
 *
 * Measured in the thread's own CPU time (CLOCK_THREAD_CPUTIME_ID), so a
 * busy machine slows the figures less than wall time would; each figure is
 * the best of --rounds rounds over --dumps dumps.
 *
 * Output (stdout), key=value, microseconds of CPU per dump:
 *   inflate_us     netoops_inflate() alone
 *   sign_us        netoops_signature() alone, on the inflated text
 *   both_us        inflate + signature: the target of bench/collector
 *   log_bytes      inflated bytes per dump, zbytes compressed
 */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gen_dump.h"
#include "netoops_decode.h"
#include "sig/signature.h"

#define NTMPL	64

static const char *const funcs[] = {
	"ext4_find_extent", "tcp_v4_rcv", "nvme_complete_rq",
	"drm_atomic_commit", "kmem_cache_alloc", "xfs_inode_item_push",
	"mlx5e_napi_poll", "blk_mq_dispatch_rq_list",
};

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

enum { INFLATE = 1, SIGN = 2 };

/* CPU ns per dump for @n dumps of @what, the best of @rounds. */
static double run(int what, long n, int rounds, uint8_t **tz, size_t *tzlen,
		  char **text, size_t *tlen, char *out, size_t cap)
{
	double best = 0;
	struct netoops_sig sig;
	int r;

	for (r = 0; r < rounds; r++) {
		uint64_t t0 = cpu_ns();
		long i;

		for (i = 0; i < n; i++) {
			int t = i % NTMPL;
			size_t len = tlen[t];
			const char *log = text[t];

			if (what & INFLATE) {
				if (netoops_inflate(tz[t], tzlen[t], out, cap,
						    &len) || len != tlen[t]) {
					fprintf(stderr, "dump_bench: inflate"
						" failed\n");
					exit(1);
				}
				log = out;
			}
			if ((what & SIGN) &&
			    netoops_signature(log, len, &sig) < 0) {
				fprintf(stderr, "dump_bench: no signature\n");
				exit(1);
			}
		}
		double per = (double)(cpu_ns() - t0) / n;

		if (!r || per < best)
			best = per;
	}
	return best;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "size", required_argument, NULL, 's' },
		{ "dumps", required_argument, NULL, 'n' },
		{ "rounds", required_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 }
	};
	long size = 128 * 1024, n = 640, rounds = 5;
	uint8_t *tz[NTMPL];
	size_t tzlen[NTMPL], tlen[NTMPL], zsum = 0, lsum = 0;
	char *text[NTMPL], *out;
	int o, t;

	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (o) {
		case 's': size = atol(optarg); break;
		case 'n': n = atol(optarg); break;
		case 'r': rounds = atol(optarg); break;
		default:
			fprintf(stderr, "usage: dump_bench [--size BYTES]"
				" [--dumps N] [--rounds N]\n");
			return 2;
		}
	}
	if (size < 4096 || n <= 0 || rounds <= 0)
		return 2;
	for (t = 0; t < NTMPL; t++) {
		text[t] = gen_log(size, funcs[t % 8], t + 1, &tlen[t]);
		if (!text[t] ||
		    gen_deflate(text[t], tlen[t], 6, &tz[t], &tzlen[t])) {
			fprintf(stderr, "dump_bench: out of memory\n");
			return 1;
		}
		zsum += tzlen[t];
		lsum += tlen[t];
	}
	out = malloc(size * 2);
	if (!out)
		return 1;
	printf("log_bytes=%zu\nzbytes=%zu\n", lsum / NTMPL, zsum / NTMPL);
	printf("inflate_us=%.1f\n", run(INFLATE, n, rounds, tz, tzlen, text,
					tlen, out, size * 2) / 1000);
	printf("sign_us=%.1f\n", run(SIGN, n, rounds, tz, tzlen, text, tlen,
				     out, size * 2) / 1000);
	printf("both_us=%.1f\n", run(INFLATE | SIGN, n, rounds, tz, tzlen,
				     text, tlen, out, size * 2) / 1000);
	for (t = 0; t < NTMPL; t++) {
		free(text[t]);
		free(tz[t]);
	}
	free(out);
	return 0;
}
