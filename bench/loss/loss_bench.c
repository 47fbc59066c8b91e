// SPDX-License-Identifier: GPL-2.0
/*
 * loss_bench - fraction of dumps recovered complete, and bytes on the wire,
 * through a lossy relay (loss_relay), for three ways of sending a dump:
 *
 *   none     every datagram once (no redundancy)
 *   repeat3  the whole dump sent three times (the 2010 seed's approach)
 *   fec      Reed-Solomon parity, k data + m parity datagrams per group
 *
 *   loss_bench RELAY_BINARY [-n DUMPS] [-s SEED] [-z LOG_BYTES] [-k K]
 *              [-m M] [-l LOSS,LOSS,...] [-d NETOOPSD [-c NETOOPS_CLI]]
 *
 * For each loss rate a relay is started (seeded with SEED + rate), and for
 * each scheme DUMPS dumps are sent through it, each followed by a marker
 * the relay never drops.  Each dump is a ~LOG_BYTES kernel-log-like text,
 * deflated raw as pstore does.  Bytes are UDP payload bytes sent by the
 * sender.  Two receivers:
 *
 *   library   (default) this program: the netoops library's decoder and
 *             reassembler with FEC enabled, the same code netoopsd runs;
 *             it reads until the marker, then counts the dump complete
 *             or not.
 *   -d        the real netoopsd (one per loss rate, fresh store): every
 *             dump comes from its own boot_id (many machines), markers
 *             carry the dump's boot_id so that netoopsd's reuseport
 *             program steers them to the dump's worker, where they are
 *             dropped as "magic"; the marker count paces the sender (at
 *             most WINDOW dumps in flight) and tells when every datagram
 *             was processed.  Complete = netoopsd's
 *             netoops_dumps_total{state="complete"} over the cell; with
 *             -c, the complete dumps in the store (`netoops --json list
 *             --complete`) must add up to the same number.  Any datagram
 *             the kernel or a netoopsd limit dropped is reported (it
 *             would count as loss the relay did not make).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "netoops_decode.h"
#include "netoops_enc.h"

#define NPAYLOADS	32
#define WINDOW		16	/* dumps in flight through netoopsd */
#define MARK_LEN	64	/* >= a header: netoopsd steers it by boot_id */
#define WAIT_MS		60000	/* longest wait for netoopsd to catch up */

static uint64_t rng_state = 88172645463325252ull;

static uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ull;
}

static const char *const funcs[] = {
	"dump_stack_lvl", "panic", "oops_end", "die", "do_trap",
	"exc_invalid_op", "asm_exc_invalid_op", "netoops_test_write",
	"vfs_write", "ksys_write", "__x64_sys_write", "do_syscall_64",
	"entry_SYSCALL_64_after_hwframe", "process_one_work",
	"worker_thread", "kthread", "ret_from_fork", "ret_from_fork_asm",
	"__schedule", "schedule", "ext4_file_write_iter", "new_sync_write",
	"tcp_sendmsg", "ip_finish_output2", "__dev_queue_xmit",
	"virtnet_poll", "net_rx_action", "handle_softirqs", "irq_exit_rcu",
};

static const char *const msgs[] = {
	"virtio_net virtio0 eth0: renamed from %s%u",
	"EXT4-fs (vda1): mounted filesystem %08x r/w with ordered data mode",
	"systemd[1]: Started session-%u.scope - Session %u of User root.",
	"audit: type=1400 audit(%u.%03u:%u): apparmor=\"STATUS\"",
	"TCP: request_sock_TCP: Possible SYN flooding on port %u.",
	"perf: interrupt took too long (%u > %u), lowering rate",
	"usb %u-%u: new high-speed USB device number %u using xhci_hcd",
	"kworker/%u:%u invoked oom-killer: gfp_mask=0x%x, order=%u",
	"CPU: %u PID: %u Comm: kworker/%u:%u Tainted: G        W  6.12",
	"RIP: 0010:%s+0x%x/0x%x",
	"RSP: 0018:ffffa%07x EFLAGS: %08x",
	"RAX: %016x RBX: ffff8881%08x RCX: %016x",
	"nvme nvme0: I/O %u QID %u timeout, aborting",
	"BUG: unable to handle page fault for address: %016x",
};

