// SPDX-License-Identifier: GPL-2.0
/*
 * Finished dumps kept packed (netoops_pack.h): one block per dump, carved
 * from 2 MiB slabs by bumping an offset.  A slab counts the blocks in it,
 * plus one while it is its arena's current slab; the last release empties
 * it: kept for reuse (NETOOPS_PACK_KEEP of them) or unmapped.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "netoops_pack.h"

#define ALIGN		16
#define ROUND(n, a)	(((n) + (a) - 1) / (a) * (a))
#define MAX_RUN		0xffff		/* a squeezed record's counts: u16 */
#define MIN_ZEROS	4		/* fewer zeros stay in a literal run */

struct pslab {
	_Atomic uint64_t refs;		/* blocks, +1 while current */
	struct netoops_pack_arena *arena;
	size_t size;			/* bytes mapped */
	size_t used;			/* next free offset: owner only */
	bool shared;			/* NETOOPS_PACK_SLAB, reusable; else
					 * one large dump's own mapping */
	struct pslab *next;		/* kept list, under arena->lock */
};

struct netoops_pack_arena {
	struct pslab *cur;		/* owner thread only */
	pthread_mutex_t lock;		/* the kept list, the filler's state */
	struct pslab *kept;
	unsigned int nkept;
	pthread_cond_t want;		/* the filler: kept list ran low */
	pthread_t filler;
	bool filling;			/* a filler thread runs */
	bool stop;			/* it is told to end */
	_Atomic uint64_t slabs, bytes, reused;
};

/* A packed dump: this header, the gaps, the payload, the metadata. */
struct netoops_packed {
	struct pslab *slab;
	uint64_t size;			/* bytes of the block */
	uint64_t payload_len;
	uint64_t nr_gaps;
	uint64_t missing_bytes;
	uint64_t dump_id;
	uint64_t first_ms;
	uint64_t last_ms;
	uint64_t src_key_len;
	uint32_t meta_len;		/* squeezed bytes; 0 without meta */
	uint32_t pkt_count;
	uint32_t pkts_received;
	uint32_t duplicates;
	uint32_t pkts_rebuilt;
	uint32_t auth_key_id;
	uint8_t src_key[NETOOPS_SRC_KEY_MAX];
	uint8_t boot_id[16];
	bool complete;
	bool has_meta;
	bool authenticated;
};

#define HDR_SIZE	ROUND(sizeof(struct netoops_packed), ALIGN)
#define SLAB_HDR	ROUND(sizeof(struct pslab), ALIGN)

/* ---- squeezing zero runs -------------------------------------------- */

size_t netoops_squeeze_bound(size_t len)
{
	/* a record (4 bytes) per MAX_RUN literals, or per run of at least
	 * MIN_ZEROS zeros (which pays for it), plus the first and last
	 */
	return len + 4 * (len / MAX_RUN + 2);
}

static size_t zeros_at(const uint8_t *p, size_t n)
{
	size_t i = 0;
	uint64_t w, x[4];

	/* 32 bytes a step through the long zero runs of a metadata struct */
	for (; n - i >= 32; i += 32) {
		memcpy(x, p + i, 32);
		if (x[0] | x[1] | x[2] | x[3])
			break;
	}
	for (; n - i >= 8; i += 8) {
		memcpy(&w, p + i, 8);
		if (w)
			break;
	}
	while (i < n && !p[i])
		i++;
	return i;
}

