// SPDX-License-Identifier: GPL-2.0
/*
 * Resuming partial dumps: a dump stored partial (it timed out, or netoopsd
 * stopped) is completed by its datagrams that arrive later, in this run or
 * the next.
 *
 * Each worker keeps a copy of the datagrams it adds to open dumps (struct
 * keeper: --resume-bytes split between workers, the least recently active
 * dump forgotten first; an entry idle for twice --timeout-ms is a dump the
 * reassembler dropped without handing it out).
 * A dump handed out partial takes its copies to the spool thread, which
 * writes them to SPOOL/resume/ (store/spool.h; at most --resume-bytes on
 * disk, the oldest forgotten first).  The first datagram of that dump to
 * arrive later claims them: the worker feeds them to its reassembler first
 * (worker.c, resume()), so the dump carries on where it stopped.  Once it
 * is stored complete, its file goes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "netoopsd.h"
#include "store/spool.h"

#define RELAXED memory_order_relaxed
#define INC(x) atomic_fetch_add_explicit(&(x), 1, RELAXED)
#define ADD(x, n) atomic_fetch_add_explicit(&(x), (n), RELAXED)
#define SET(x, v) atomic_store_explicit(&(x), (v), RELAXED)

#define KEEP_BUCKETS	4096
#define RESUME_BUCKETS	4096

/*
 * Both tables keep their entries in a list by recency: entries linked by
 * ->prev and ->next, the table's ->old and ->new the two ends.  Macros, so
 * that one piece of code serves struct kept and struct rentry.
 */
#define LRU_DEL(l, e) do {				\
	if ((e)->prev)					\
		(e)->prev->next = (e)->next;		\
	else						\
		(l)->old = (e)->next;			\
	if ((e)->next)					\
		(e)->next->prev = (e)->prev;		\
	else						\
		(l)->new = (e)->prev;			\
} while (0)

#define LRU_ADD(l, e) do {				\
	(e)->next = NULL;				\
	(e)->prev = (l)->new;				\
	if ((l)->new)					\
		(l)->new->next = (e);			\
	else						\
		(l)->old = (e);				\
	(l)->new = (e);					\
} while (0)

/* ---- keeper: the datagrams of a worker's open dumps ------------------ */

struct kept {
	struct kept *hnext;		/* hash chain */
	struct kept *prev, *next;	/* least recently added first */
	uint64_t hash;
	uint8_t key[NETOOPS_SRC_KEY_MAX];
	size_t key_len;
	uint8_t boot_id[16];
	uint64_t dump_id;
	uint64_t last_ms;
	uint8_t *buf;			/* datagrams, concatenated */
	size_t len, cap;
};

struct keeper {
	struct kept *b[KEEP_BUCKETS];
	struct kept *old, *new;
	uint64_t bytes, max;		/* sizes of entries and buffers */
	uint64_t idle_ms;
};

static struct kept **kfind(struct keeper *k, uint64_t h, const void *key,
			   size_t key_len, const uint8_t boot_id[16],
			   uint64_t dump_id)
{
	struct kept **pp = &k->b[h % KEEP_BUCKETS];

	for (; *pp; pp = &(*pp)->hnext)
		if ((*pp)->hash == h && (*pp)->dump_id == dump_id &&
		    (*pp)->key_len == key_len &&
		    !memcmp((*pp)->boot_id, boot_id, 16) &&
		    !memcmp((*pp)->key, key, key_len))
			break;
	return pp;
}

static void kunlink(struct keeper *k, struct kept **pp)
{
	struct kept *e = *pp;

	*pp = e->hnext;
	LRU_DEL(k, e);
	k->bytes -= sizeof(*e) + e->cap;
}

static void kdrop(struct keeper *k, struct kept *e)
{
	kunlink(k, kfind(k, e->hash, e->key, e->key_len, e->boot_id,
			 e->dump_id));
	free(e->buf);
	free(e);
}

/* Entries of dumps the reassembler dropped without handing them out. */
static void ksweep(struct keeper *k, uint64_t now)
{
	while (k->old && k->old->last_ms + k->idle_ms < now)
		kdrop(k, k->old);
}

/*
 * Room for @n more bytes: the least recently active entries other than
 * @keep go first (most likely dumps the reassembler evicted).
 */
