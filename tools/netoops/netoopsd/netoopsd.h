/* SPDX-License-Identifier: GPL-2.0 */
/*
 * netoopsd internals.
 *
 * Threads and what they own:
 *
 *   worker x W       one UDP socket per listen address, all workers' sockets
 *                    of an address in one SO_REUSEPORT group whose classic
 *                    BPF program steers each datagram by its boot_id (bytes
 *                    8..23), so all packets of one dump meet in one
 *                    reassembler whatever source port NAT gives them, with
 *                    no hand-off between threads.  recvmmsg() batches,
 *                    decoded in place; owns one reassembler (decoder
 *                    library); expires; queues finished dumps (still
 *                    compressed) to the finishers.
 *   finisher x F     inflates, computes the crash signature, builds the
 *                    store record.  Per-dump work runs at a lower priority
 *                    (--finish-nice, default 19) than per-packet work: in a crash
 *                    storm taking every packet in comes first, the
 *                    finishing catches up from memory (bounded by
 *                    --pending-bytes, then back-pressure).
 *   store x 1        owns the store; takes every record queued so far (up
 *                    to --batch) and commits them in one transaction.
 *   main             signals (sigwait), metrics file, HTTP (libmicrohttpd
 *                    runs its own thread).
 *
 * Counters are per thread (no sharing on the hot path), read with relaxed
 * atomics by whoever renders the metrics.
 */
#ifndef NETOOPSD_H
#define NETOOPSD_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "netoops_decode.h"
#include "store/record.h"
#include "store/store.h"

#define MAX_LISTEN_ADDRS	8
#define MAX_WORKERS		64

enum src_key_mode {
	SRC_KEY_BOOT,		/* the boot_id: survives NAT port changes */
	SRC_KEY_ADDR,		/* source address without the port */
	SRC_KEY_ADDRPORT,	/* source address and port */
};

#define MAX_KEYS	64

struct config {
	char *listen[MAX_LISTEN_ADDRS];	/* addresses to bind */
	int nr_listen;
	int port;			/* UDP port, 0 = any (printed) */
	int workers;
	char *db;			/* store location */
	char *archive;			/* raw packet archive, or NULL */
	char *metrics_listen;		/* "ADDR:PORT" for HTTP, or NULL */
	struct sockaddr_storage metrics_addr;	/* it, parsed */
	socklen_t metrics_addrlen;
	char *metrics_file;		/* Prometheus text file, or NULL */
	int metrics_interval;		/* seconds between metrics file writes */
	char *ready_file;		/* written once every socket is bound */
	int rcvbuf;			/* SO_RCVBUF(FORCE) bytes, 0 = default */
	int max_packet;			/* largest datagram accepted */
	int batch;			/* most dumps per store transaction */
	bool sync_normal;		/* SQLite synchronous=NORMAL */
	int store_queue;		/* most records queued to the store */
	uint64_t pending_bytes;		/* most payload bytes of finished
					 * dumps waiting for conversion */
	int finishers;			/* conversion threads */
	int finish_nice;		/* their nice value (and the store's) */
	enum src_key_mode src_key;
	struct netoops_reasm_limits limits;	/* per worker */
	int verbose;
	/* MAC keys (--key ID:HEX); with any, signed datagrams must verify */
	struct cfg_key {
		uint32_t id;
		uint8_t key[64];
		size_t len;
	} keys[MAX_KEYS];
	int nr_keys;
	bool require_auth;		/* --require-auth: refuse unsigned */
};

/* Reasons a datagram is dropped beyond the decoder's enum netoops_err. */
enum {
	DROP_OVERSIZED = NETOOPS_ERR__MAX,	/* longer than --max-packet */
	DROP__MAX
};