static void put16(uint8_t *p, size_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

size_t netoops_squeeze(const void *in, size_t len, uint8_t *out)
{
	const uint8_t *p = in;
	size_t i = 0, o = 0, z, lit, r;
	const uint8_t *nz;

	while (i < len) {
		z = zeros_at(p + i, len - i);
		if (z > MAX_RUN)
			z = MAX_RUN;
		i += z;
		/* literals up to a run of MIN_ZEROS zeros or the end */
		lit = i;
		while (lit < len && lit - i < MAX_RUN) {
			nz = memchr(p + lit, 0, len - lit);
			if (!nz) {
				lit = len;
				break;
			}
			lit = (size_t)(nz - p);
			r = zeros_at(p + lit, len - lit);
			if (r >= MIN_ZEROS || lit + r == len)
				break;
			lit += r;
		}
		if (lit - i > MAX_RUN)
			lit = i + MAX_RUN;
		put16(out + o, z);
		put16(out + o + 2, lit - i);
		memcpy(out + o + 4, p + i, lit - i);
		o += 4 + lit - i;
		i = lit;
	}
	return o;
}

int netoops_unsqueeze(const uint8_t *in, size_t in_len, void *out,
		      size_t len)
{
	uint8_t *q = out;
	size_t i = 0, o = 0, z, n;

	while (i < in_len) {
		if (in_len - i < 4)
			return -EBADMSG;
		z = in[i] | (size_t)in[i + 1] << 8;
		n = in[i + 2] | (size_t)in[i + 3] << 8;
		i += 4;
		if (n > in_len - i || z > len - o || n > len - o - z)
			return -EBADMSG;
		memset(q + o, 0, z);
		memcpy(q + o + z, in + i, n);
		o += z + n;
		i += n;
	}
	return o == len ? 0 : -EBADMSG;
}

/* ---- slabs ------------------------------------------------------------ */

static void slab_unmap(struct netoops_pack_arena *a, struct pslab *s)
{
	atomic_fetch_sub(&a->slabs, 1);
	atomic_fetch_sub(&a->bytes, s->size);
	munmap(s, s->size);
}

/* A slab of @size bytes (shared: for many blocks). */
static struct pslab *slab_map(struct netoops_pack_arena *a, size_t size,
			      bool shared)
{
	void *s = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct pslab *slab;

	/* No MADV_HUGEPAGE: in bench/storm it made fewer page faults but
	 * no less system time in them.
	 */
	if (s == MAP_FAILED)
		return NULL;
	slab = (struct pslab *)s;
	atomic_init(&slab->refs, 1);
	slab->arena = a;
	slab->size = size;
	slab->used = SLAB_HDR;
	slab->shared = shared;
	slab->next = NULL;
	atomic_fetch_add(&a->slabs, 1);
	atomic_fetch_add(&a->bytes, size);
	return slab;
}

/* The last block of @s is gone (and it is not current). */
static void slab_empty(struct pslab *s)
{
	struct netoops_pack_arena *a = s->arena;

	if (s->shared) {
		pthread_mutex_lock(&a->lock);
		if (a->nkept < NETOOPS_PACK_KEEP) {
			s->next = a->kept;
			a->kept = s;
			a->nkept++;
			pthread_mutex_unlock(&a->lock);
			return;
		}
		pthread_mutex_unlock(&a->lock);
	}
	slab_unmap(a, s);
}

static void slab_put(struct pslab *s)
{
	if (atomic_fetch_sub_explicit(&s->refs, 1, memory_order_acq_rel) == 1)
		slab_empty(s);
}

/* A new current slab: a kept one, or a new mapping. */
static struct pslab *slab_next(struct netoops_pack_arena *a)
{
	struct pslab *s;

	pthread_mutex_lock(&a->lock);
	s = a->kept;
	if (s) {
		a->kept = s->next;
		a->nkept--;
	}
	if (a->filling && a->nkept < NETOOPS_PACK_PREFAULT)
		pthread_cond_signal(&a->want);
	pthread_mutex_unlock(&a->lock);
	if (s) {
		atomic_store(&s->refs, 1);
		s->used = SLAB_HDR;
		s->next = NULL;
		atomic_fetch_add(&a->reused, 1);
		return s;
	}
	return slab_map(a, NETOOPS_PACK_SLAB, true);
}

/* Room for @n bytes (ALIGN-rounded); the block's slab is counted. */
static void *arena_alloc(struct netoops_pack_arena *a, size_t n,
			 struct pslab **ret_slab)
{
	struct pslab *s = a->cur;
	void *p;

	n = ROUND(n, ALIGN);
	if (n > NETOOPS_PACK_SLAB - SLAB_HDR) {
		s = slab_map(a, ROUND(SLAB_HDR + n,
				      (size_t)sysconf(_SC_PAGESIZE)), false);
		if (!s)
			return NULL;
		s->used = SLAB_HDR + n;
		*ret_slab = s;		/* its one count is the block's */
		return (uint8_t *)s + SLAB_HDR;
	}
	if (!s || s->size - s->used < n) {
		s = slab_next(a);
		if (!s)
			return NULL;
		if (a->cur)
			slab_put(a->cur);
		a->cur = s;
	}
	p = (uint8_t *)s + s->used;
	s->used += n;
	atomic_fetch_add_explicit(&s->refs, 1, memory_order_relaxed);
	*ret_slab = s;
	return p;
}

/* Give back the unused end of the block just allocated at @p. */
static void arena_trim(struct pslab *s, void *p, size_t had, size_t need)
{
	if ((uint8_t *)p + ROUND(had, ALIGN) == (uint8_t *)s + s->used)
		s->used -= ROUND(had, ALIGN) - ROUND(need, ALIGN);
}

int netoops_pack_arena_new(struct netoops_pack_arena **ret)
{
	struct netoops_pack_arena *a = calloc(1, sizeof(*a));

	*ret = NULL;
	if (!a)
		return -ENOMEM;
	pthread_mutex_init(&a->lock, NULL);
	pthread_cond_init(&a->want, NULL);
	*ret = a;
	return 0;
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23		/* Linux 5.14 */
#endif

/* Fault every page of @s in (it is not handed out yet). */
static void slab_populate(struct pslab *s)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), off;
	volatile uint8_t *p = (volatile uint8_t *)s;

	if (!madvise(s, s->size, MADV_POPULATE_WRITE))
		return;
	/* an older kernel: a write to each page (past the header, which
	 * is written already; the rest is unused, so zero stays zero)
	 */
	for (off = page; off < s->size; off += page)
		p[off] = 0;
}

