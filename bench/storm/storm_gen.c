// SPDX-License-Identifier: GPL-2.0
/*
 * storm_gen: a crash storm on loopback.  N simulated hosts (distinct
 * boot_ids and hostnames), each sending one dump of about --size bytes of
 * kernel log, raw-deflated like pstore does, packetized with the shared
 * encoder.  Everything is built before the clock starts; then the packets
 * go out with sendmmsg() as fast as possible (or at --rate packets/s),
 * --window hosts interleaved packet by packet.  With --port given twice,
 * every packet goes to both receivers, one right after the other: both see
 * the same storm at the same time, which is what the ratio compares.
 *
 * Output (stdout), key=value lines: packets, bytes, dumps, start_ms,
 * end_ms (unix ms), prep_ms.
 *
 * Only loopback destinations are accepted.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <linux/netoops.h>

#include "gen_dump.h"

#define BATCH 64
#define MAX_SOCKS 64

static uint64_t wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec * 1000ull + ts.tv_nsec / 1000000;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static const char *const funcs[] = {
	"ext4_find_extent", "tcp_v4_rcv", "nvme_complete_rq",
	"drm_atomic_commit", "kmem_cache_alloc", "xfs_inode_item_push",
	"mlx5e_napi_poll", "blk_mq_dispatch_rq_list",
};

struct sockbatch {
	int fd;
	int n;
	struct mmsghdr msgs[BATCH];
	struct iovec iov[BATCH];
};

static unsigned long long sent_pkts, sent_bytes;
static uint64_t rate, t_start_ns;

static void flush(struct sockbatch *b)
{
	int off = 0, r;

	while (off < b->n) {
		r = sendmmsg(b->fd, b->msgs + off, b->n - off, 0);
		if (r < 0) {
			if (errno == EINTR || errno == ENOBUFS ||
			    errno == EAGAIN)
				continue;	/* retry: never drop here */
			perror("storm_gen: sendmmsg");
			exit(1);
		}
		for (int i = off; i < off + r; i++)
			sent_bytes += b->iov[i].iov_len;
		off += r;
	}
	sent_pkts += b->n;
	b->n = 0;
	if (rate) {	/* pace: do not get ahead of the schedule */
		uint64_t due = t_start_ns + sent_pkts * 1000000000ull / rate;

		while (mono_ns() < due)
			;
	}
}