/* A kernel-log-like text of about @len bytes. */
static size_t make_log(char *buf, size_t len)
{
	size_t at = 0;
	double t = (double)(rnd() % 100000) / 10.0;

	while (at + 200 < len) {
		int n;

		t += (double)(rnd() % 5000) / 1e6;
		n = snprintf(buf + at, len - at, "[%12.6f] ", t);
		at += (size_t)n;
		if (rnd() % 4 == 0) {
			n = snprintf(buf + at, len - at,
				     " %s+0x%x/0x%x\n",
				     funcs[rnd() % (sizeof(funcs) /
						    sizeof(funcs[0]))],
				     (unsigned int)(rnd() % 0x400),
				     (unsigned int)(0x400 + rnd() % 0x800));
		} else {
			const char *f = msgs[rnd() % (sizeof(msgs) /
						      sizeof(msgs[0]))];

			if (strstr(f, "%s"))
				n = snprintf(buf + at, len - at, f,
					     funcs[rnd() % 5],
					     (unsigned int)(rnd() % 0xffff),
					     (unsigned int)(rnd() % 0xffff));
			else
				n = snprintf(buf + at, len - at, f,
					     (unsigned int)(rnd() % 100000),
					     (unsigned int)(rnd() % 1000),
					     (unsigned int)(rnd() % 100000),
					     (unsigned int)(rnd() % 64));
			at += (size_t)n;
			n = snprintf(buf + at, len - at, "\n");
		}
		at += (size_t)n;
	}
	return at;
}

/* Raw deflate (windowBits -15), as pstore compresses records. */
static size_t deflate_raw(const void *in, size_t len, uint8_t *out, size_t cap)
{
	z_stream z = { 0 };
	size_t n;

	if (deflateInit2(&z, 6, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY))
		return 0;
	z.next_in = (Bytef *)in;
	z.avail_in = (uInt)len;
	z.next_out = out;
	z.avail_out = (uInt)cap;
	n = deflate(&z, Z_FINISH) == Z_STREAM_END ? z.total_out : 0;
	deflateEnd(&z);
	return n;
}

struct payload {
	uint8_t	*buf;
	size_t	len;
	size_t	orig;
};

enum scheme { NONE, REPEAT3, FEC, NSCHEMES };
static const char *const scheme_names[] = { "none", "repeat3", "fec" };

struct result {
	unsigned long	complete;
	unsigned long	dumps;
	unsigned long long bytes;
	unsigned long long sent_pkts;
	unsigned long long rcvd_pkts;
	unsigned long long limit_drops;	/* netoopsd: kernel or limit drops */
};

static int rx_fd, tx_fd;
static struct sockaddr_in relay_addr;

static void send_pkt(const void *buf, size_t len)
{
	while (sendto(tx_fd, buf, len, 0, (struct sockaddr *)&relay_addr,
		      sizeof(relay_addr)) < 0) {
		if (errno != ENOBUFS && errno != EAGAIN && errno != EINTR) {
			perror("sendto");
			exit(1);
		}
	}
}

/*
 * Encode one dump of payload @p as machine @boot_id, dump @id, under scheme
 * @s (FEC: @k data + @m parity datagrams per group) and send it to the
 * relay, three times for REPEAT3; counts bytes and datagrams in @res.
 */
