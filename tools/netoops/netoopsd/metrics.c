// SPDX-License-Identifier: GPL-2.0
/*
 * netoopsd counters in the Prometheus text exposition format, served over
 * HTTP (libmicrohttpd) and written to a file.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "netoopsd.h"

extern const uint64_t store_lat_bounds[8];

#define LOAD(x) atomic_load_explicit(&(x), memory_order_relaxed)

struct out {
	char *buf;
	size_t len, cap;
	bool oom;
};

static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (o->oom)
		return;
	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(o->buf + o->len, o->cap - o->len, fmt, ap);
		va_end(ap);
		if (n >= 0 && (size_t)n < o->cap - o->len) {
			o->len += n;
			return;
		}
		o->cap = o->cap * 2 + n + 1;
		o->buf = realloc(o->buf, o->cap);
		if (!o->buf) {
			o->oom = true;
			return;
		}
	}
}

static void metric(struct out *o, const char *name, const char *type,
		   const char *help, uint64_t v)
{
	put(o, "# HELP %s %s\n# TYPE %s %s\n%s %llu\n", name, help, name, type,
	    name, (unsigned long long)v);
}

#define SST(f)	offsetof(struct daemon, sst.f)
#define SPST(f)	offsetof(struct daemon, spst.f)
#define AST(f)	offsetof(struct daemon, ast.f)

/* Store and spool counters, shown as they are (in this order). */
static const struct dmetric {
	const char *name, *type, *help;
	size_t off;		/* of an _Atomic uint64_t in struct daemon */
} daemon_metrics[] = {
	{ "netoops_dumps_payload_errors_total", "counter",
	  "Complete dumps whose payload did not decompress.",
	  SST(payload_errors) },
	{ "netoops_dumps_stored_total", "counter",
	  "Dumps committed to the store.", SST(stored) },
	{ "netoops_dumps_store_duplicates_total", "counter",
	  "Dumps already stored at least as complete.", SST(duplicates) },
	{ "netoops_dumps_merged_total", "counter",
	  "Partial dumps stored as the union with another collector's copy"
	  " (also counted as stored).", SST(merged) },
	{ "netoops_dumps_lost_total", "counter",
	  "Dumps a store or conversion failure lost.", SST(lost) },
	{ "netoops_store_errors_total", "counter",
	  "Failed store transactions (each retry counts).", SST(errors) },
	{ "netoops_dumps_spooled_total", "counter",
	  "Dumps written to the spool, flushed, before the store.",
	  SPST(spooled) },
	{ "netoops_spool_write_errors_total", "counter",
	  "Batches of dumps the spool could not write (held in memory).",
	  SPST(write_errors) },
	{ "netoops_dumps_refused_total", "counter",
	  "Dumps refused: the spool could not write them and"
	  " --spool-memory was full (also counted as lost).", SPST(refused) },
	{ "netoops_spool_set_aside_total", "counter",
	  "Spool files that could not be read, renamed *.bad.",
	  SPST(set_aside) },
	{ "netoops_spool_dumps", "gauge",
	  "Dumps waiting for the store (in the spool or in memory).",
	  SPST(waiting) },
	{ "netoops_spool_bytes", "gauge",
	  "Bytes of spool files.", SPST(disk_bytes) },
	{ "netoops_spool_memory_dumps", "gauge",
	  "Dumps held in memory only: the spool could not write them.",
	  SPST(held) },
	{ "netoops_spool_memory_bytes", "gauge",
	  "Bytes of those dumps.", SPST(held_bytes) },
	{ "netoops_dumps_resumed_total", "counter",
	  "Partial dumps whose kept datagrams went back into reassembly.",
	  SPST(resumed) },
	{ "netoops_packets_resumed_total", "counter",
	  "Kept datagrams fed back (also counted as processed).",
	  SPST(resumed_packets) },
	{ "netoops_resume_files", "gauge",
	  "Partial dumps whose datagrams are kept in the spool.",
	  SPST(resume_files) },
	{ "netoops_resume_bytes", "gauge",
	  "Bytes of those datagrams.", SPST(resume_bytes) },
	{ "netoops_resume_dropped_total", "counter",
	  "Datagrams or resume files not kept (--resume-bytes, errors).",
	  SPST(resume_dropped) },
	{ "netoops_archive_packets_total", "counter",
	  "Datagrams written whole to the --archive file.", AST(records) },
	{ "netoops_archive_bytes_total", "counter",
	  "Bytes of those datagrams.", AST(bytes) },
	{ "netoops_archive_write_errors_total", "counter",
	  "Archive operations that failed (open, write, fdatasync, rotate);"
	  " a failed write loses that datagram from the archive only.",
	  AST(write_errors) },
	{ "netoops_archive_syncs_total", "counter",
	  "fdatasync() calls on the archive.", AST(syncs) },
	{ "netoops_archive_rotations_total", "counter",
	  "Times the archive reached --archive-bytes and was rotated.",
	  AST(rotations) },
	{ "netoops_archive_file_bytes", "gauge",
	  "Size of the current archive file.", AST(file_bytes) },
};
#define N_DAEMON_METRICS (sizeof(daemon_metrics) / sizeof(daemon_metrics[0]))