static void queue_pkt(struct sockbatch *b, uint8_t *buf, size_t len)
{
	b->iov[b->n].iov_base = buf;
	b->iov[b->n].iov_len = len;
	memset(&b->msgs[b->n], 0, sizeof(b->msgs[b->n]));
	b->msgs[b->n].msg_hdr.msg_iov = &b->iov[b->n];
	b->msgs[b->n].msg_hdr.msg_iovlen = 1;
	b->n++;
	if (b->n == BATCH)
		flush(b);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "port", required_argument, NULL, 'p' },
		{ "addr", required_argument, NULL, 'a' },
		{ "hosts", required_argument, NULL, 'n' },
		{ "size", required_argument, NULL, 's' },
		{ "templates", required_argument, NULL, 't' },
		{ "window", required_argument, NULL, 'w' },
		{ "sockets", required_argument, NULL, 'k' },
		{ "rate", required_argument, NULL, 'r' },
		{ "max-pkt", required_argument, NULL, 'm' },
		{ NULL, 0, NULL, 0 }
	};
	long port[2] = { 0, 0 }, nports = 0, hosts = 10000, size = 128 * 1024, ntmpl = 64;
	long window = 256, nsocks = 8, max_pkt = NETOOPS_PKT_DEFAULT;
	const char *addr = "127.0.0.1";
	struct sockaddr_in sa = { .sin_family = AF_INET };
	struct sockbatch *socks;
	struct gen_pkts *dumps;
	uint8_t **tz;
	size_t *tzlen, *tlen;
	uint64_t t0, start, end;
	long h, t, base, i;
	int o;

	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (o) {
		case 'p':
			if (nports == 2)
				return 2;
			port[nports++] = atol(optarg);
			break;
		case 'a': addr = optarg; break;
		case 'n': hosts = atol(optarg); break;
		case 's': size = atol(optarg); break;
		case 't': ntmpl = atol(optarg); break;
		case 'w': window = atol(optarg); break;
		case 'k': nsocks = atol(optarg); break;
		case 'r': rate = strtoull(optarg, NULL, 10); break;
		case 'm': max_pkt = atol(optarg); break;
		default:
			fprintf(stderr, "usage: storm_gen --port P [--addr"
				" 127.x.y.z] [--hosts N] [--size BYTES]\n"
				"  [--templates N] [--window N] [--sockets N]"
				" [--rate PPS] [--max-pkt BYTES]\n");
			return 2;
		}
	}
	if (inet_pton(AF_INET, addr, &sa.sin_addr) != 1 ||
	    (ntohl(sa.sin_addr.s_addr) >> 24) != 127) {
		fprintf(stderr, "storm_gen: loopback (127.0.0.0/8) only\n");
		return 2;
	}
	if (!nports || port[0] <= 0 || port[0] > 65535 || port[1] < 0 ||
	    port[1] > 65535 || hosts <= 0 || size < 4096 ||
	    ntmpl <= 0 || window <= 0 || nsocks <= 0 || nsocks > MAX_SOCKS) {
		fprintf(stderr, "storm_gen: bad arguments\n");
		return 2;
	}

	/* Prepare: distinct logs per template, compressed once each. */
	t0 = wall_ms();
	tz = calloc(ntmpl, sizeof(*tz));
	tzlen = calloc(ntmpl, sizeof(*tzlen));
	tlen = calloc(ntmpl, sizeof(*tlen));
	for (t = 0; t < ntmpl; t++) {
		char *log = gen_log(size, funcs[t % 8], t + 1, &tlen[t]);

		if (!log || gen_deflate(log, tlen[t], 6, &tz[t], &tzlen[t])) {
			fprintf(stderr, "storm_gen: out of memory\n");
			return 1;
		}
		free(log);
	}
	dumps = calloc(hosts, sizeof(*dumps));
	for (h = 0; h < hosts; h++) {
		struct gen_opts go = {
			.reason = NETOOPS_REASON_OOPS, .compress = true,
			.regs = true, .max_pkt = max_pkt,
			.release = h % 2 ? "6.1.0-57-amd64" :
					   "6.12.118+deb12-amd64",
		};
		uint8_t boot[16];
		uint64_t x = (uint64_t)h * 0x9e3779b97f4a7c15ull + 1;
		char host[32];
		int b;

		snprintf(host, sizeof(host), "storm-%05ld", h);
		go.hostname = host;
		for (b = 0; b < 16; b++) {	/* random-looking, distinct */
			x ^= x >> 29;
			x *= 0xbf58476d1ce4e5b9ull;
			boot[b] = x >> 56;
		}
		memcpy(boot + 12, &h, 4);	/* distinct for sure */
		t = h % ntmpl;
		if (gen_dump_payload(&dumps[h], boot, 1, &go, tz[t], tzlen[t],
				     tlen[t])) {
			fprintf(stderr, "storm_gen: cannot encode\n");
			return 1;
		}
	}
	socks = calloc(nsocks * nports, sizeof(*socks));
	for (i = 0; i < nsocks * nports; i++) {
		sa.sin_port = htons(port[i / nsocks]);
		socks[i].fd = socket(AF_INET, SOCK_DGRAM, 0);
		if (socks[i].fd < 0 ||
		    connect(socks[i].fd, (struct sockaddr *)&sa, sizeof(sa))) {
			perror("storm_gen: socket");
			return 1;
		}
	}
	/* the compressed size of a dump, for RSS per in-flight dump */
	{
		unsigned long long z = 0;

		for (h = 0; h < hosts; h++)
			z += tzlen[h % ntmpl];
		printf("payload_bytes=%llu\n", z / hosts);
	}
	printf("prep_ms=%llu\n", (unsigned long long)(wall_ms() - t0));
	fflush(stdout);

	/* The storm: hosts in windows, packets interleaved across them. */
	start = wall_ms();
	t_start_ns = mono_ns();
	for (base = 0; base < hosts; base += window) {
		long last = base + window < hosts ? base + window : hosts;
		size_t k, left = 1;

		for (k = 0; left; k++) {
			left = 0;
			for (h = base; h < last; h++) {
				if (k >= dumps[h].n)
					continue;
				left = 1;
				for (i = 0; i < nports; i++)
					queue_pkt(&socks[i * nsocks + h % nsocks],
						  dumps[h].buf[k],
						  dumps[h].len[k]);
			}
		}
	}
	for (i = 0; i < nsocks * nports; i++)
		if (socks[i].n)
			flush(&socks[i]);
	end = wall_ms();
	sent_pkts /= nports;
	sent_bytes /= nports;
	printf("packets=%llu\nbytes=%llu\ndumps=%ld\nstart_ms=%llu\n"
	       "end_ms=%llu\nsend_pps=%.0f\n", sent_pkts, sent_bytes, hosts,
	       (unsigned long long)start, (unsigned long long)end,
	       sent_pkts * 1000.0 / (end - start ? end - start : 1));
	for (h = 0; h < hosts; h++)
		gen_pkts_free(&dumps[h]);
	for (t = 0; t < ntmpl; t++)
		free(tz[t]);
	free(tz);
	free(tzlen);
	free(tlen);
	free(dumps);
	for (i = 0; i < nsocks * nports; i++)
		close(socks[i].fd);
	free(socks);
	return 0;
}
