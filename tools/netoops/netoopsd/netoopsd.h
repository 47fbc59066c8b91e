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
 *   spool x 1        takes every record queued so far (up to --batch) and
 *                    writes them to one spool file, flushed (spool.c); the
 *                    datagrams of partial dumps to resume files (resume.c).
 *   store x 1        owns the store; commits the oldest spooled batch in
 *                    one transaction, then removes its file; retries with
 *                    backoff while the store fails.
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
#include <sys/uio.h>

#include "netoops_decode.h"
#include "netoops_pack.h"
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
	uint64_t archive_bytes;		/* rotated at this size, 0 = never */
	int archive_keep;		/* rotated files kept: FILE.1..N */
	int archive_sync_ms;		/* fdatasync period, 0 = each write */
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
	char *spool_dir;		/* --spool, default DB.spool */
	char *name;			/* --name, default the host name:
					 * recorded with each dump stored */
	uint64_t spool_bytes;		/* most bytes of batch files */
	uint64_t spool_memory;		/* most bytes of dumps held in memory
					 * when the spool cannot take them */
	uint64_t resume_bytes;		/* datagrams kept to resume partial
					 * dumps: in memory, and on disk */
	/* retention (retain.c) */
	unsigned int retain_days;	/* delete dumps older, 0 = keep */
	uint64_t max_store_bytes;	/* store files' limit, 0 = none */
	unsigned int retain_interval;	/* seconds between age prunes */
};

/* Reasons a datagram is dropped beyond the decoder's enum netoops_err. */
enum {
	DROP_OVERSIZED = NETOOPS_ERR__MAX,	/* longer than --max-packet */
	DROP__MAX
};

struct worker_stats {
	_Atomic uint64_t received;		/* datagrams read */
	_Atomic uint64_t bytes;
	/* SO_RXQ_OVFL of each socket (w->fds[i]), last seen: the kernel
	 * counts each socket's drops apart, their sum is the worker's
	 */
	_Atomic uint64_t kernel_drops[MAX_LISTEN_ADDRS];
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
	/* dumps discarded, not stored (admission, netoops_reasm_add_src()) */
	_Atomic uint64_t dumps_evicted;		/* from the reassembler */
	_Atomic uint64_t dumps_over_budget;	/* from the reassembler */
	_Atomic uint64_t dumps_scant;		/* from the reassembler */
	_Atomic uint64_t dumps_displaced;	/* from the reassembler */
};

struct store_stats {
	_Atomic uint64_t payload_errors;	/* complete but not inflatable */
	_Atomic uint64_t pending;		/* gauge: dumps to finish */
	_Atomic uint64_t stored;		/* dumps written (new or better) */
	_Atomic uint64_t duplicates;		/* already stored as good */
	_Atomic uint64_t merged;		/* stored as the union with
						 * another copy (store.h) */
	_Atomic uint64_t errors;		/* failed transactions */
	_Atomic uint64_t lost;			/* dumps a failure lost */
	_Atomic uint64_t batches;
	_Atomic uint64_t latency_us_sum;	/* per transaction */
	_Atomic uint64_t latency_us_max;
	_Atomic uint64_t last_commit_ms;	/* unix ms */
	_Atomic uint64_t queued;		/* gauge */
	_Atomic uint64_t lat_bucket[8];		/* histogram, see metrics.c */
	_Atomic uint64_t in_memory_max;		/* most dumps held in memory
						 * at once (finished_dump()) */
};

/* Spool and resume counters (spool.c, resume.c). */
struct spool_stats {
	_Atomic uint64_t spooled;		/* dumps written to the spool */
	_Atomic uint64_t write_errors;		/* batches it could not write */
	_Atomic uint64_t refused;		/* dumps refused: no room left */
	_Atomic uint64_t set_aside;		/* unreadable batch files */
	_Atomic uint64_t waiting;		/* gauge: dumps for the store */
	_Atomic uint64_t disk_bytes;		/* gauge: batch files */
	_Atomic uint64_t held;			/* gauge: dumps in memory only */
	_Atomic uint64_t held_bytes;		/* gauge */
	_Atomic uint64_t resumed;		/* dumps brought back */
	_Atomic uint64_t resumed_packets;	/* datagrams brought back */
	_Atomic uint64_t resume_files;		/* gauge */
	_Atomic uint64_t resume_bytes;		/* gauge: on disk */
	_Atomic uint64_t resume_dropped;	/* datagrams or files not kept */
};

/* --archive counters (archive.c). */
struct archive_stats {
	_Atomic uint64_t records;		/* datagrams written whole */
	_Atomic uint64_t bytes;
	_Atomic uint64_t write_errors;		/* open, write, flush, rotate */
	_Atomic uint64_t syncs;			/* fdatasync() done */
	_Atomic uint64_t rotations;
	_Atomic uint64_t file_bytes;		/* gauge: the current file */
};