/*
 * The filler: keeps NETOOPS_PACK_PREFAULT empty slabs, their pages
 * faulted in, on the kept list, so that the packing thread takes a slab
 * without faulting (in a storm, thousands of dumps wait packed: a new
 * slab every hundred or so dumps, each one 512 page faults).
 */
static void *filler_main(void *arg)
{
	struct netoops_pack_arena *a = arg;
	struct timespec pause = { 0, 10 * 1000 * 1000 };
	struct pslab *s;

	pthread_setname_np(pthread_self(), "netoops-pfault");
	pthread_mutex_lock(&a->lock);
	while (!a->stop) {
		if (a->nkept >= NETOOPS_PACK_PREFAULT) {
			pthread_cond_wait(&a->want, &a->lock);
			continue;
		}
		pthread_mutex_unlock(&a->lock);
		s = slab_map(a, NETOOPS_PACK_SLAB, true);
		if (s)
			slab_populate(s);
		else
			nanosleep(&pause, NULL);	/* no memory: later */
		pthread_mutex_lock(&a->lock);
		if (!s)
			continue;
		if (a->nkept < NETOOPS_PACK_KEEP) {
			s->next = a->kept;
			a->kept = s;
			a->nkept++;
		} else {
			pthread_mutex_unlock(&a->lock);
			slab_unmap(a, s);
			pthread_mutex_lock(&a->lock);
		}
	}
	pthread_mutex_unlock(&a->lock);
	return NULL;
}

int netoops_pack_arena_prefault(struct netoops_pack_arena *a)
{
	int r;

	pthread_mutex_lock(&a->lock);
	if (a->filling) {
		pthread_mutex_unlock(&a->lock);
		return 0;
	}
	a->stop = false;
	r = pthread_create(&a->filler, NULL, filler_main, a);
	a->filling = !r;
	pthread_mutex_unlock(&a->lock);
	return -r;
}

static void filler_stop(struct netoops_pack_arena *a)
{
	pthread_mutex_lock(&a->lock);
	if (!a->filling) {
		pthread_mutex_unlock(&a->lock);
		return;
	}
	a->stop = true;
	pthread_cond_signal(&a->want);
	pthread_mutex_unlock(&a->lock);
	pthread_join(a->filler, NULL);
	a->filling = false;
}

void netoops_pack_arena_free(struct netoops_pack_arena *a)
{
	struct pslab *s;

	if (!a)
		return;
	filler_stop(a);
	if (a->cur)
		slab_put(a->cur);	/* unmapped or kept: empty now */
	while ((s = a->kept)) {
		a->kept = s->next;
		slab_unmap(a, s);
	}
	pthread_cond_destroy(&a->want);
	pthread_mutex_destroy(&a->lock);
	free(a);
}

void netoops_pack_arena_stats(struct netoops_pack_arena *a,
			      struct netoops_pack_stats *ret)
{
	memset(ret, 0, sizeof(*ret));
	if (!a)
		return;
	ret->slabs = atomic_load(&a->slabs);
	ret->bytes = atomic_load(&a->bytes);
	ret->reused = atomic_load(&a->reused);
	pthread_mutex_lock(&a->lock);
	ret->free_slabs = a->nkept;
	pthread_mutex_unlock(&a->lock);
}