static bool kroom(struct worker *w, const struct kept *keep, uint64_t n)
{
	struct keeper *k = w->keep;
	struct kept *e;

	if (n > k->max)
		return false;
	while (k->bytes + n > k->max) {
		e = k->old == keep ? keep->next : k->old;
		if (!e)
			return false;
		kdrop(k, e);
		INC(w->d->spst.resume_dropped);
	}
	return true;
}

void keeper_free(struct keeper *k)
{
	struct kept *e, *next;

	if (!k)
		return;
	for (e = k->old; e; e = next) {
		next = e->next;
		free(e->buf);
		free(e);
	}
	free(k);
}

static struct keeper *keeper_new(const struct daemon *d)
{
	struct keeper *k = calloc(1, sizeof(*k));
	uint64_t t = d->cfg.limits.timeout_ms ?: NETOOPS_REASM_DEF_TIMEOUT_MS;

	if (!k)
		return NULL;
	k->max = d->cfg.resume_bytes / d->cfg.workers;
	k->idle_ms = 2 * t;
	return k;
}

/* After a datagram @np brought new data to an open dump. */
#define KEEP_FIRST_MAX	(64u << 10)	/* first buffer of a dump, at most */

void keep_datagram(struct worker *w, const void *key, size_t key_len,
		   const struct netoops_packet *np, uint64_t now)
{
	struct kept **pp, *e;
	struct keeper *k;
	size_t cap;
	uint8_t *buf;
	uint64_t h;

	if (!w->d->cfg.resume_bytes || !np->raw || !np->raw_len)
		return;
	if (!w->keep) {
		w->keep = keeper_new(w->d);
		if (!w->keep)
			goto dropped;
	}
	k = w->keep;
	ksweep(k, now);
	h = netoops_dump_hash(key, key_len, np->boot_id, np->dump_id);
	pp = kfind(k, h, key, key_len, np->boot_id, np->dump_id);
	e = *pp;
	if (!e) {
		if (!kroom(w, NULL, sizeof(*e)))
			goto dropped;
		pp = kfind(k, h, key, key_len, np->boot_id, np->dump_id);
		e = calloc(1, sizeof(*e));
		if (!e)
			goto dropped;
		e->hash = h;
		memcpy(e->key, key, key_len);
		e->key_len = key_len;
		memcpy(e->boot_id, np->boot_id, 16);
		e->dump_id = np->dump_id;
		*pp = e;
		k->bytes += sizeof(*e);
	} else {
		LRU_DEL(k, e);
	}
	LRU_ADD(k, e);
	e->last_ms = now;
	if (np->raw_len > e->cap - e->len) {
		/* room for the whole dump at once if its datagrams are like
		 * this one (bounded: the sender says how many): growing by
		 * doubling from 4 KiB copied each dump's datagrams again
		 */
		cap = (size_t)np->pkt_count * np->raw_len;
		if (cap > KEEP_FIRST_MAX)
			cap = KEEP_FIRST_MAX;
		if (cap < 4096)
			cap = 4096;
		if (e->cap)
			cap = e->cap * 2;
		while (cap - e->len < np->raw_len)
			cap *= 2;
		if (!kroom(w, e, cap - e->cap)) {
			/* a budget below the whole dump: from 4 KiB, as
			 * before, keeping what fits
			 */
			cap = e->cap ? 0 : 4096;
			while (cap && cap - e->len < np->raw_len)
				cap *= 2;
			if (!cap || !kroom(w, e, cap - e->cap))
				goto dropped;
		}
		buf = realloc(e->buf, cap);
		if (!buf)
			goto dropped;
		k->bytes += cap - e->cap;
		e->buf = buf;
		e->cap = cap;
	}
	memcpy(e->buf + e->len, np->raw, np->raw_len);
	e->len += np->raw_len;
	return;
dropped:
	INC(w->d->spst.resume_dropped);
}

/* A dump handed out: its datagrams, if it is partial and any were kept. */
void keep_take(struct worker *w, const struct netoops_dump *nd,
	       uint8_t **ret, size_t *ret_len)
{
	struct keeper *k = w->keep;
	struct kept **pp, *e;

	*ret = NULL;
	*ret_len = 0;
	if (!k)
		return;
	pp = kfind(k, netoops_dump_hash(nd->src_key, nd->src_key_len,
					nd->boot_id, nd->dump_id),
		   nd->src_key, nd->src_key_len, nd->boot_id, nd->dump_id);
	e = *pp;
	if (!e)
		return;
	kunlink(k, pp);
	if (!nd->complete && e->len) {
		*ret = e->buf;
		*ret_len = e->len;
	} else {
		free(e->buf);
	}
	free(e);
}

