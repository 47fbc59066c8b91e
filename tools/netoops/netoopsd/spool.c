// SPDX-License-Identifier: GPL-2.0
/*
 * netoopsd spool and store threads: a store that fails loses no dump.
 *
 *   finishers --rq--> spool thread --batches--> store thread --> store
 *
 * The spool thread writes the records it takes from rq (up to --batch) to
 * one batch file of the spool (store/spool.h), flushed: from then on they
 * count as received (netoops_dumps_spooled_total) and outlive a crash or a
 * restart.  The store thread commits the oldest batch in one transaction,
 * then removes its file.  While the store fails (locked, disk full...) the
 * batch stays and is retried after 100 ms, doubling up to 10 s, while the
 * spool goes on taking new dumps; the log names every dump not stored
 * yet.  When the spool cannot write (disk full, or --spool-bytes of batch
 * files), dumps are held in memory up to --spool-memory, then refused, each
 * named in the log and counted (netoops_dumps_refused_total).  At start,
 * the batches left by the last run are committed first.  Nothing here
 * makes netoopsd exit.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "netoops_escape.h"
#include "netoopsd.h"
#include "store/spool.h"

#define RELAXED memory_order_relaxed
#define INC(x) atomic_fetch_add_explicit(&(x), 1, RELAXED)
#define ADD(x, n) atomic_fetch_add_explicit(&(x), (n), RELAXED)
#define SET(x, v) atomic_store_explicit(&(x), (v), RELAXED)

#define BACKOFF_MIN_MS	100
#define BACKOFF_MAX_MS	10000
#define NAME_LEN	160

/* Dumps on their way to the store, written (or not) to one spool file. */
struct sbatch {
	struct sbatch *next;
	uint64_t seq;			/* its spool file, 0 if none */
	uint64_t disk;			/* bytes of that file */
	struct nstore_dump **recs;	/* memory only, or being committed */
	size_t n;			/* records (and names) left */
	size_t count;			/* dumps, as counted in waiting */
	uint64_t mem;			/* bytes held (memory only) */
	char **names;			/* dump_name() of each */
	bool named;			/* logged as not stored yet */
};

struct spool {
	struct nspool *sp;
	const char *dir;
	pthread_t spool_thread, store_thread;
	bool threads;			/* both started */
	struct qdump **items;		/* the spool thread's batch */
	pthread_mutex_t lock;		/* protects the fields below */
	pthread_cond_t cond;		/* a batch queued, or stopping */
	struct sbatch *head, *tail;	/* oldest first */
	uint64_t held;			/* mem of memory-only batches */
	size_t held_dumps;
	uint64_t disk;			/* bytes of batch files */
	size_t waiting;			/* dumps in the list */
	bool stopping;
	bool spool_failing;		/* the spool thread's, unlocked */
};

/* Upper bounds (µs) of the store latency histogram, see metrics.c. */
const uint64_t store_lat_bounds[8] = {
	1000, 5000, 10000, 50000, 100000, 500000, 1000000, 5000000
};

void dump_name(char *buf, size_t len, const char *host,
	       const uint8_t boot_id[16], uint64_t dump_id)
{
	char hex[33], *esc = NULL;

	nstore_boot_id_hex(boot_id, hex);
	if (host)
		netoops_escape(host, strlen(host), 0, 0, &esc, NULL);
	snprintf(buf, len, "host %s boot_id %s dump_id %llu", esc ?: "?", hex,
		 (unsigned long long)dump_id);
	free(esc);
}

/*
 * Worth retrying: everything but a record the store refuses as such
 * (-EINVAL: a constraint; -EMSGSIZE, -E2BIG: too large).  A locked or full
 * database, a read-only or missing file, an I/O error: all may pass.
 */
bool store_err_transient(int err)
{
	return err != -EINVAL && err != -EMSGSIZE && err != -E2BIG &&
	       err != -ERANGE;
}

struct nspool *spool_files(struct daemon *d)
{
	return d->spool ? d->spool->sp : NULL;
}

static uint64_t rec_mem(const struct nstore_dump *r)
{
	return sizeof(*r) + 512 + (r->log ? r->log_len : 0) + r->log_z_len +
	       r->nr_gaps * sizeof(*r->gaps) + r->pieces_len;
}