/* ---- packing ---------------------------------------------------------- */

struct netoops_packed *netoops_dump_pack(struct netoops_pack_arena *a,
					 const struct netoops_dump *d)
{
	size_t gaps = d->nr_gaps * sizeof(*d->gaps);
	size_t fixed = HDR_SIZE + ROUND(gaps, 8) + d->payload_len;
	size_t bound = fixed + (d->has_meta ?
				netoops_squeeze_bound(sizeof(d->meta)) : 0);
	struct netoops_packed *p;
	struct pslab *slab;
	uint8_t *at;

	if (!a || !d || (d->nr_gaps && !d->gaps) ||
	    (d->payload_len && !d->payload) ||
	    d->src_key_len > sizeof(p->src_key))
		return NULL;
	p = arena_alloc(a, bound, &slab);
	if (!p)
		return NULL;
	memset(p, 0, sizeof(*p));
	p->slab = slab;
	p->payload_len = d->payload_len;
	p->nr_gaps = d->nr_gaps;
	p->missing_bytes = d->missing_bytes;
	p->dump_id = d->dump_id;
	p->first_ms = d->first_ms;
	p->last_ms = d->last_ms;
	p->src_key_len = d->src_key_len;
	p->pkt_count = d->pkt_count;
	p->pkts_received = d->pkts_received;
	p->duplicates = d->duplicates;
	p->pkts_rebuilt = d->pkts_rebuilt;
	p->auth_key_id = d->auth_key_id;
	memcpy(p->src_key, d->src_key, d->src_key_len);
	memcpy(p->boot_id, d->boot_id, 16);
	p->complete = d->complete;
	p->has_meta = d->has_meta;
	p->authenticated = d->authenticated;
	at = (uint8_t *)p + HDR_SIZE;
	if (gaps)
		memcpy(at, d->gaps, gaps);
	at += ROUND(gaps, 8);
	if (d->payload_len)
		memcpy(at, d->payload, d->payload_len);
	at += d->payload_len;
	if (d->has_meta)
		p->meta_len = (uint32_t)netoops_squeeze(&d->meta,
							sizeof(d->meta), at);
	p->size = fixed + p->meta_len;
	arena_trim(slab, p, bound, p->size);
	return p;
}

size_t netoops_packed_size(const struct netoops_packed *p)
{
	return p ? ROUND(p->size, ALIGN) : 0;
}

struct netoops_dump *netoops_dump_unpack(const struct netoops_packed *p,
					 struct netoops_dump *ret)
{
	const uint8_t *at = (const uint8_t *)p + HDR_SIZE;
	size_t gaps = p->nr_gaps * sizeof(*ret->gaps);

	memset(ret, 0, offsetof(struct netoops_dump, meta));
	memset((uint8_t *)ret + offsetof(struct netoops_dump, payload), 0,
	       sizeof(*ret) - offsetof(struct netoops_dump, payload));
	memcpy(ret->src_key, p->src_key, p->src_key_len);
	ret->src_key_len = p->src_key_len;
	memcpy(ret->boot_id, p->boot_id, 16);
	ret->dump_id = p->dump_id;
	ret->complete = p->complete;
	ret->has_meta = p->has_meta;
	ret->gaps = p->nr_gaps ? (struct netoops_gap *)at : NULL;
	ret->nr_gaps = p->nr_gaps;
	at += ROUND(gaps, 8);
	ret->payload = p->payload_len ? (uint8_t *)at : NULL;
	ret->payload_len = p->payload_len;
	at += p->payload_len;
	/* packed from a struct of this very layout: cannot fail */
	if (p->has_meta)
		netoops_unsqueeze(at, p->meta_len, &ret->meta,
				  sizeof(ret->meta));
	else
		memset(&ret->meta, 0, sizeof(ret->meta));
	ret->missing_bytes = p->missing_bytes;
	ret->pkt_count = p->pkt_count;
	ret->pkts_received = p->pkts_received;
	ret->duplicates = p->duplicates;
	ret->pkts_rebuilt = p->pkts_rebuilt;
	ret->first_ms = p->first_ms;
	ret->last_ms = p->last_ms;
	ret->authenticated = p->authenticated;
	ret->auth_key_id = p->auth_key_id;
	return ret;
}

void netoops_packed_release(struct netoops_packed *p)
{
	if (p)
		slab_put(p->slab);
}