static const char *drop_name(int reason)
{
	if (reason == DROP_OVERSIZED)
		return "oversized";
	return netoops_err_str(reason);
}

char *metrics_render(struct daemon *d, size_t *ret_len)
{
	struct out o = { .cap = 8192 };
	uint64_t pk = 0, by = 0, kd = 0, proc = 0, acc = 0, dup = 0;
	uint64_t comp = 0, part = 0, open = 0, buf = 0, fr = 0, ff = 0;
	uint64_t ev = 0, ob = 0, sc = 0, dis = 0;
	uint64_t drops[DROP__MAX] = { 0 }, cnt, sum, last = 0;
	const struct dmetric *m;
	int i, k;

	o.buf = malloc(o.cap);
	if (!o.buf)
		return NULL;
	for (i = 0; i < d->cfg.workers; i++) {
		struct worker_stats *s = &d->workers[i].st;

		pk += LOAD(s->received);
		by += LOAD(s->bytes);
		for (k = 0; k < MAX_LISTEN_ADDRS; k++)
			kd += LOAD(s->kernel_drops[k]);
		proc += LOAD(s->packets);
		acc += LOAD(s->accepted);
		dup += LOAD(s->duplicates);
		comp += LOAD(s->dumps_complete);
		part += LOAD(s->dumps_partial);
		if (LOAD(s->last_ms) > last)
			last = LOAD(s->last_ms);
		open += LOAD(s->open_dumps);
		buf += LOAD(s->bytes_buffered);
		fr += LOAD(s->fec_rebuilt);
		ff += LOAD(s->fec_failed);
		ev += LOAD(s->dumps_evicted);
		ob += LOAD(s->dumps_over_budget);
		sc += LOAD(s->dumps_scant);
		dis += LOAD(s->dumps_displaced);
		for (k = 1; k < DROP__MAX; k++)
			drops[k] += LOAD(s->dropped[k]);
	}
	metric(&o, "netoops_packets_received_total", "counter",
	       "Datagrams received.", pk);
	metric(&o, "netoops_bytes_received_total", "counter",
	       "UDP payload bytes received.", by);
	metric(&o, "netoops_packets_processed_total", "counter",
	       "Datagrams the workers decoded (or refused).", proc);
	metric(&o, "netoops_packets_accepted_total", "counter",
	       "Datagrams that brought new data to a dump.", acc);
	metric(&o, "netoops_packets_duplicate_total", "counter",
	       "Identical datagrams received again and discarded.", dup);
	put(&o, "# HELP netoops_packets_dropped_total Datagrams dropped, by"
	    " reason.\n# TYPE netoops_packets_dropped_total counter\n");
	for (k = 1; k < DROP__MAX; k++)
		put(&o, "netoops_packets_dropped_total{reason=\"%s\"} %llu\n",
		    drop_name(k), (unsigned long long)drops[k]);
	metric(&o, "netoops_packets_fec_rebuilt_total", "counter",
	       "Data datagrams rebuilt from parity (FEC).", fr);
	metric(&o, "netoops_packets_fec_failed_total", "counter",
	       "Datagrams rebuilt from parity that failed their checks.", ff);
	metric(&o, "netoops_kernel_drops_total", "counter",
	       "Datagrams the kernel dropped for a full socket buffer.", kd);
	put(&o, "# HELP netoops_dumps_total Dumps finished, complete or"
	    " partial (timed out or flushed at exit).\n"
	    "# TYPE netoops_dumps_total counter\n"
	    "netoops_dumps_total{state=\"complete\"} %llu\n"
	    "netoops_dumps_total{state=\"partial\"} %llu\n",
	    (unsigned long long)comp, (unsigned long long)part);
	put(&o, "# HELP netoops_dumps_discarded_total Unfinished dumps dropped,"
	    " not stored: evicted for room, from an address over its budget,"
	    " too little received, or replaced by authenticated data.\n"
	    "# TYPE netoops_dumps_discarded_total counter\n"
	    "netoops_dumps_discarded_total{reason=\"evicted\"} %llu\n"
	    "netoops_dumps_discarded_total{reason=\"over_budget\"} %llu\n"
	    "netoops_dumps_discarded_total{reason=\"scant\"} %llu\n"
	    "netoops_dumps_discarded_total{reason=\"displaced\"} %llu\n",
	    (unsigned long long)ev, (unsigned long long)ob,
	    (unsigned long long)sc, (unsigned long long)dis);
	for (m = daemon_metrics; m < daemon_metrics + N_DAEMON_METRICS; m++)
		metric(&o, m->name, m->type, m->help,
		       LOAD(*(_Atomic uint64_t *)((char *)d + m->off)));
	cnt = LOAD(d->sst.batches);
	sum = LOAD(d->sst.latency_us_sum);
	put(&o, "# HELP netoops_store_latency_seconds Time of one store"
	    " transaction (a batch of dumps).\n"
	    "# TYPE netoops_store_latency_seconds histogram\n");
	for (k = 0; k < 8; k++)
		put(&o, "netoops_store_latency_seconds_bucket{le=\"%g\"} %llu\n",
		    store_lat_bounds[k] / 1e6,
		    (unsigned long long)LOAD(d->sst.lat_bucket[k]));
	put(&o, "netoops_store_latency_seconds_bucket{le=\"+Inf\"} %llu\n"
	    "netoops_store_latency_seconds_sum %.6f\n"
	    "netoops_store_latency_seconds_count %llu\n",
	    (unsigned long long)cnt, sum / 1e6, (unsigned long long)cnt);
	put(&o, "# HELP netoops_store_latency_max_seconds Longest store"
	    " transaction.\n# TYPE netoops_store_latency_max_seconds gauge\n"
	    "netoops_store_latency_max_seconds %.6f\n",
	    LOAD(d->sst.latency_us_max) / 1e6);
	put(&o, "# HELP netoops_retention_deleted_total Dumps deleted by"
	    " retention: received more than --retain-days ago, or the"
	    " oldest while the store took more than --max-store-bytes.\n"
	    "# TYPE netoops_retention_deleted_total counter\n"
	    "netoops_retention_deleted_total{reason=\"age\"} %llu\n"
	    "netoops_retention_deleted_total{reason=\"size\"} %llu\n",
	    (unsigned long long)retain_removed(d, false),
	    (unsigned long long)retain_removed(d, true));
	metric(&o, "netoops_store_last_commit_ms", "gauge",
	       "Unix time (ms) of the last successful commit.",
	       LOAD(d->sst.last_commit_ms));
	metric(&o, "netoops_dumps_pending", "gauge",
	       "Finished dumps waiting to be inflated and signed.",
	       LOAD(d->sst.pending));
	metric(&o, "netoops_workers_last_active_ms", "gauge",
	       "Unix time (ms) a worker last finished a batch of packets.",
	       last);
	metric(&o, "netoops_store_queue", "gauge",
	       "Dumps waiting for the store.", LOAD(d->sst.queued));
	metric(&o, "netoops_open_dumps", "gauge",
	       "Dumps being reassembled.", open);
	metric(&o, "netoops_dumps_in_memory_max", "gauge",
	       "Most dumps held in memory at once: open, waiting to be"
	       " finished, for the spool or held by it.",
	       LOAD(d->sst.in_memory_max));
	metric(&o, "netoops_reassembly_bytes", "gauge",
	       "Bytes accounted to open dumps and to the checksums kept of"
	       " completed ones.", buf);
	metric(&o, "netoops_start_time_ms", "gauge",
	       "Unix time (ms) netoopsd started.", d->start_ms);
	if (o.oom)
		return NULL;
	*ret_len = o.len;
	return o.buf;
}