static char **make_names(struct nstore_dump *const *recs, size_t n)
{
	char **names = calloc(n, sizeof(*names)), buf[NAME_LEN];
	size_t i;

	for (i = 0; names && i < n; i++) {
		dump_name(buf, sizeof(buf), recs[i]->hostname,
			  recs[i]->boot_id, recs[i]->dump_id);
		names[i] = strdup(buf);
	}
	return names;
}

static const char *name_of(const struct sbatch *b, size_t i)
{
	return b->names && b->names[i] ? b->names[i] : "(name lost)";
}

static void sbatch_free(struct sbatch *b)
{
	size_t i;

	if (!b)
		return;
	for (i = 0; i < b->n; i++) {
		if (b->recs)
			nstore_dump_free(b->recs[i]);
		if (b->names)
			free(b->names[i]);
	}
	free(b->recs);
	free(b->names);
	free(b);
}

static void drop_recs(struct sbatch *b)
{
	size_t i;

	if (!b->recs)
		return;
	for (i = 0; i < b->n; i++)
		nstore_dump_free(b->recs[i]);
	free(b->recs);
	b->recs = NULL;
}

static void lose(struct daemon *d, const char *name, const char *why)
{
	fprintf(stderr, "netoopsd: %s: dump lost: %s\n", why, name);
	INC(d->sst.lost);
}

/* Under s->lock. */
static void gauges(struct daemon *d)
{
	struct spool *s = d->spool;

	SET(d->spst.waiting, s->waiting);
	SET(d->spst.disk_bytes, s->disk);
	SET(d->spst.held, s->held_dumps);
	SET(d->spst.held_bytes, s->held);
}

/* Under s->lock. */
static void enqueue(struct daemon *d, struct sbatch *b)
{
	struct spool *s = d->spool;

	b->count = b->n;
	if (s->tail)
		s->tail->next = b;
	else
		s->head = b;
	s->tail = b;
	s->waiting += b->count;
	s->disk += b->disk;
	gauges(d);
	pthread_cond_broadcast(&s->cond);
}

/* Takes the head @b off the list and frees it. */
static void pop(struct daemon *d, struct sbatch *b)
{
	struct spool *s = d->spool;

	pthread_mutex_lock(&s->lock);
	s->head = b->next;
	if (!s->head)
		s->tail = NULL;
	s->waiting -= b->count;
	s->disk -= b->disk;
	s->held -= b->mem;
	s->held_dumps -= b->mem ? b->count : 0;
	gauges(d);
	pthread_mutex_unlock(&s->lock);
	sbatch_free(b);
}

static void set_aside(struct daemon *d, struct sbatch *b, int err)
{
	struct spool *s = d->spool;
	int r = nspool_batch_set_aside(s->sp, b->seq);

	fprintf(stderr, "netoopsd: spool: %s/batch-%016llx.nsp cannot be read"
		" (%s): %s\n", s->dir, (unsigned long long)b->seq,
		strerror(-err), r ? "left as it is" : "set aside as .bad");
	INC(d->spst.set_aside);
	ADD(d->sst.lost, b->count);
}

/* ---- spool thread ---------------------------------------------------- */

