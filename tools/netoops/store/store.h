/* SPDX-License-Identifier: GPL-2.0 */
/*
 * netoops collector store: where reassembled dumps are kept.
 *
 * A small interface (struct nstore_ops) with two implementations: SQLite
 * (store_sqlite.c) and PostgreSQL (store_pg.c), for collectors that share
 * one database.  nstore_open() picks one from the location string:
 * "sqlite:PATH" or a plain path; "postgresql://...", "postgres://..." (libpq
 * URIs) or "pg:" and a key=value conninfo.
 *
 * Rules: every function returns 0 or a negative errno and never logs.  One
 * struct nstore is used by one thread at a time (the daemon has a single
 * store thread; the CLI is single-threaded).  Destructors accept NULL.
 */
#ifndef NETOOPS_STORE_H
#define NETOOPS_STORE_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/**
 * struct nstore_gap - bytes of a dump's log that never arrived
 * @off:	position in the stored log text where the missing bytes belong
 * @len:	number of missing bytes, or 0 when unknown (the rest of a
 *		compressed payload after a hole cannot be decompressed, and its
 *		decompressed length may not be known)
 */
struct nstore_gap {
	uint64_t off;
	uint64_t len;
};

/** struct nstore_kv - one user field ("key" = "value") */
struct nstore_kv {
	char *key;
	char *value;
};

/**
 * struct nstore_dump - one crash dump as stored
 *
 * Strings are NUL-terminated and owned by the record (nstore_dump_free()
 * frees them).  A NULL string means "not sent".
 */
struct nstore_dump {
	int64_t id;			/* row id, set by put/get */
	uint8_t boot_id[16];		/* sender's boot */
	uint64_t dump_id;		/* dump within the boot */
	char *hostname;			/* utsname nodename */
	char *release;			/* uname -r */
	char *version;			/* uname -v */
	char *arch;			/* uname -m */
	uint32_t reason;		/* NETOOPS_REASON_* */
	uint32_t oops_count;		/* pstore record count */
	uint32_t part;			/* pstore record part */
	uint32_t cpu;			/* dumping CPU */
	bool have_time;			/* wall_* / uptime_ns valid; only
					 * if nstore_wall_sec_ok(wall_sec) */
	int64_t wall_sec;		/* crash time, CLOCK_REALTIME */
	uint32_t wall_nsec;
	uint64_t uptime_ns;		/* CLOCK_MONOTONIC at the crash */
	bool have_taint;
	uint64_t taint;			/* taint flag bits */
	char *cpu_desc;			/* "GenuineIntel 6/85/7 ucode 0x..." */
	uint16_t regs_arch;		/* NETOOPS_ARCH_*, 0 = no registers */
	uint8_t regs_context;		/* NETOOPS_REGS_* */
	uint16_t nr_regs;
	uint64_t *regs;			/* nr_regs values, wire order */
	size_t nr_user;
	struct nstore_kv *user;		/* user fields, in arrival order */
	bool complete;			/* every packet arrived */
	uint32_t pkt_count;		/* packets of the dump */
	uint32_t pkt_received;		/* distinct packets that arrived */
	uint32_t compression;		/* NETOOPS_COMPRESS_* as sent */
	uint32_t payload_total;		/* payload bytes as sent */
	size_t nr_gaps;
	struct nstore_gap *gaps;	/* sorted by off */
	char *log;			/* log text as received (no NUL needed) */
	size_t log_len;			/* its length (also without @log) */
	uint8_t *log_z;			/* optional: raw deflate of exactly the
					 * log_len bytes of log text; when set
					 * the store keeps this and @log may be
					 * NULL (get/list inflate it back) */
	size_t log_z_len;
	char *src;			/* "addr:port" of the first packet */
	int64_t received_ms;		/* unix ms when the first packet came */
	int64_t stored_ms;		/* unix ms when handed to the store */
	char *sig_title;		/* crash title, NULL if none found */
	char *sig_frames;		/* normalized top frames, '\n' separated */
	char *sig_hash;			/* bucket key */
	bool authenticated;		/* every datagram it was built from
					 * was verified with one configured
					 * key (struct netoops_dump) */
	uint32_t auth_key_id;		/* that key's id (0 if not) */
	int64_t dup_of;			/* put, on a duplicate: id of the
					 * stored copy that was kept */
	char *collectors;		/* put: the name of the collector
					 * putting it (netoopsd --name), or
					 * NULL; get/list: the collectors
					 * whose copies the stored dump was
					 * built from, ',' separated */
	uint8_t *pieces;		/* put of a partial dump: the datagrams
					 * it was built from, whole and
					 * concatenated as received, for a
					 * later copy to be merged with (see
					 * struct nstore_ops); NULL if none
					 * were kept.  Not read back. */
	size_t pieces_len;
	uint32_t conflicts;		/* get/list: datagrams of other copies
					 * that contradicted the stored ones
					 * (same index, other bytes) and were
					 * left out */
	bool merged;			/* put: stored as the union of this
					 * copy and the one already stored */
};