int metrics_write_file(struct daemon *d)
{
	char tmp[4096];
	size_t len;
	char *text;
	int fd, r = 0;

	if (!d->cfg.metrics_file)
		return 0;
	text = metrics_render(d, &len);
	if (!text)
		return -ENOMEM;
	snprintf(tmp, sizeof(tmp), "%s.tmp", d->cfg.metrics_file);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, text, len) != (ssize_t)len) {
		r = -errno;
	} else if (rename(tmp, d->cfg.metrics_file) < 0) {
		r = -errno;
	}
	if (fd >= 0)
		close(fd);
	free(text);
	return r;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c,
			      const char *url, const char *method,
			      const char *version, const char *data,
			      size_t *data_size, void **con_cls)
{
	struct daemon *d = cls;
	struct MHD_Response *resp;
	enum MHD_Result ret;
	unsigned int status = MHD_HTTP_OK;
	size_t len;
	char *text;

	(void)version;
	(void)data;
	(void)data_size;
	(void)con_cls;
	if (strcmp(method, "GET") && strcmp(method, "HEAD")) {
		static char msg[] = "method not allowed\n";

		resp = MHD_create_response_from_buffer(sizeof(msg) - 1, msg,
						       MHD_RESPMEM_PERSISTENT);
		status = MHD_HTTP_METHOD_NOT_ALLOWED;
	} else if (strcmp(url, "/metrics") && strcmp(url, "/")) {
		static char msg[] = "not found: try /metrics\n";

		resp = MHD_create_response_from_buffer(sizeof(msg) - 1, msg,
						       MHD_RESPMEM_PERSISTENT);
		status = MHD_HTTP_NOT_FOUND;
	} else {
		text = metrics_render(d, &len);
		if (!text)
			return MHD_NO;
		resp = MHD_create_response_from_buffer(len, text,
						       MHD_RESPMEM_MUST_FREE);
		if (resp)
			MHD_add_response_header(resp, "Content-Type",
				"text/plain; version=0.0.4; charset=utf-8");
	}
	if (!resp)
		return MHD_NO;
	ret = MHD_queue_response(c, status, resp);
	MHD_destroy_response(resp);
	return ret;
}