static void spool_batch(struct daemon *d, struct qdump **items, size_t n)
{
	struct spool *s = d->spool;
	const char *why = NULL;
	struct sbatch *b;
	size_t i, k;
	bool *refused = NULL, over;
	uint64_t m;
	int r;

	b = calloc(1, sizeof(*b));
	if (b)
		b->recs = calloc(n, sizeof(*b->recs));
	refused = calloc(n, sizeof(*refused));
	if (!b || !b->recs || !refused) {
		char name[NAME_LEN];

		for (i = 0; i < n; i++) {
			struct nstore_dump *rec = items[i]->rec;

			dump_name(name, sizeof(name), rec->hostname,
				  rec->boot_id, rec->dump_id);
			lose(d, name, "spool: out of memory");
			nstore_dump_free(rec);
			free(items[i]->dgrams);
			free(items[i]);
		}
		if (b)
			free(b->recs);
		free(b);
		free(refused);
		return;
	}
	for (i = 0; i < n; i++) {
		b->recs[i] = items[i]->rec;
		/* a partial dump takes its datagrams to the store, for
		 * another collector's copy to be merged with (store.h)
		 */
		if (items[i]->dgrams && !b->recs[i]->complete) {
			b->recs[i]->pieces = items[i]->dgrams;
			b->recs[i]->pieces_len = items[i]->dgrams_len;
			items[i]->dgrams = NULL;
		}
	}
	b->n = n;
	b->names = make_names(b->recs, n);

	pthread_mutex_lock(&s->lock);
	over = s->disk >= d->cfg.spool_bytes;
	pthread_mutex_unlock(&s->lock);
	r = over ? -EDQUOT : nspool_batch_write(s->sp, b->recs, n, &b->seq,
						&b->disk);
	if (!r) {
		ADD(d->spst.spooled, n);
		if (s->spool_failing)
			fprintf(stderr, "netoopsd: spool: writing to %s"
				" again\n", s->dir);
		s->spool_failing = false;
	} else {
		INC(d->spst.write_errors);
		b->seq = 0;
		b->disk = 0;
		if (!s->spool_failing)
			fprintf(stderr, "netoopsd: spool: cannot write to %s:"
				" %s: holding dumps in memory (--spool-memory"
				" %llu bytes)\n", s->dir, over ?
				"--spool-bytes reached" : strerror(-r),
				(unsigned long long)d->cfg.spool_memory);
		s->spool_failing = true;
		why = over ? "spool full" : strerror(-r);
	}
	/* Datagrams of partial dumps, while their records are ours. */
	for (i = 0; i < n; i++) {
		struct nstore_dump *rec = items[i]->rec;

		if (rec->pieces)
			resume_save(d, rec, rec->pieces, rec->pieces_len);
		free(items[i]->dgrams);
		free(items[i]);
	}

	pthread_mutex_lock(&s->lock);
	if (r) {
		for (i = 0; i < n; i++) {
			m = rec_mem(b->recs[i]);
			if (s->held + m > d->cfg.spool_memory) {
				refused[i] = true;
				continue;
			}
			s->held += m;
			s->held_dumps++;
			b->mem += m;
		}
	}
	pthread_mutex_unlock(&s->lock);
	if (!r) {
		drop_recs(b);	/* reread from the file in its turn */
	} else {
		char msg[128];

		snprintf(msg, sizeof(msg), "spool: cannot write (%s) and"
			 " --spool-memory is full", why);
		for (i = k = 0; i < n; i++) {
			if (refused[i]) {
				lose(d, name_of(b, i), msg);
				INC(d->spst.refused);
				nstore_dump_free(b->recs[i]);
				free(b->names ? b->names[i] : NULL);
				continue;
			}
			fprintf(stderr, "netoopsd: spool: holding in memory:"
				" %s\n", name_of(b, i));
			b->recs[k] = b->recs[i];
			if (b->names)
				b->names[k] = b->names[i];
			k++;
		}
		b->n = k;
	}
	free(refused);
	if (!b->n) {
		sbatch_free(b);
		return;
	}
	pthread_mutex_lock(&s->lock);
	enqueue(d, b);
	pthread_mutex_unlock(&s->lock);
}

static void *spool_main(void *arg)
{
	struct daemon *d = arg;
	struct spool *s = d->spool;
	size_t n;

	pthread_setname_np(pthread_self(), "netoopsd-spool");
	while ((n = ptrq_take(&d->rq, (void **)s->items, d->cfg.batch)) > 0)
		spool_batch(d, s->items, n);
	return NULL;
}

/* ---- store thread ---------------------------------------------------- */

/* -v: one line per stored dump; the sender's hostname escaped. */
static void log_stored(const struct nstore_dump *rec)
{
	const char *host = rec->hostname ?: "?";
	char boot[33], *esc = NULL;

	nstore_boot_id_hex(rec->boot_id, boot);
	netoops_escape(host, strlen(host), 0, 0, &esc, NULL);
	fprintf(stderr, "netoopsd: stored #%lld %s/%llu %s %s%s\n",
		(long long)rec->id, boot, (unsigned long long)rec->dump_id,
		esc ?: "?", rec->complete ? "complete" : "partial",
		rec->id ? "" : " (duplicate)");
	free(esc);
}