/**
 * struct nstore_filter - what list/buckets/export select (0/NULL = any)
 *
 * @host and @kernel are glob patterns (SQLite GLOB: '*', '?', '[...]',
 * case-sensitive; "[*]" matches a literal '*'), within the limits of
 * nstore_glob_check(); @bucket is at most NSTORE_GLOB_MAX_BYTES.
 */
struct nstore_filter {
	const char *host;
	const char *kernel;		/* release */
	int reason;			/* NETOOPS_REASON_*, -1 = any */
	int64_t since_ms;		/* received_ms >= since_ms */
	int64_t until_ms;		/* received_ms < until_ms, 0 = no bound */
	const char *bucket;		/* sig_hash, or a unique prefix of it */
	int complete;			/* 1 complete, 0 partial, -1 any */
	int authenticated;		/* 1 authenticated (any key), 0 not,
					 * -1 any */
	int64_t after_id;		/* id > after_id */
	bool newest_first;		/* list: latest received_ms first, so
					 * that @limit keeps the newest */
	long limit;			/* 0 = no limit */
};

/*
 * The most a --host or --kernel pattern may hold.  Matching a glob costs
 * time that grows with its length and, for runs of '*', with the number
 * of wildcards (SQLite's GLOB backtracks; PostgreSQL's regex engine took
 * 12 s for 15,000 '?'): hostnames and releases are at most 64 bytes on
 * the wire, and no real pattern needs more than a few wildcards.
 */
#define NSTORE_GLOB_MAX_BYTES	256
#define NSTORE_GLOB_MAX_WILD	32	/* '*', '?' and [...] sets */

/**
 * nstore_glob_check() - whether a pattern is within the limits
 *
 * A set "[...]" counts one, whatever it holds (read as SQLite reads it: a
 * ']' first is a member; an unclosed one runs to the end).
 *
 * Return: 0; -ENAMETOOLONG for more than NSTORE_GLOB_MAX_BYTES bytes,
 * -E2BIG for more than NSTORE_GLOB_MAX_WILD wildcards and sets.
 */
int nstore_glob_check(const char *glob);
/* What an nstore_glob_check() error means, for a message. */
const char *nstore_glob_strerror(int err);

/**
 * nstore_filter_check() - the patterns of @f within the limits
 * @ret_name:	if not NULL, the one refused: "host", "kernel" or "bucket"
 *
 * @host and @kernel by nstore_glob_check(); @bucket, a prefix (its
 * '*', '?' and '[' are literal), only by its length.  Every store checks
 * its filters with this before it queries (list, buckets, count), so the
 * CLI and `netoops web` refuse what a store would.
 *
 * Return: 0 or nstore_glob_check()'s error; 0 for a NULL @f.
 */
int nstore_filter_check(const struct nstore_filter *f, const char **ret_name);

/** struct nstore_bucket - crashes grouped by signature */
struct nstore_bucket {
	const char *sig_hash;
	const char *sig_title;
	const char *sig_frames;
	long count;			/* dumps in the bucket */
	long hosts;			/* distinct hostnames */
	const char *kernels;		/* distinct releases, ',' separated */
	int64_t first_ms;		/* earliest received_ms */
	int64_t last_ms;		/* latest received_ms */
	int64_t example_id;		/* one dump of the bucket */
};