/* ---- resume files: the datagrams of dumps stored partial ------------- */

struct rentry {
	struct rentry *hnext;		/* hash chain */
	struct rentry *prev, *next;	/* oldest first */
	uint8_t boot_id[16];
	uint64_t dump_id;
	uint64_t size;			/* of its file */
	bool claimed;			/* taken by a worker */
};

struct resume {
	pthread_mutex_t lock;		/* everything below */
	struct rentry *b[RESUME_BUCKETS];
	struct rentry *old, *new;
	uint64_t bytes;
	size_t files;
	_Atomic size_t unclaimed;	/* read unlocked on every datagram */
};

static struct rentry **rfind(struct resume *r, const uint8_t boot_id[16],
			     uint64_t dump_id)
{
	uint64_t h = netoops_dump_hash(NULL, 0, boot_id, dump_id);
	struct rentry **pp = &r->b[h % RESUME_BUCKETS];

	for (; *pp; pp = &(*pp)->hnext)
		if ((*pp)->dump_id == dump_id &&
		    !memcmp((*pp)->boot_id, boot_id, 16))
			break;
	return pp;
}

/* Under r->lock: @e, if any, can be taken again. */
static void runclaim(struct resume *r, struct rentry *e)
{
	if (e && e->claimed) {
		e->claimed = false;
		r->unclaimed++;
	}
}

/* Under r->lock. */
static void rgauges(struct daemon *d)
{
	SET(d->spst.resume_files, d->resume->files);
	SET(d->spst.resume_bytes, d->resume->bytes);
}

/* Under r->lock: forgets @e (and its file, if @unlink_file). */
static void rdel(struct daemon *d, struct rentry *e, bool unlink_file)
{
	struct resume *r = d->resume;
	struct rentry **pp = rfind(r, e->boot_id, e->dump_id);

	*pp = e->hnext;
	LRU_DEL(r, e);
	r->bytes -= e->size;
	r->files--;
	if (!e->claimed)
		r->unclaimed--;
	if (unlink_file)
		nspool_resume_remove(spool_files(d), e->boot_id, e->dump_id);
	free(e);
	rgauges(d);
}

/* Under r->lock: the oldest files go until the others fit the bound. */
static void rbound(struct daemon *d, const struct rentry *keep)
{
	struct resume *r = d->resume;
	struct rentry *e;
	char hex[33];

	while (r->bytes > d->cfg.resume_bytes) {
		e = r->old == keep ? keep->next : r->old;
		if (!e)
			break;
		nstore_boot_id_hex(e->boot_id, hex);
		fprintf(stderr, "netoopsd: resume: --resume-bytes reached,"
			" forgetting the datagrams of boot_id %s dump_id %llu"
			" (it stays partial)\n", hex,
			(unsigned long long)e->dump_id);
		INC(d->spst.resume_dropped);
		rdel(d, e, true);
	}
}

static struct rentry *radd(struct daemon *d, const uint8_t boot_id[16],
			   uint64_t dump_id, uint64_t size)
{
	struct resume *r = d->resume;
	struct rentry **pp = rfind(r, boot_id, dump_id);
	struct rentry *e = calloc(1, sizeof(*e));

	if (!e)
		return NULL;
	memcpy(e->boot_id, boot_id, 16);
	e->dump_id = dump_id;
	e->size = size;
	*pp = e;
	LRU_ADD(r, e);
	r->bytes += size;
	r->files++;
	r->unclaimed++;
	return e;
}

int resume_open(struct daemon *d)
{
	struct nspool_file *f = NULL;
	struct resume *r;
	size_t n = 0, i;
	int rc;

	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	pthread_mutex_init(&r->lock, NULL);
	d->resume = r;
	rc = nspool_resume_list(spool_files(d), &f, &n);
	if (rc < 0)
		return rc;
	pthread_mutex_lock(&r->lock);
	for (i = 0; i < n; i++)
		if (!*rfind(r, f[i].boot_id, f[i].dump_id))
			radd(d, f[i].boot_id, f[i].dump_id, f[i].size);
	rbound(d, NULL);
	rgauges(d);
	if (r->files)
		fprintf(stderr, "netoopsd: resume: the datagrams of %zu partial"
			" dumps are kept to complete them (%llu bytes)\n",
			r->files, (unsigned long long)r->bytes);
	pthread_mutex_unlock(&r->lock);
	free(f);
	return 0;
}