static void send_dump(const uint8_t boot_id[16], uint64_t id,
		      const struct payload *p, enum scheme s, unsigned int k,
		      unsigned int m, struct result *res)
{
	static uint8_t pkt[NETOOPS_PKT_DEFAULT], meta[256];
	static uint8_t scratch[NETOOPS_ENC_FEC_SCRATCH(NETOOPS_FEC_MAX,
						       NETOOPS_PKT_DEFAULT)];
	struct netoops_enc_opts o = { .max_pkt = NETOOPS_PKT_DEFAULT };
	struct netoops_tlv_buf tb;
	struct netoops_enc e;
	int pass, len;

	netoops_tlv_init(&tb, meta, sizeof(meta));
	netoops_tlv_put_dump_info(&tb, NETOOPS_REASON_PANIC, 1, 1, 0);
	netoops_tlv_put_str(&tb, NETOOPS_TLV_RELEASE, "6.12.118+deb12-amd64");
	netoops_tlv_put_str(&tb, NETOOPS_TLV_HOSTNAME, "bench-host");
	netoops_tlv_put_payload_info(&tb, NETOOPS_COMPRESS_DEFLATE,
				     (uint32_t)p->orig);
	if (s == FEC) {
		o.fec_k = k;
		o.fec_m = m;
		o.scratch = scratch;
		o.scratch_len = sizeof(scratch);
	}
	if (netoops_enc_init_opts(&e, boot_id, id, meta, tb.len, p->buf,
				  p->len, &o))
		exit(1);
	for (pass = 0; pass < (s == REPEAT3 ? 3 : 1); pass++) {
		netoops_enc_rewind(&e);
		while ((len = netoops_enc_next(&e, pkt, sizeof(pkt))) > 0) {
			send_pkt(pkt, (size_t)len);
			res->bytes += (unsigned long long)len;
			res->sent_pkts++;
		}
	}
}

/* Receive until marker @seq (bounded: 5 s without traffic ends it). */
static bool receive_until(uint32_t seq, struct netoops_reasm *r,
			  uint64_t dump_id, struct result *res)
{
	static uint8_t buf[65536];
	static struct netoops_packet pkt;
	struct netoops_dump *d;
	struct pollfd pfd = { .fd = rx_fd, .events = POLLIN };
	bool complete = false;

	for (;;) {
		ssize_t n;

		if (poll(&pfd, 1, 5000) <= 0) {
			fprintf(stderr, "loss_bench: marker %u lost\n", seq);
			break;
		}
		n = recv(rx_fd, buf, sizeof(buf), 0);
		if (n < 0)
			continue;
		if (n == 10 && !memcmp(buf, "NOMARK", 6)) {
			uint32_t s;

			memcpy(&s, buf + 6, 4);
			if (s == seq)
				break;
			continue;
		}
		res->rcvd_pkts++;
		if (netoops_decode_packet(buf, (size_t)n, &pkt))
			continue;
		if (netoops_reasm_add(r, "relay", 5, &pkt, seq, &d, NULL) ==
		    NETOOPS_REASM_COMPLETE) {
			complete = d->dump_id == dump_id;
			netoops_dump_free(d);
		}
	}
	while (netoops_reasm_flush(r, &d) == 1)
		netoops_dump_free(d);
	return complete;
}

/* ---- netoopsd as the receiver ------------------------------------- */

struct daemon {
	char	dir[64];
	char	db[96];
	pid_t	pid;
	int	port;
	int	mport;
};

static const char *netoopsd_bin, *cli_bin;

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void nap_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);	/* poll interval of a condition wait */
}

static void die(const char *what)
{
	fprintf(stderr, "loss_bench: %s\n", what);
	exit(1);
}

/*
 * netoopsd on 127.0.0.1 with limits wide enough that they never refuse a
 * bench datagram (they are reported if they do): every incomplete dump
 * stays open until --timeout-ms, then is stored as partial.
 */