/** struct nstore_stats - store-wide figures */
struct nstore_stats {
	long dumps;
	long complete;
	long partial;
	long buckets;
	long hosts;
	int64_t log_bytes;		/* sum of stored log lengths */
	int64_t file_bytes;		/* size of the database with its -wal
					 * and -shm files (PostgreSQL: of the
					 * dumps table with its TOAST and
					 * indexes), -1 if unknown */
};

/**
 * struct nstore_prune - what nstore_prune() removes, oldest dumps first
 * @before_ms:	dumps received before this unix ms time, 0 = none by age
 * @max_bytes:	then the oldest until the store's files (database, -wal,
 *		-shm; PostgreSQL: file_bytes of struct nstore_stats) take at
 *		most this many bytes, 0 = no limit
 */
struct nstore_prune {
	int64_t before_ms;
	int64_t max_bytes;
};

/** struct nstore_prune_result - what nstore_prune() did */
struct nstore_prune_result {
	long by_age;			/* dumps removed by @before_ms */
	long by_size;			/* dumps removed by @max_bytes */
	int64_t bytes_before;		/* files' bytes, -1 if unknown */
	int64_t bytes_after;		/* and after */
	long dumps_left;		/* dumps still stored */
};

/*
 * The crash times (TIME wall_sec) a dump can have: from 1900-01-01 to
 * 9999-12-31T23:59:59 UTC.  The sender chooses wall_sec (any int64):
 * outside this range it is no time (have_time false), which also keeps
 * wall_sec * 1000 + wall_nsec / 10^6 far from overflowing.
 */
#define NSTORE_WALL_SEC_MIN	(-2208988800LL)
#define NSTORE_WALL_SEC_MAX	253402300799LL

static inline bool nstore_wall_sec_ok(int64_t wall_sec)
{
	return wall_sec >= NSTORE_WALL_SEC_MIN &&
	       wall_sec <= NSTORE_WALL_SEC_MAX;
}

struct nstore;

/* Return non-zero from a callback to stop the iteration (returned as is). */
typedef int (*nstore_dump_cb)(const struct nstore_dump *d, void *arg);
typedef int (*nstore_bucket_cb)(const struct nstore_bucket *b, void *arg);

/* nstore_count() groupings */
enum nstore_group {
	NSTORE_BY_TIME,			/* received_ms slots of step_ms */
	NSTORE_BY_HOST,			/* hostname */
	NSTORE_BY_KERNEL,		/* release */
};

/** struct nstore_count_row - one group of nstore_count() */
struct nstore_count_row {
	int64_t slot_ms;		/* NSTORE_BY_TIME: the slot's start, a
					 * multiple of step_ms; else 0 */
	const char *key;		/* NSTORE_BY_HOST/KERNEL: hostname or
					 * release, NULL when not sent */
	long count;			/* dumps in the group */
	long buckets;			/* distinct non-NULL sig_hash */
	int64_t last_ms;		/* latest received_ms */
};

typedef int (*nstore_count_cb)(const struct nstore_count_row *r, void *arg);

/* nstore_open() flags */
#define NSTORE_RDONLY		0x1	/* CLI readers */
#define NSTORE_SYNC_NORMAL	0x2	/* durable on commit against crashes of
					 * the process, not of the machine */

/* nstore_list() flags */
#define NSTORE_WITH_LOG		0x1	/* fill log/gaps (costs a read) */

/**
 * struct nstore_ops - what an implementation provides
 *
 * @put stores @n dumps in one transaction; a dump whose (boot_id, dump_id)
 * is already stored replaces it when it is authenticated and the stored
 * one is not, or, authenticated alike (not, or with the same key), when it
 * is more complete (a complete dump beats a partial one, a partial with
 * more packets beats one with fewer): an unauthenticated copy never
 * replaces an authenticated one.  Otherwise it is counted in *ret_dups.
 * d->id is set.
 *
 * Merging: when both the stored copy and @d are partial and came with
 * their datagrams (d->pieces), and they are of one class (both
 * unauthenticated, or both authenticated with the same key), the store
 * rebuilds the dump from the union of their datagrams with the decoder
 * library (reassembler, inflate, signature: store/merge.c) and stores that
 * instead when it has more packets than the stored copy (d->merged set).
 * Datagrams of the stored copy come first: one of @d that contradicts them
 * (same index, other bytes; or another pkt_count) is left out and counted
 * in the row's conflicts.  The store has no keys: it takes the datagrams
 * of an authenticated copy as verified by the collector that put them
 * with that key (each must carry a MAC of that key id), and never mixes
 * classes, so a merge cannot turn forged data into authenticated data
 * that no collector verified.  A complete dump keeps no datagrams.  The
 * row's collectors are those of the copies its content came from: a copy
 * that replaces the stored one alone (complete, or authenticated over
 * unauthenticated) brings only its own; a merge adds @d's to the stored
 * ones; a duplicate adds none.
 */