static void account_latency(struct daemon *d, const struct timespec *a,
			    const struct timespec *b)
{
	uint64_t us, max;
	int k;

	us = (b->tv_sec - a->tv_sec) * 1000000ull +
	     (b->tv_nsec - a->tv_nsec) / 1000;
	INC(d->sst.batches);
	ADD(d->sst.latency_us_sum, us);
	max = atomic_load_explicit(&d->sst.latency_us_max, RELAXED);
	if (us > max)
		SET(d->sst.latency_us_max, us);
	for (k = 0; k < 8; k++)
		if (us <= store_lat_bounds[k])
			INC(d->sst.lat_bucket[k]);
}

/* Record @rec committed (d->store said whether it was a duplicate). */
static void stored(struct daemon *d, const struct nstore_dump *rec, bool dup)
{
	if (dup)
		INC(d->sst.duplicates);
	else
		INC(d->sst.stored);
	if (rec->merged)
		INC(d->sst.merged);
	if (d->cfg.verbose)
		log_stored(rec);
	if (rec->complete)
		resume_done(d, rec->boot_id, rec->dump_id);
}

static void batch_done(struct daemon *d, struct sbatch *b)
{
	struct spool *s = d->spool;

	SET(d->sst.last_commit_ms, wall_ms());
	if (b->seq && b->disk)
		nspool_batch_remove(s->sp, b->seq);
}

/*
 * A batch the store refuses as such: one dump at a time, so that one bad
 * record does not hold the others.  Return as commit().
 */
static int commit_singly(struct daemon *d, struct sbatch *b)
{
	struct timespec t0, t1;
	size_t i, k, dups;
	int r = 0;

	for (i = 0; i < b->n; i++) {
		dups = 0;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		r = nstore_put(d->store, &b->recs[i], 1, &dups);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		account_latency(d, &t0, &t1);
		if (r && store_err_transient(r))
			break;
		if (r) {
			char msg[96];

			INC(d->sst.errors);
			snprintf(msg, sizeof(msg), "store: cannot store it: %s",
				 strerror(-r));
			lose(d, name_of(b, i), msg);
		} else {
			stored(d, b->recs[i], dups);
		}
		nstore_dump_free(b->recs[i]);
		b->recs[i] = NULL;
		if (b->names) {
			free(b->names[i]);
			b->names[i] = NULL;
		}
	}
	if (i == b->n) {
		batch_done(d, b);
		return 0;
	}
	/* the rest waits */
	INC(d->sst.errors);
	for (k = 0; i < b->n; i++, k++) {
		b->recs[k] = b->recs[i];
		if (b->names)
			b->names[k] = b->names[i];
	}
	b->n = k;
	return r;
}

/*
 * 0: stored (or refused by the store as such, and said); 1: its file could
 * not be read back (set aside, said); else why the store failed.
 */
static int commit(struct daemon *d, struct sbatch *b)
{
	struct spool *s = d->spool;
	struct timespec t0, t1;
	size_t dups = 0, i, n;
	int r;

	if (!b->recs) {
		r = nspool_batch_read(s->sp, b->seq, &b->recs, &n);
		if (r == -EBADMSG || r == -ENOENT) {
			set_aside(d, b, r);
			return 1;
		}
		if (r)
			return r;
		if (n != b->n) {	/* not the file we wrote */
			drop_recs(b);
			set_aside(d, b, -EBADMSG);
			return 1;
		}
	}
	if (!d->store) {
		r = nstore_open(d->cfg.db, d->cfg.sync_normal ?
				NSTORE_SYNC_NORMAL : 0, &d->store);
		if (r)
			return r;
		fprintf(stderr, "netoopsd: store %s opened\n", d->cfg.db);
	}
	for (i = 0; i < b->n; i++)	/* from a failed try */
		b->recs[i]->id = 0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	r = nstore_put(d->store, b->recs, b->n, &dups);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	account_latency(d, &t0, &t1);
	if (r && !store_err_transient(r))
		return commit_singly(d, b);
	if (r) {
		INC(d->sst.errors);
		return r;
	}
	for (i = 0; i < b->n; i++)	/* put() leaves id 0 on a duplicate */
		stored(d, b->recs[i], !b->recs[i]->id);
	batch_done(d, b);
	return 0;
}

