// SPDX-License-Identifier: GPL-2.0
/*
 * web_feed: dumps for the dashboard's tests and benchmark.
 *
 *   web_feed --port P
 *	to netoopsd on 127.0.0.1:P, as real datagrams: one hostile dump
 *	(hostname, release, user field and log holding <script>, quotes, &
 *	and invalid UTF-8), one plain dump with a datagram lost in the
 *	middle (a gap of known length) and one deflated dump with a datagram
 *	lost (the rest of the log missing).  netoopsd stores the last two
 *	partial after its --timeout-ms.
 *   web_feed --history DB N [--days D]
 *	N dumps put straight into the store DB, received over the last D
 *	days (default 7), more of them lately, from 40 hosts, 3 releases and
 *	12 crash sites: what a fleet's store looks like, quickly.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <linux/netoops.h>

#include "gen_dump.h"
#include "store/record.h"
#include "store/store.h"

/* What the tests look for (tests-web/test_http.py). */
#define HOSTILE_HOST	"<script>alert(\"host\")</script>&'\xff-evil"
#define HOSTILE_REL	"6.12.0-<b>bold</b>&\"q\""
#define HOSTILE_KEY	"note"
#define HOSTILE_VALUE	"<script>alert('user')</script> & \"q\" \xfe\xff" \
			" \xe2\x81\xa6rli\xe2\x81\xa9 zw\xe2\x80\x8bsp"

static void send_pkts(int port, const struct gen_pkts *p, long drop)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	size_t i;
	int fd;

	sa.sin_port = htons(port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		perror("web_feed: socket");
		exit(1);
	}
	for (i = 0; i < p->n; i++) {
		if ((long)i == drop)
			continue;
		if (sendto(fd, p->buf[i], p->len[i], 0,
			   (struct sockaddr *)&sa, sizeof(sa)) < 0) {
			perror("web_feed: sendto");
			exit(1);
		}
	}
	close(fd);
}

static void one(int port, uint8_t tag, const struct gen_opts *o,
		const char *log, size_t len, long drop)
{
	struct gen_pkts p = { 0 };
	uint8_t boot[16];
	struct timeval tv;

	gettimeofday(&tv, NULL);
	memset(boot, tag, sizeof(boot));
	memcpy(boot, &tv, sizeof(tv) < 8 ? sizeof(tv) : 8);
	if (gen_dump(&p, boot, tag, o, log, len) < 0 || p.n < 3) {
		fprintf(stderr, "web_feed: gen_dump failed\n");
		exit(1);
	}
	send_pkts(port, &p, drop < 0 ? -1 : (long)p.n / 2);
	gen_pkts_free(&p);
}

static int feed(int port)
{
	struct gen_opts o = { 0 };
	size_t len;
	char *log;

	/* Hostile: every field a sender chooses. */
	log = gen_log(6000, "evil_<script>_func", 1, &len);
	if (!log)
		return 1;
	{
		static const char extra[] =
			"<script>alert(\"log\")</script> & 'quotes' \"dq\"\n"
			"bad utf-8: \xff\xfe\xc3 end\n"
			"bidi: adm\xe2\x80\xaenimda bom\xef\xbb\xbf"
			" shy\xc2\xad lrm\xe2\x80\x8e alm\xd8\x9c\n"
			"</pre><img src=x onerror=alert(1)>\n";
		char *l2 = malloc(len + sizeof(extra));

		if (!l2)
			return 1;
		memcpy(l2, extra, sizeof(extra) - 1);
		memcpy(l2 + sizeof(extra) - 1, log, len);
		free(log);
		log = l2;
		len += sizeof(extra) - 1;
	}
	o.hostname = HOSTILE_HOST;
	o.release = HOSTILE_REL;
	o.reason = NETOOPS_REASON_OOPS;
	o.user_key = HOSTILE_KEY;
	o.user_value = HOSTILE_VALUE;
	o.regs = true;
	o.max_pkt = 1024;
	one(port, 0xa1, &o, log, len, -1);
	free(log);

	/* Plain text, one datagram lost: a gap of known length. */
	memset(&o, 0, sizeof(o));
	log = gen_log(8000, "gap_known_len", 2, &len);
	if (!log)
		return 1;
	o.hostname = "gap-plain";
	o.release = "6.12.0-test";
	o.reason = NETOOPS_REASON_PANIC;
	o.max_pkt = 512;
	one(port, 0xa2, &o, log, len, 1);
	free(log);

	/* Deflated, one datagram lost: the rest cannot be inflated. */
	log = gen_log(8000, "gap_rest_missing", 3, &len);
	if (!log)
		return 1;
	o.hostname = "gap-deflate";
	o.compress = true;
	o.max_pkt = 256;
	one(port, 0xa3, &o, log, len, 1);
	free(log);
	return 0;
}

static const char *const funcs[] = {
	"ext4_find_extent", "tcp_v4_rcv", "nvme_complete_rq",
	"drm_atomic_commit", "kmem_cache_alloc", "xfs_inode_item_push",
	"mlx5e_napi_poll", "blk_mq_dispatch_rq_list", "btrfs_search_slot",
	"ieee80211_rx_napi", "i915_gem_evict", "nf_conntrack_in",
};

static const char *const releases[] = {
	"6.12.118+deb12-amd64", "6.1.0-57-amd64", "6.12.120+deb12-amd64",
};