struct nstore_ops {
	const char *name;
	int (*open)(const char *where, unsigned int flags, struct nstore **ret);
	void (*close)(struct nstore *st);
	int (*put)(struct nstore *st, struct nstore_dump *const *d, size_t n,
		   size_t *ret_dups);
	int (*get)(struct nstore *st, int64_t id, struct nstore_dump **ret);
	int (*list)(struct nstore *st, const struct nstore_filter *f,
		    unsigned int flags, nstore_dump_cb cb, void *arg);
	int (*buckets)(struct nstore *st, const struct nstore_filter *f,
		       nstore_bucket_cb cb, void *arg);
	int (*stats)(struct nstore *st, struct nstore_stats *ret);
	int (*prune)(struct nstore *st, const struct nstore_prune *p,
		     nstore_dump_cb cb, void *arg,
		     struct nstore_prune_result *ret);
	int (*last_id)(struct nstore *st, int64_t *ret);
	int (*count)(struct nstore *st, const struct nstore_filter *f,
		     enum nstore_group by, int64_t step_ms,
		     nstore_count_cb cb, void *arg);
};

/* The generic part every implementation starts with. */
struct nstore {
	const struct nstore_ops *ops;
};

extern const struct nstore_ops nstore_sqlite_ops;
extern const struct nstore_ops nstore_pg_ops;

/*
 * nstore_open() errors worth telling apart: -ENOENT (no such file; a reader
 * does not create one), -EBADMSG (not a netoops database: another format,
 * or no dumps table), -EUCLEAN (a store, corrupt), else the system's
 * (-EACCES, -EISDIR...), so that the caller can name the real reason.
 * PostgreSQL adds -ECONNREFUSED: the server cannot be reached, or the
 * connection was lost (any call; the next one connects again), -EILSEQ
 * for a database in an encoding other than UTF8 or SQL_ASCII, and
 * -EINVAL for a location libpq cannot parse (store_pg.c lists the rest).
 */
int nstore_open(const char *where, unsigned int flags, struct nstore **ret);
void nstore_close(struct nstore *st);
/* What an nstore_open() error means, for a message ("not a netoops
 * database"); strerror() of the others.
 */
const char *nstore_open_strerror(int err);

static inline int nstore_put(struct nstore *st, struct nstore_dump *const *d,
			     size_t n, size_t *ret_dups)
{
	return st->ops->put(st, d, n, ret_dups);
}

static inline int nstore_get(struct nstore *st, int64_t id,
			     struct nstore_dump **ret)
{
	return st->ops->get(st, id, ret);
}

static inline int nstore_list(struct nstore *st, const struct nstore_filter *f,
			      unsigned int flags, nstore_dump_cb cb, void *arg)
{
	return st->ops->list(st, f, flags, cb, arg);
}

static inline int nstore_buckets(struct nstore *st,
				 const struct nstore_filter *f,
				 nstore_bucket_cb cb, void *arg)
{
	return st->ops->buckets(st, f, cb, arg);
}

static inline int nstore_stats(struct nstore *st, struct nstore_stats *ret)
{
	return st->ops->stats(st, ret);
}