/* The log names every dump not stored yet, once. */
static void report_failure(struct daemon *d, int err, unsigned int tries,
			   uint64_t delay)
{
	struct spool *s = d->spool;
	struct sbatch *b;
	size_t i;

	pthread_mutex_lock(&s->lock);
	if (tries == 1)
		fprintf(stderr, "netoopsd: store: cannot write to %s: %s:"
			" dumps wait in the spool, retried with backoff\n",
			d->cfg.db, nstore_open_strerror(err));
	else if (!(tries & (tries - 1)))
		fprintf(stderr, "netoopsd: store: still cannot write: %s"
			" (%u tries, %zu dumps waiting); next try in %.1f s\n",
			nstore_open_strerror(err), tries, s->waiting,
			delay / 1e3);
	for (b = s->head; b; b = b->next) {
		if (b->named)
			continue;
		for (i = 0; i < b->n; i++)
			fprintf(stderr, "netoopsd: store: not stored yet (%s),"
				" kept %s: %s\n", nstore_open_strerror(err),
				b->seq ? "in the spool" : "in memory",
				name_of(b, i));
		b->named = true;
	}
	pthread_mutex_unlock(&s->lock);
}

/* Waits @ms, or less if netoopsd stops. */
static void backoff(struct spool *s, uint64_t ms)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (ms % 1000) * 1000000;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	pthread_mutex_lock(&s->lock);
	while (!s->stopping &&
	       pthread_cond_timedwait(&s->cond, &s->lock, &ts) != ETIMEDOUT)
		;
	pthread_mutex_unlock(&s->lock);
}

/* At exit: what the store did not take stays in the spool for next time. */
static void leftovers(struct daemon *d)
{
	struct spool *s = d->spool;
	struct sbatch *b;
	size_t kept = 0, i;
	int r;

	while ((b = s->head)) {
		if (!b->seq) {
			r = nspool_batch_write(s->sp, b->recs, b->n, &b->seq,
					       &b->disk);
			if (r) {
				char msg[96];

				snprintf(msg, sizeof(msg), "exiting, the store"
					 " and the spool failed (%s)",
					 strerror(-r));
				for (i = 0; i < b->n; i++)
					lose(d, name_of(b, i), msg);
			} else {
				ADD(d->spst.spooled, b->n);
				pthread_mutex_lock(&s->lock);
				s->disk += b->disk;
				pthread_mutex_unlock(&s->lock);
			}
		}
		if (b->seq)
			kept += b->n;
		pop(d, b);
	}
	if (kept)
		fprintf(stderr, "netoopsd: spool: %zu dumps left in %s, stored"
			" at the next start\n", kept, s->dir);
}

static void *store_main(void *arg)
{
	struct daemon *d = arg;
	struct spool *s = d->spool;
	uint64_t delay = 0, since = 0;
	unsigned int tries = 0;
	struct sbatch *b;
	bool stopping;
	int r;

	/* Not lowered: durability should not wait for the idle time of a
	 * busy machine, and the store mostly waits for the disk anyway.
	 */
	pthread_setname_np(pthread_self(), "netoopsd-store");
	for (;;) {
		pthread_mutex_lock(&s->lock);
		while (!s->head && !s->stopping)
			pthread_cond_wait(&s->cond, &s->lock);
		b = s->head;
		stopping = s->stopping;
		pthread_mutex_unlock(&s->lock);
		/* At exit, a failing store is not waited for: the spool
		 * keeps the rest for the next start.
		 */
		if (!b || (stopping && tries))
			break;
		r = commit(d, b);
		if (r > 0) {
			pop(d, b);
			continue;
		}
		if (!r) {
			if (tries)
				fprintf(stderr, "netoopsd: store: writing again"
					" after %u failed tries (%.1f s)\n",
					tries, (mono_ms() - since) / 1e3);
			if (b->named)
				fprintf(stderr, "netoopsd: store: stored %zu"
					" dump(s) kept %s meanwhile\n",
					b->count, b->seq ? "in the spool" :
					"in memory");
			tries = 0;
			delay = 0;
			pop(d, b);
			continue;
		}
		if (!tries++)
			since = mono_ms();
		delay = delay ? delay * 2 : BACKOFF_MIN_MS;
		if (delay > BACKOFF_MAX_MS)
			delay = BACKOFF_MAX_MS;
		report_failure(d, r, tries, delay);
		backoff(s, delay);
	}
	leftovers(d);
	return NULL;
}