void resume_close(struct daemon *d)
{
	struct resume *r = d->resume;
	struct rentry *e, *next;

	if (!r)
		return;
	for (e = r->old; e; e = next) {
		next = e->next;
		free(e);
	}
	pthread_mutex_destroy(&r->lock);
	free(r);
	d->resume = NULL;
}

/*
 * The worker that got a datagram of dump (@boot_id, @dump_id): the
 * datagrams kept of it, if any and not already taken.  Cheap when there is
 * nothing to resume: one relaxed load.
 */
bool resume_take(struct daemon *d, const uint8_t boot_id[16],
		 uint64_t dump_id, uint8_t **ret, size_t *ret_len)
{
	struct resume *r = d->resume;
	struct rentry *e;
	size_t off, k, n = 0;
	char hex[33];
	int rc;

	if (!r || !atomic_load_explicit(&r->unclaimed, RELAXED))
		return false;
	pthread_mutex_lock(&r->lock);
	e = *rfind(r, boot_id, dump_id);
	if (!e || e->claimed) {
		pthread_mutex_unlock(&r->lock);
		return false;
	}
	e->claimed = true;
	r->unclaimed--;
	pthread_mutex_unlock(&r->lock);

	rc = nspool_resume_read(spool_files(d), boot_id, dump_id, ret,
				ret_len);
	if (rc) {
		nstore_boot_id_hex(boot_id, hex);
		fprintf(stderr, "netoopsd: resume: cannot read the datagrams of"
			" boot_id %s dump_id %llu: %s\n", hex,
			(unsigned long long)dump_id, strerror(-rc));
		pthread_mutex_lock(&r->lock);
		e = *rfind(r, boot_id, dump_id);
		if (e && rc == -ENOENT)
			rdel(d, e, false);
		else
			runclaim(r, e);
		pthread_mutex_unlock(&r->lock);
		return false;
	}
	for (off = 0; (k = nspool_dgram_len(*ret + off, *ret_len - off));
	     off += k)
		n++;
	INC(d->spst.resumed);
	ADD(d->spst.resumed_packets, n);
	return true;
}

/* The datagrams taken went nowhere (all refused): the file can be again. */
void resume_release(struct daemon *d, const uint8_t boot_id[16],
		    uint64_t dump_id)
{
	struct resume *r = d->resume;

	if (!r)
		return;
	pthread_mutex_lock(&r->lock);
	runclaim(r, *rfind(r, boot_id, dump_id));
	pthread_mutex_unlock(&r->lock);
}

/* Spool thread: a dump handed out partial, with its datagrams. */
void resume_save(struct daemon *d, const struct nstore_dump *rec,
		 const uint8_t *dgrams, size_t len)
{
	struct resume *r = d->resume;
	char name[160];
	struct rentry *e;
	uint64_t size = 0;
	int rc;

	if (!r || !d->cfg.resume_bytes)
		return;
	rc = len > d->cfg.resume_bytes ? -EFBIG :
	     nspool_resume_write(spool_files(d), rec->boot_id, rec->dump_id,
				 dgrams, len, &size);
	pthread_mutex_lock(&r->lock);
	e = *rfind(r, rec->boot_id, rec->dump_id);
	if (rc) {
		dump_name(name, sizeof(name), rec->hostname, rec->boot_id,
			  rec->dump_id);
		fprintf(stderr, "netoopsd: resume: cannot keep the datagrams"
			" of %s: %s\n", name, strerror(-rc));
		INC(d->spst.resume_dropped);
		runclaim(r, e);		/* the old file is still good */
	} else if (e) {
		r->bytes += size - e->size;
		e->size = size;
		runclaim(r, e);
		LRU_DEL(r, e);
		LRU_ADD(r, e);
	} else {
		e = radd(d, rec->boot_id, rec->dump_id, size);
		if (!e)		/* the next start finds it */
			INC(d->spst.resume_dropped);
	}
	rbound(d, e);
	rgauges(d);
	pthread_mutex_unlock(&r->lock);
}

/* Store thread: the dump is stored complete, its datagrams can go. */
void resume_done(struct daemon *d, const uint8_t boot_id[16],
		 uint64_t dump_id)
{
	struct resume *r = d->resume;
	struct rentry *e;

	if (!r)
		return;
	pthread_mutex_lock(&r->lock);
	e = r->files ? *rfind(r, boot_id, dump_id) : NULL;
	if (e)
		rdel(d, e, true);
	pthread_mutex_unlock(&r->lock);
}