struct worker_stats {
	_Atomic uint64_t received;		/* datagrams read */
	_Atomic uint64_t bytes;
	_Atomic uint64_t kernel_drops;		/* SO_RXQ_OVFL, last seen */
	_Atomic uint64_t packets;		/* datagrams decoded */
	_Atomic uint64_t accepted;
	_Atomic uint64_t duplicates;
	_Atomic uint64_t dropped[DROP__MAX];	/* by reason */
	_Atomic uint64_t dumps_complete;
	_Atomic uint64_t dumps_partial;
	_Atomic uint64_t last_ms;		/* unix ms of the last batch */
	_Atomic uint64_t open_dumps;		/* gauge */
	_Atomic uint64_t bytes_buffered;	/* gauge */
	_Atomic uint64_t fec_rebuilt;		/* from the reassembler */
	_Atomic uint64_t fec_failed;		/* from the reassembler */
};

struct store_stats {
	_Atomic uint64_t payload_errors;	/* complete but not inflatable */
	_Atomic uint64_t pending;		/* gauge: dumps to finish */
	_Atomic uint64_t stored;		/* dumps written (new or better) */
	_Atomic uint64_t duplicates;		/* already stored as good */
	_Atomic uint64_t errors;		/* failed transactions */
	_Atomic uint64_t lost;			/* dumps a failure lost */
	_Atomic uint64_t batches;
	_Atomic uint64_t latency_us_sum;	/* per transaction */
	_Atomic uint64_t latency_us_max;
	_Atomic uint64_t last_commit_ms;	/* unix ms */
	_Atomic uint64_t queued;		/* gauge */
	_Atomic uint64_t lat_bucket[8];		/* histogram, see metrics.c */
};

struct worker {
	struct daemon *d;
	int idx;
	pthread_t thread;
	int fds[MAX_LISTEN_ADDRS];	/* one socket per listen address */
	int nfds;
	struct netoops_reasm *reasm;
	struct worker_stats st;
};

/* A bounded FIFO of pointers, limited by count and by bytes. */
struct ptrq {
	pthread_mutex_t lock;
	pthread_cond_t nonempty;
	pthread_cond_t room;
	void **items;
	uint64_t *sizes;		/* bytes accounted for each item */
	size_t cap, head, len;
	uint64_t bytes, max_bytes;	/* protected by lock */
	bool closed;
	_Atomic uint64_t *gauge;	/* mirrors len for the metrics */
};

struct daemon {
	struct config cfg;
	atomic_bool stop;		/* workers: drain sockets and exit */
	int nr_addrs;			/* listen addresses bound */
	int port;			/* bound UDP port */
	int metrics_port;		/* bound HTTP port, 0 if none */
	struct worker workers[MAX_WORKERS];
	struct ptrq dq;			/* finished dumps -> finishers */
	struct ptrq rq;			/* records -> store thread */
	pthread_t finishers[MAX_WORKERS];
	struct nstore *store;
	pthread_t store_thread;
	struct store_stats sst;
	pthread_mutex_t archive_lock;	/* serializes archive writes */
	FILE *archive;
	uint64_t start_ms;		/* unix ms */
	void *http;			/* struct MHD_Daemon */
};

/* util */
uint64_t mono_ms(void);
uint64_t wall_ms(void);

/* config.c */
void config_defaults(struct config *c);
int config_parse_args(struct config *c, int argc, char **argv);
void config_free(struct config *c);
void usage(FILE *f);

/* sockets.c */
/* "1.2.3.4", "::1" or "[::1]" with @port: 0 or -EINVAL. */
int parse_addr(const char *s, int port, struct sockaddr_storage *ss,
	       socklen_t *len);
int sockets_open(struct daemon *d);
void sockets_close(struct daemon *d);

/* worker.c */
int workers_start(struct daemon *d);
void workers_stop(struct daemon *d);
int store_start(struct daemon *d);	/* finishers and store thread */
void store_stop(struct daemon *d);

/* metrics.c */
char *metrics_render(struct daemon *d, size_t *ret_len);
int metrics_write_file(struct daemon *d);
int metrics_http_start(struct daemon *d);
void metrics_http_stop(struct daemon *d);

#endif /* NETOOPSD_H */