/* ---- start and stop -------------------------------------------------- */

/* A batch the last run left: committed before anything new. */
static void load_old(struct daemon *d, const struct nspool_file *f)
{
	struct spool *s = d->spool;
	struct nstore_dump **recs;
	struct sbatch *b;
	size_t n;
	int r;

	b = calloc(1, sizeof(*b));
	if (!b)
		return;		/* stays on disk for the next start */
	b->seq = f->seq;
	b->disk = f->size;
	r = nspool_batch_read(s->sp, f->seq, &recs, &n);
	if (r) {
		if (r == -EBADMSG)
			set_aside(d, b, r);
		else
			fprintf(stderr, "netoopsd: spool: cannot read"
				" %s/batch-%016llx.nsp: %s: left for the next"
				" start\n", s->dir,
				(unsigned long long)f->seq, strerror(-r));
		free(b);
		return;
	}
	b->recs = recs;
	b->n = n;
	b->names = make_names(recs, n);
	drop_recs(b);		/* reread when its turn comes */
	enqueue(d, b);
}

int spool_open(struct daemon *d)
{
	struct nspool_file *f = NULL;
	pthread_condattr_t ca;
	struct spool *s;
	size_t nf = 0, i;
	int r;

	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->dir = d->cfg.spool_dir;
	r = nspool_open(s->dir, d->cfg.sync_normal ? NSPOOL_NOSYNC : 0,
			&s->sp);
	if (r < 0) {
		free(s);
		return r;
	}
	pthread_mutex_init(&s->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&s->cond, &ca);
	pthread_condattr_destroy(&ca);
	d->spool = s;
	r = nspool_batch_list(s->sp, &f, &nf);
	if (r < 0)
		return r;
	for (i = 0; i < nf; i++)
		load_old(d, &f[i]);
	free(f);
	if (s->waiting)
		fprintf(stderr, "netoopsd: spool: %zu dumps of the last run to"
			" store, from %s\n", s->waiting, s->dir);
	return 0;
}

int spool_start(struct daemon *d)
{
	struct spool *s = d->spool;
	int r;

	s->items = calloc(d->cfg.batch, sizeof(*s->items));
	if (!s->items)
		return -ENOMEM;
	r = pthread_create(&s->store_thread, NULL, store_main, d);
	if (r)
		return -r;
	r = pthread_create(&s->spool_thread, NULL, spool_main, d);
	if (r) {
		pthread_mutex_lock(&s->lock);
		s->stopping = true;
		pthread_cond_broadcast(&s->cond);
		pthread_mutex_unlock(&s->lock);
		pthread_join(s->store_thread, NULL);
		return -r;
	}
	s->threads = true;
	return 0;
}

/* Call once rq is closed: spools what it holds, then commits or keeps. */
void spool_stop(struct daemon *d)
{
	struct spool *s = d->spool;

	if (!s || !s->threads)
		return;
	pthread_join(s->spool_thread, NULL);
	pthread_mutex_lock(&s->lock);
	s->stopping = true;
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->lock);
	pthread_join(s->store_thread, NULL);
	s->threads = false;
}

void spool_close(struct daemon *d)
{
	struct spool *s = d->spool;
	struct sbatch *b;

	if (!s)
		return;
	while ((b = s->head)) {
		s->head = b->next;
		sbatch_free(b);
	}
	nspool_close(s->sp);
	pthread_mutex_destroy(&s->lock);
	pthread_cond_destroy(&s->cond);
	free(s->items);
	free(s);
	d->spool = NULL;
}