static uint32_t rnd(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

static int history(const char *db, long n, long days)
{
	struct nstore_dump **batch;
	struct nstore *st;
	struct timeval tv;
	uint32_t seed = 2026;
	int64_t now;
	long i, k = 0;
	int r;

	r = nstore_open(db, NSTORE_SYNC_NORMAL, &st);
	if (r < 0) {
		fprintf(stderr, "web_feed: %s: %s\n", db,
			nstore_open_strerror(r));
		return 1;
	}
	batch = calloc(1000, sizeof(*batch));
	if (!batch)
		return 1;
	gettimeofday(&tv, NULL);
	now = tv.tv_sec * 1000LL + tv.tv_usec / 1000;
	for (i = 0; i < n; i++) {
		struct nstore_dump *d = nstore_dump_new();
		/* two draws, the later kept: more crashes lately */
		uint32_t a = rnd(&seed) % 1000000, b = rnd(&seed) % 1000000;
		int64_t age = (int64_t)(a < b ? a : b) * days * 86400 / 1000000;
		unsigned int f = rnd(&seed) % 12;
		char host[32];

		if (!d)
			return 1;
		/* a few sites crash much more than others */
		f = f < 6 ? f % 3 : f;
		snprintf(host, sizeof(host), "node-%02u", rnd(&seed) % 40);
		memset(d->boot_id, 0x5a, 16);
		memcpy(d->boot_id, &i, sizeof(i));
		d->dump_id = i;
		d->hostname = strdup(host);
		d->release = strdup(releases[rnd(&seed) % 3]);
		d->reason = NETOOPS_REASON_OOPS;
		d->complete = rnd(&seed) % 20 != 0;
		d->pkt_count = 8;
		d->pkt_received = d->complete ? 8 : 6;
		d->log = gen_log(2048, funcs[f], i, &d->log_len);
		d->payload_total = d->log_len;
		d->src = strdup("127.0.0.1:6666");
		d->received_ms = now - age * 1000 - rnd(&seed) % 1000;
		d->stored_ms = d->received_ms;
		if (!d->hostname || !d->release || !d->log || !d->src ||
		    nstore_record_sign(d) < 0)
			return 1;
		batch[k++] = d;
		if (k == 1000 || i == n - 1) {
			r = nstore_put(st, batch, k, NULL);
			while (k)
				nstore_dump_free(batch[--k]);
			if (r < 0) {
				fprintf(stderr, "web_feed: put: %s\n",
					strerror(-r));
				return 1;
			}
		}
	}
	free(batch);
	nstore_close(st);
	return 0;
}

/*
 * Dumps received at the ends of what a store holds (INT64_MIN, 1969,
 * 1970, far ahead, INT64_MAX) and two inside the last 30 days (29 days
 * and 1 minute ago), all of one signature: the rate plots must place the
 * two, skip the rest, and overflow nowhere.
 */
static int extremes(const char *db)
{
	const int64_t day = 86400000LL;
	struct nstore *st;
	struct timeval tv;
	int64_t now, ms[9];
	size_t i;
	int r;

	gettimeofday(&tv, NULL);
	now = tv.tv_sec * 1000LL + tv.tv_usec / 1000;
	ms[0] = INT64_MIN;
	ms[1] = INT64_MIN + 1;
	ms[2] = -day;
	ms[3] = 1;
	ms[4] = now - 29 * day;
	ms[5] = now - 60000;
	ms[6] = now + 365 * day;
	ms[7] = INT64_MAX - 1;
	ms[8] = INT64_MAX;
	r = nstore_open(db, NSTORE_SYNC_NORMAL, &st);
	if (r < 0) {
		fprintf(stderr, "web_feed: %s: %s\n", db,
			nstore_open_strerror(r));
		return 1;
	}
	for (i = 0; i < sizeof(ms) / sizeof(ms[0]); i++) {
		struct nstore_dump *d = nstore_dump_new();

		if (!d)
			return 1;
		memset(d->boot_id, 0xe7, 16);
		d->boot_id[0] = (uint8_t)i;
		d->dump_id = i;
		d->hostname = strdup("time-edge");
		d->release = strdup("6.12.0-edge");
		d->reason = NETOOPS_REASON_OOPS;
		d->complete = true;
		d->pkt_count = d->pkt_received = 1;
		d->log = gen_log(1024, "edge_of_time", 1, &d->log_len);
		d->payload_total = d->log_len;
		d->received_ms = d->stored_ms = ms[i];
		if (!d->hostname || !d->release || !d->log ||
		    nstore_record_sign(d) < 0)
			return 1;
		r = nstore_put(st, &d, 1, NULL);
		nstore_dump_free(d);
		if (r < 0) {
			fprintf(stderr, "web_feed: put: %s\n", strerror(-r));
			return 1;
		}
	}
	nstore_close(st);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--extremes"))
		return extremes(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "--port"))
		return feed(atoi(argv[2]));
	if ((argc == 4 || argc == 6) && !strcmp(argv[1], "--history"))
		return history(argv[2], atol(argv[3]),
			       argc == 6 ? atol(argv[5]) : 7);
	fprintf(stderr, "usage: web_feed --port P\n"
		"       web_feed --history DB N [--days D]\n"
		"       web_feed --extremes DB\n");
	return 2;
}