/**
 * nstore_prune() - delete the oldest dumps, by age then by size
 * @cb:		called for each dump removed (id, boot_id, dump_id,
 *		hostname, release, received_ms, log_len, sig_hash and
 *		sig_title filled), may be NULL
 *
 * Works in short transactions so that a writer in another process (netoopsd)
 * waits at most one of them.  Over @max_bytes, the oldest dumps go until the
 * pages in use fit, then the free pages are given back to the file system
 * and the WAL is checkpointed and truncated: the files shrink, not only the
 * content.  PostgreSQL: VACUUM FULL first rewrites the dumps table without
 * its dead rows, and only then are dumps deleted by size; when it cannot
 * get its lock within 5 s (a reader holds the table), nothing is deleted by
 * size in that call (the table's size still counts what earlier deletions
 * freed).  A store opened NSTORE_RDONLY returns -EROFS.
 */
static inline int nstore_prune(struct nstore *st, const struct nstore_prune *p,
			       nstore_dump_cb cb, void *arg,
			       struct nstore_prune_result *ret)
{
	return st->ops->prune(st, p, cb, arg, ret);
}

/* The highest dump id stored, 0 if none: where `netoops watch` starts. */
static inline int nstore_last_id(struct nstore *st, int64_t *ret)
{
	return st->ops->last_id(st, ret);
}

/**
 * nstore_count() - dumps counted by group, for rates and per-host views
 * @f:		which dumps; f->limit caps the number of groups
 * @by:		the grouping
 * @step_ms:	NSTORE_BY_TIME: the slot width (> 0); ignored otherwise
 *
 * NSTORE_BY_TIME calls @cb for each slot that holds a dump, oldest first;
 * the other groupings by count, largest first, then by key (NULL last).
 * NSTORE_BY_TIME: any step_ms > 0, up to INT64_MAX, gives slots
 * floor(received_ms / step_ms) * step_ms without overflow; a slot that
 * would start below INT64_MIN starts at INT64_MIN.
 * Returns -EINVAL for a step_ms <= 0 with NSTORE_BY_TIME or an unknown
 * @by, -EOPNOTSUPP when the store cannot count.
 */
static inline int nstore_count(struct nstore *st, const struct nstore_filter *f,
			       enum nstore_group by, int64_t step_ms,
			       nstore_count_cb cb, void *arg)
{
	if (!st->ops->count)
		return -EOPNOTSUPP;
	return st->ops->count(st, f, by, step_ms, cb, arg);
}

/**
 * nstore_slot_index() - which of @n slots holds a time
 * @ms:		a time, e.g. a slot_ms that nstore_count() returned
 * @start_ms:	where slot 0 starts
 * @step_ms:	the slots' width
 * @n:		their number
 *
 * For every int64 value of each argument, without overflow: a dump's
 * received_ms (and so a slot) may be anything from INT64_MIN to INT64_MAX,
 * before 1970 or far ahead.
 *
 * Return: 0..@n-1, or -1 when @ms is before slot 0 or after the last one,
 * or @step_ms or @n is not positive.
 */
long nstore_slot_index(int64_t ms, int64_t start_ms, int64_t step_ms, long n);

/*
 * Bytes a SQLite store at @path takes on disk: the database file and its
 * -wal and -shm files (absent ones count 0); -1 if the database is absent
 * (store_sqlite.c).
 */
int64_t nstore_file_bytes(const char *path);

/* Record helpers (store.c). */
void nstore_filter_init(struct nstore_filter *f);
struct nstore_dump *nstore_dump_new(void);
void nstore_dump_free(struct nstore_dump *d);
int nstore_dump_add_user(struct nstore_dump *d, const char *key,
			 size_t klen, const char *value, size_t vlen);
int nstore_dump_add_gap(struct nstore_dump *d, uint64_t off, uint64_t len);
const char *nstore_reason_name(uint32_t reason);
int nstore_reason_parse(const char *s);
void nstore_boot_id_hex(const uint8_t id[16], char ret[33]);
int nstore_boot_id_parse(const char *s, uint8_t ret[16]);
const char *nstore_reg_name(uint16_t arch, unsigned int idx);

/**
 * nstore_render_log() - the log text with each gap replaced by a marker
 * @d:		dump with log and gaps
 * @ret:	malloc'ed NUL-terminated text
 * @ret_len:	its length (optional)
 *
 * A gap is shown as "[... N bytes missing ...]" or, when its length is not
 * known, "[... rest of the log missing ...]".
 */
int nstore_render_log(const struct nstore_dump *d, char **ret,
		      size_t *ret_len);

#endif /* NETOOPS_STORE_H */