static void daemon_start(struct daemon *d)
{
	char ready[128];
	uint64_t end = now_ms() + WAIT_MS;
	FILE *f;

	snprintf(d->dir, sizeof(d->dir), "%s/loss-bench-XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(d->dir))
		die("mkdtemp");
	snprintf(d->db, sizeof(d->db), "%s/n.db", d->dir);
	snprintf(ready, sizeof(ready), "%s/ready", d->dir);
	d->pid = fork();
	if (d->pid < 0)
		die("fork");
	if (!d->pid) {
		execl(netoopsd_bin, netoopsd_bin, "--listen", "127.0.0.1",
		      "--port", "0", "--db", d->db, "--ready-file", ready,
		      "--metrics-listen", "127.0.0.1:0", "--sync", "normal",
		      "--timeout-ms", "2000", "--max-open-dumps", "1000000",
		      "--max-dumps-per-source", "1000000",
		      "--max-memory", "1G", "--rcvbuf", "32M", (char *)NULL);
		_exit(127);
	}
	while (!(f = fopen(ready, "r"))) {
		if (waitpid(d->pid, NULL, WNOHANG) != 0)
			die("netoopsd exited before it was ready");
		if (now_ms() > end)
			die("netoopsd not ready after 60 s");
		nap_ms(20);
	}
	if (fscanf(f, "port=%d\nmetrics_port=%d", &d->port, &d->mport) != 2)
		die("netoopsd ready file unreadable");
	fclose(f);
}

/* SIGTERM: netoopsd stores what is still open as partial, commits, exits. */
static void daemon_stop(struct daemon *d)
{
	int st;

	kill(d->pid, SIGTERM);
	if (waitpid(d->pid, &st, 0) != d->pid || !WIFEXITED(st) ||
	    WEXITSTATUS(st))
		die("netoopsd did not exit cleanly");
}

static void daemon_remove(struct daemon *d)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/ready", d->dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s-wal", d->db);
	unlink(path);
	snprintf(path, sizeof(path), "%s-shm", d->db);
	unlink(path);
	unlink(d->db);
	rmdir(d->dir);
}