struct worker {
	struct daemon *d;
	int idx;
	pthread_t thread;
	int fds[MAX_LISTEN_ADDRS];	/* one socket per listen address */
	int nfds;
	struct netoops_reasm *reasm;
	struct worker_stats st;
	struct keeper *keep;		/* datagrams of open dumps (resume.c) */
	bool replaying;			/* feeding back kept datagrams */
	struct iovec *arch;		/* datagrams of this batch to archive */
	int narch;
	struct netoops_pack_arena *pack;	/* finished dumps, packed
						 * (freed by store_stop()) */
};

/*
 * A finished dump on its way to the store: from a worker to a finisher
 * (@pd, or @nd if it could not be packed), then to the spool thread
 * (@rec).
 */
struct qdump {
	struct netoops_packed *pd;
	struct netoops_dump *nd;
	struct nstore_dump *rec;
	uint8_t *dgrams;		/* datagrams of a partial dump, for
					 * resuming it (resume.c), or NULL */
	size_t dgrams_len;
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
	int port_lock;			/* owns the port (sockets.c), or -1 */
	int metrics_port;		/* bound HTTP port, 0 if none */
	struct worker workers[MAX_WORKERS];
	struct ptrq dq;			/* finished dumps -> finishers */
	struct ptrq rq;			/* records -> spool thread */
	pthread_t finishers[MAX_WORKERS];
	struct nstore *store;		/* NULL until the store thread opens
					 * it, when it failed at start */
	struct spool *spool;		/* spool.c */
	struct resume *resume;		/* resume.c */
	struct retain *retain;		/* retain.c, NULL if not asked */
	struct store_stats sst;
	struct spool_stats spst;
	struct archive *archive;	/* archive.c, NULL without --archive */
	struct archive_stats ast;
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

/* privs.c: every capability gone, no_new_privs; 0 or negative errno */
int privs_drop(void);

/* worker.c */
int workers_start(struct daemon *d);
void workers_stop(struct daemon *d);
int store_start(struct daemon *d);	/* finishers, spool and store */
void store_stop(struct daemon *d);
void ptrq_push(struct ptrq *q, void *item, uint64_t bytes);
size_t ptrq_take(struct ptrq *q, void **out, size_t max);

/* spool.c: spool and store threads */
int spool_open(struct daemon *d);	/* before store_start() */
int spool_start(struct daemon *d);
void spool_stop(struct daemon *d);	/* after rq is closed */
void spool_close(struct daemon *d);
struct nspool *spool_files(struct daemon *d);	/* for resume.c */
bool store_err_transient(int err);
/* "host NAME boot_id HEX dump_id N", NAME escaped. */
void dump_name(char *buf, size_t len, const char *host,
	       const uint8_t boot_id[16], uint64_t dump_id);

/* resume.c: datagrams of partial dumps, to complete them later */
int resume_open(struct daemon *d);	/* after spool_open() */
void resume_close(struct daemon *d);
void keep_datagram(struct worker *w, const void *key, size_t key_len,
		   const struct netoops_packet *np, uint64_t now);
void keep_take(struct worker *w, const struct netoops_dump *nd,
	       uint8_t **ret, size_t *ret_len);
void keeper_free(struct keeper *k);
bool resume_take(struct daemon *d, const uint8_t boot_id[16],
		 uint64_t dump_id, uint8_t **ret, size_t *ret_len);
void resume_release(struct daemon *d, const uint8_t boot_id[16],
		    uint64_t dump_id);
void resume_save(struct daemon *d, const struct nstore_dump *rec,
		 const uint8_t *dgrams, size_t len);
void resume_done(struct daemon *d, const uint8_t boot_id[16],
		 uint64_t dump_id);

/* retain.c: deletes old dumps (--retain-days, --max-store-bytes) */
int retain_start(struct daemon *d);	/* a thread of its own */
void retain_stop(struct daemon *d);
/* Dumps it deleted: by age (@by_size false) or by size. */
uint64_t retain_removed(struct daemon *d, bool by_size);
/* archive.c: --archive */
int archive_open(struct daemon *d);	/* opens --archive */
int archive_start(struct daemon *d);	/* its flushing thread */
/* @n datagrams, one per iovec, each kept whole */
void archive_write(struct daemon *d, const struct iovec *rec, int n);
int archive_reopen(struct daemon *d);	/* SIGHUP */
void archive_close(struct daemon *d);

/* metrics.c */
char *metrics_render(struct daemon *d, size_t *ret_len);
int metrics_write_file(struct daemon *d);
int metrics_http_start(struct daemon *d);
void metrics_http_stop(struct daemon *d);

#endif /* NETOOPSD_H */