/*
 * The listening socket is bound here, not by libmicrohttpd: when the bind
 * fails MHD_start_daemon() only returns NULL, and the admin needs to know
 * why (address in use, not local, permission).
 */
static int listen_socket(const struct config *c, int *ret_fd, int *ret_port)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	int fd, one = 1, r;

	fd = socket(c->metrics_addr.ss_family,
		    SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    (c->metrics_addr.ss_family == AF_INET6 &&
	     setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one,
			sizeof(one)) < 0) ||
	    bind(fd, (const struct sockaddr *)&c->metrics_addr,
		 c->metrics_addrlen) < 0 ||
	    listen(fd, 16) < 0 ||
	    getsockname(fd, (struct sockaddr *)&ss, &len) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	*ret_port = ntohs(ss.ss_family == AF_INET6 ?
			  ((struct sockaddr_in6 *)&ss)->sin6_port :
			  ((struct sockaddr_in *)&ss)->sin_port);
	*ret_fd = fd;
	return 0;
}

int metrics_http_start(struct daemon *d)
{
	struct MHD_Daemon *h;
	int fd = -1, port = 0, r;

	if (!d->cfg.metrics_listen)
		return 0;
	r = listen_socket(&d->cfg, &fd, &port);
	if (r < 0)
		return r;
	/* From here the socket is MHD's: MHD_stop_daemon() closes it. */
	h = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD, 0, NULL, NULL,
			     handle, d,
			     MHD_OPTION_LISTEN_SOCKET, fd,
			     MHD_OPTION_CONNECTION_LIMIT, 16,
			     MHD_OPTION_CONNECTION_TIMEOUT, 10,
			     MHD_OPTION_END);
	if (!h)
		return -ENOMEM;	/* no thread or memory: MHD says no more */
	d->metrics_port = port;
	d->http = h;
	return 0;
}

void metrics_http_stop(struct daemon *d)
{
	if (d->http)
		MHD_stop_daemon(d->http);
	d->http = NULL;
}