/* Value of sample @name in netoopsd's /metrics (exits if absent). */
static double metric(const struct daemon *d, const char *name)
{
	static char buf[1 << 16];
	const char *req = "GET /metrics HTTP/1.0\r\nHost: x\r\n\r\n";
	struct sockaddr_in sa = { .sin_family = AF_INET };
	size_t len = 0, nl = strlen(name);
	ssize_t n;
	char *p;
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	sa.sin_port = htons((uint16_t)d->mport);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    write(fd, req, strlen(req)) != (ssize_t)strlen(req))
		die("cannot reach netoopsd's metrics");
	while ((n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += (size_t)n;
	close(fd);
	buf[len] = '\0';
	for (p = buf; (p = strstr(p, name)); p++)
		if ((p == buf || p[-1] == '\n') && p[nl] == ' ')
			return strtod(p + nl, NULL);
	fprintf(stderr, "loss_bench: no metric %s\n", name);
	exit(1);
}

#define DROPPED(r)	"netoops_packets_dropped_total{reason=\"" r "\"}"
#define COMPLETE	"netoops_dumps_total{state=\"complete\"}"

/* Datagrams netoopsd dropped for a reason other than the markers. */
static double limit_drops(const struct daemon *d)
{
	return metric(d, DROPPED("limit_memory")) +
	       metric(d, DROPPED("limit_dumps")) +
	       metric(d, DROPPED("limit_source")) +
	       metric(d, DROPPED("limit_packets")) +
	       metric(d, DROPPED("limit_bytes")) +
	       metric(d, DROPPED("nomem")) +
	       metric(d, "netoops_kernel_drops_total");
}

/* Complete dumps in netoopsd's store, through the CLI (-1: no CLI). */
static long stored_complete(const struct daemon *d)
{
	char cmd[384];
	long n = 0;
	FILE *f;
	int c, depth = 0;

	if (!cli_bin)
		return -1;
	snprintf(cmd, sizeof(cmd), "'%s' --db '%s' --json list --complete "
		 "--no-log", cli_bin, d->db);
	f = popen(cmd, "r");
	if (!f)
		die("popen netoops");
	/* count the objects of the top-level JSON array */
	while ((c = fgetc(f)) != EOF) {
		switch (c) {
		case '{':
			n += depth == 1;
			depth++;
			break;
		case '[':
			depth++;
			break;
		case '}':
		case ']':
			depth--;
			break;
		case '"':	/* skip the string: it may hold braces */
			while ((c = fgetc(f)) != EOF && c != '"')
				if (c == '\\')
					fgetc(f);
			break;
		}
	}
	if (pclose(f))
		die("netoops list failed");
	return n;
}

/* One cell (scheme at one loss rate) through netoopsd @d. */
static void run_scheme_daemon(enum scheme s, const struct payload *pl,
			      unsigned long ndumps, unsigned int k,
			      unsigned int m, uint64_t id_base,
			      const struct daemon *d, struct result *res)
{
	double c0 = metric(d, COMPLETE);
	double r0 = metric(d, "netoops_packets_received_total");
	double m0 = metric(d, DROPPED("magic"));
	double l0 = limit_drops(d), done = 0;
	uint64_t end;
	unsigned long i;

	memset(res, 0, sizeof(*res));
	for (i = 0; i < ndumps; i++) {
		const struct payload *p = &pl[i % NPAYLOADS];
		uint8_t boot_id[16], mark[MARK_LEN] = "NOMARK";
		uint64_t id = id_base + i;

		/* one machine per dump: boot_id "loss-bench" + dump id */
		memcpy(boot_id, "loss-ben", 8);
		memcpy(boot_id + 8, &id, 8);
		send_dump(boot_id, id, p, s, k, m, res);
		memcpy(mark + 8, boot_id, 16);
		send_pkt(mark, sizeof(mark));
		res->dumps++;
		/* pace: at most WINDOW dumps not yet through netoopsd */
		end = now_ms() + WAIT_MS;
		while ((double)res->dumps - done > WINDOW) {
			done = metric(d, DROPPED("magic")) - m0;
			if ((double)res->dumps - done <= WINDOW)
				break;
			if (now_ms() > end)
				die("netoopsd stopped processing");
			nap_ms(1);
		}
	}
	end = now_ms() + WAIT_MS;
	while (metric(d, DROPPED("magic")) - m0 < (double)res->dumps) {
		if (now_ms() > end)
			die("markers lost: netoopsd did not process every datagram");
		nap_ms(5);
	}
	res->complete = (unsigned long)(metric(d, COMPLETE) - c0);
	res->rcvd_pkts = (unsigned long long)(metric(d,
			"netoops_packets_received_total") - r0 -
			(double)res->dumps);
	res->limit_drops = (unsigned long long)(limit_drops(d) - l0);
}

static void run_scheme(enum scheme s, const struct payload *pl,
		       unsigned long ndumps, unsigned int k, unsigned int m,
		       uint64_t id_base, struct result *res)
{
	static const uint8_t boot_id[16] = "loss-bench-boot";
	struct netoops_reasm_limits lim = { .timeout_ms = 1000000 };
	struct netoops_reasm *r;
	unsigned long i;

	if (netoops_reasm_new(&lim, &r) || netoops_reasm_enable_fec(r))
		exit(1);
	memset(res, 0, sizeof(*res));
	for (i = 0; i < ndumps; i++) {
		const struct payload *p = &pl[i % NPAYLOADS];
		uint32_t seq = (uint32_t)i;
		uint8_t mark[10];

		send_dump(boot_id, id_base + i, p, s, k, m, res);
		memcpy(mark, "NOMARK", 6);
		memcpy(mark + 6, &seq, 4);
		send_pkt(mark, sizeof(mark));
		res->complete += receive_until(seq, r, id_base + i, res);
		res->dumps++;
	}
	netoops_reasm_free(r);
}

static pid_t start_relay(const char *relay, unsigned int to_port,
			 double loss, unsigned long seed)
{
	char port_s[16], loss_s[32], seed_s[32], line[64];
	int pfd[2];
	unsigned int port = 0;
	pid_t pid;
	FILE *f;

	snprintf(port_s, sizeof(port_s), "%u", to_port);
	snprintf(loss_s, sizeof(loss_s), "%.6f", loss);
	snprintf(seed_s, sizeof(seed_s), "%lu", seed);
	if (pipe(pfd))
		exit(1);
	pid = fork();
	if (pid < 0)
		exit(1);
	if (!pid) {
		dup2(pfd[1], 1);
		close(pfd[0]);
		close(pfd[1]);
		execl(relay, relay, port_s, loss_s, seed_s, (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	f = fdopen(pfd[0], "r");
	if (!f || !fgets(line, sizeof(line), f) ||
	    sscanf(line, "port %u", &port) != 1) {
		fprintf(stderr, "loss_bench: relay did not start\n");
		exit(1);
	}
	fclose(f);
	relay_addr.sin_family = AF_INET;
	relay_addr.sin_port = htons((uint16_t)port);
	relay_addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return pid;
}

static int udp_socket(uint16_t *port)
{
	struct sockaddr_in a = { 0 };
	socklen_t sl = sizeof(a);
	int fd = socket(AF_INET, SOCK_DGRAM, 0), sz = 16 << 20;

	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(fd, (struct sockaddr *)&a, &sl))
		exit(1);
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	if (port)
		*port = ntohs(a.sin_port);
	return fd;
}

/* log of P(X = x) for X ~ Binomial(n, p), 0 < p < 1 */
static double log_pmf(unsigned long n, unsigned long x, double p)
{
	return lgamma((double)n + 1) - lgamma((double)x + 1) -
	       lgamma((double)(n - x) + 1) + (double)x * log(p) +
	       (double)(n - x) * log1p(-p);
}

/*
 * One-sided 95 % lower confidence bound of a success rate, x successes in
 * n trials (Clopper-Pearson): the p at which P(X >= x) = 0.05, by
 * bisection.
 */
static double lower95(unsigned long x, unsigned long n)
{
	double lo = 0, hi = (double)x / (double)n;
	int it;

	if (!x)
		return 0;
	for (it = 0; it < 60; it++) {
		double p = (lo + hi) / 2, tail = 0;
		unsigned long j;

		for (j = x; j <= n; j++)
			tail += exp(log_pmf(n, j, p));
		if (tail < 0.05)
			lo = p;
		else
			hi = p;
	}
	return lo;
}

int main(int argc, char **argv)
{
	static char text[1 << 20];
	static struct payload pl[NPAYLOADS];
	struct result res[NSCHEMES];
	unsigned long ndumps = 1000, seed = 1, logsz = 131072;
	unsigned int k = 32, m = 12, i;
	double losses[16] = { 0.01, 0.05, 0.10, 0.20 };
	unsigned int nloss = 4;
	unsigned long long zsum = 0;
	const char *relay;
	uint16_t rx_port;
	int opt;

	while ((opt = getopt(argc, argv, "n:s:z:k:m:l:d:c:")) != -1) {
		switch (opt) {
		case 'd': netoopsd_bin = optarg; break;
		case 'c': cli_bin = optarg; break;
		case 'n': ndumps = strtoul(optarg, NULL, 0); break;
		case 's': seed = strtoul(optarg, NULL, 0); break;
		case 'z': logsz = strtoul(optarg, NULL, 0); break;
		case 'k': k = (unsigned int)atoi(optarg); break;
		case 'm': m = (unsigned int)atoi(optarg); break;
		case 'l': {
			char *tok = strtok(optarg, ",");

			for (nloss = 0; tok && nloss < 16;
			     tok = strtok(NULL, ","))
				losses[nloss++] = atof(tok) / 100.0;
			break;
		}
		default:
			return 2;
		}
	}
	if (optind != argc - 1 || logsz >= sizeof(text) || !ndumps) {
		fprintf(stderr, "usage: loss_bench RELAY [-n DUMPS] [-s SEED] "
			"[-z LOG_BYTES] [-k K] [-m M] [-l 1,5,10,20] "
			"[-d NETOOPSD [-c NETOOPS_CLI]]\n");
		return 2;
	}
	relay = argv[optind];
	rng_state ^= seed * 0x9e3779b97f4a7c15ull;
	for (i = 0; i < NPAYLOADS; i++) {
		size_t n = make_log(text, logsz);

		pl[i].buf = malloc(n + 1024);
		pl[i].orig = n;
		pl[i].len = deflate_raw(text, n, pl[i].buf, n + 1024);
		if (!pl[i].len)
			return 1;
		zsum += pl[i].len;
	}
	signal(SIGPIPE, SIG_IGN);
	rx_fd = udp_socket(&rx_port);
	tx_fd = udp_socket(NULL);

	printf("# loss_bench: %lu dumps per cell, log %lu bytes deflated to "
	       "%llu on average, MTU payload %u, FEC k=%u m=%u, seed %lu\n",
	       ndumps, logsz, zsum / NPAYLOADS, NETOOPS_PKT_DEFAULT, k, m,
	       seed);
	if (netoopsd_bin)
		printf("# receiver: netoopsd (%s), fresh store per loss rate, "
		       "through loss_relay on 127.0.0.1\n", netoopsd_bin);
	else
		printf("# receiver: libnetoops decoder + reassembler (FEC on), "
		       "through loss_relay on 127.0.0.1\n");
	printf("%-6s %-8s %12s %10s %10s %12s %9s\n", "loss", "scheme",
	       "complete", "percent", "bytes_x", "delivered", "lower95");
	for (i = 0; i < nloss; i++) {
		struct daemon d;
		pid_t pid;
		int s;
		long stored;
		unsigned long sum = 0;

		if (netoopsd_bin)
			daemon_start(&d);
		pid = start_relay(relay, netoopsd_bin ? (unsigned int)d.port :
				  rx_port, losses[i],
				  seed + (unsigned long)(losses[i] * 1000));
		for (s = 0; s < NSCHEMES; s++) {
			uint64_t base = ((uint64_t)i << 40) |
					((uint64_t)s << 32);

			if (netoopsd_bin)
				run_scheme_daemon((enum scheme)s, pl, ndumps,
						  k, m, base, &d, &res[s]);
			else
				run_scheme((enum scheme)s, pl, ndumps, k, m,
					   base, &res[s]);
			sum += res[s].complete;
		}
		kill(pid, SIGTERM);
		waitpid(pid, NULL, 0);
		for (s = 0; s < NSCHEMES; s++)
			printf("%5.0f%% %-8s %6lu/%-5lu %9.2f%% %9.3fx "
			       "%11.2f%% %8.2f%%\n", losses[i] * 100,
			       scheme_names[s], res[s].complete, res[s].dumps,
			       100.0 * (double)res[s].complete /
			       (double)res[s].dumps,
			       (double)res[s].bytes / (double)res[NONE].bytes,
			       100.0 * (double)res[s].rcvd_pkts /
			       (double)res[s].sent_pkts,
			       100.0 * lower95(res[s].complete, res[s].dumps));
		if (netoopsd_bin) {
			unsigned long long lim = 0;

			daemon_stop(&d);
			stored = stored_complete(&d);
			for (s = 0; s < NSCHEMES; s++)
				lim += res[s].limit_drops;
			printf("#   netoopsd: %llu datagrams dropped by the "
			       "kernel or a limit", lim);
			if (stored >= 0)
				printf("; store: %ld complete dumps "
				       "(counted: %lu)", stored, sum);
			printf("\n");
			daemon_remove(&d);
			if (lim || (stored >= 0 && (unsigned long)stored != sum))
				die("netoopsd lost datagrams or dumps the relay "
				    "did not drop: the row is not valid");
		}
		fflush(stdout);
	}
	for (i = 0; i < NPAYLOADS; i++)
		free(pl[i].buf);
	return 0;
}
