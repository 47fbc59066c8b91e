// SPDX-License-Identifier: GPL-2.0
/*
 * netoops reassembly: collect the datagrams of each dump, keyed by (source
 * key, boot_id, dump_id), and hand out complete dumps, or partial ones with
 * an exact gap list once they time out.
 *
 * Every resource a sender controls is bounded by struct netoops_reasm_limits.
 * An open dump is authenticated or not (its class, see
 * netoops_reasm_add_src()); each class has an LRU list ordered by last
 * activity, so the next dump to expire is at one of the two heads (given a
 * non-decreasing clock), and each sending address keeps its own LRU list
 * and count per class, for its budget and for choosing whom to evict.
 * Completed dumps leave a "tombstone" with the checksum of each datagram
 * for timeout_ms so that late or repeated copies are counted as duplicates
 * instead of opening a new dump.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "netoops_decode.h"

/* Classes of dumps: built from unverified or from verified datagrams. */
#define UNAUTH	0
#define AUTH	1

struct rpar {
	uint16_t	first;
	uint8_t		k, m, row;
	uint16_t	len;
	uint8_t		*data;
};

struct raddr;

struct rdump {
	struct rdump	*hnext;		/* hash chain */
	struct rdump	*prev, *next;	/* open LRU list or tombstone FIFO */
	struct rdump	*aprev, *anext;	/* its address's LRU list (open) */
	struct raddr	*addr;		/* sending address (open dumps) */
	uint64_t	hash;
	uint8_t		key[NETOOPS_SRC_KEY_MAX];
	size_t		key_len;
	uint8_t		boot_id[16];
	uint64_t	dump_id;
	bool		done;		/* tombstone: identity and checksums */
	int		auth;		/* class: AUTH or UNAUTH */
	uint32_t	key_id;		/* the key of an AUTH dump */
	uint64_t	deadline;	/* expiry (open) or forgetting (done) */
	uint32_t	pkt_count;
	uint32_t	payload_total;
	uint32_t	received;
	uint32_t	duplicates;
	uint64_t	first_ms;
	uint64_t	last_ms;
	uint64_t	cost;		/* charged to bytes_buffered */
	uint32_t	*crcs;		/* checksum of each received index */
	uint8_t		*copies;	/* copies received of each index */
	uint8_t		*got;		/* bit per index */
	uint8_t		*have;		/* bit per payload byte */
	uint32_t	covered;	/* bits set in have */
	uint8_t		*payload;
	struct netoops_meta *meta;	/* from the first metadata packet */
	bool		fec;		/* keep data datagrams for rebuilding */
	uint32_t	rebuilt;
	uint8_t		**raw;		/* whole data datagram per index */
	uint32_t	*raw_len;
	struct rpar	*par;		/* parity datagrams received */
	uint32_t	npar;
	uint32_t	par_cap;
};

struct rlist {
	struct rdump	*head, *tail;
	uint64_t	n;
};

/* A sending address (netoops_src.addr_len bytes of the source key). */
struct raddr {
	struct raddr	*hnext;		/* hash chain */
	struct raddr	*prev, *next;	/* idle FIFO: no open dump, marked */
	uint64_t	hash;
	uint8_t		addr[NETOOPS_SRC_KEY_MAX];
	size_t		len;
	bool		idle;
	uint32_t	n[2];		/* open dumps, by class */
	struct rdump	*head[2], *tail[2];	/* them, least recently
						 * active first */
	uint64_t	over_until[2];	/* by class: last time over budget
					 * plus timeout_ms; 0 never */
};

struct netoops_reasm {
	struct netoops_reasm_limits lim;
	struct rdump	**buckets;
	size_t		nbuckets;	/* power of two */
	struct rlist	open[2];	/* by class; LRU: head expires first */
	struct rlist	tombs;		/* FIFO of completed dumps */
	uint64_t	cbytes[2];	/* charged to open dumps, by class */
	uint64_t	tomb_bytes;	/* bytes charged to tombstones */
	struct raddr	**abuckets;	/* addresses, nbuckets of them */
	uint64_t	naddrs;
	struct raddr	*idle_head, *idle_tail;
	uint32_t	*nwith[2];	/* [c][k]: addresses holding k open
					 * dumps of class c */
	uint32_t	maxk[2];	/* largest k with nwith[c][k] */
	uint64_t	now;		/* latest time given */
	struct netoops_reasm_stats st;
	netoops_rebuild_fn rebuild;
	netoops_verify_fn verify;
	void		*verify_ctx;
};

#define REASM_MAX_DUMPS		(1u << 20)
#define REASM_OVERHEAD		(sizeof(struct rdump) + \
				 sizeof(struct netoops_meta))

uint64_t netoops_reasm_cost(uint32_t pkt_count, uint32_t payload_total)
{
	return (uint64_t)payload_total + ((uint64_t)payload_total + 7) / 8 +
	       (uint64_t)pkt_count * 5 + ((uint64_t)pkt_count + 7) / 8 +
	       REASM_OVERHEAD;
}

/* What a tombstone keeps: a checksum and a copy count per datagram. */
static uint64_t tomb_cost(uint32_t pkt_count)
{
	return (uint64_t)pkt_count * 5 + sizeof(struct rdump);
}

static void list_del(struct rlist *l, struct rdump *d)
{
	if (d->prev)
		d->prev->next = d->next;
	else
		l->head = d->next;
	if (d->next)
		d->next->prev = d->prev;
	else
		l->tail = d->prev;
	d->prev = d->next = NULL;
	l->n--;
}

static void list_add_tail(struct rlist *l, struct rdump *d)
{
	d->next = NULL;
	d->prev = l->tail;
	if (l->tail)
		l->tail->next = d;
	else
		l->head = d;
	l->tail = d;
	l->n++;
}

/* FNV-1a, 64 bit. */
static uint64_t fnv(uint64_t h, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len--) {
		h ^= *p++;
		h *= 0x100000001b3ull;
	}
	return h;
}

#define MIX_K	0x9e3779b97f4a7c15ull

static uint64_t mix_word(uint64_t h, uint64_t w)
{
	h ^= w;
	return (h << 29 | h >> 35) * MIX_K;
}

/* @buf 8 bytes at a time (the last ones zero-padded) into @h. */
static uint64_t mix(uint64_t h, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	uint64_t w;

	for (; len >= 8; p += 8, len -= 8) {
		memcpy(&w, p, 8);
		h = mix_word(h, w);
	}
	if (len) {
		w = 0;
		memcpy(&w, p, len);
		h = mix_word(h, w);
	}
	return h;
}

/*
 * A word at a time, then a finalizer that spreads every bit to the low
 * ones the tables use: FNV-1a byte by byte was 9% of a receive thread's
 * instructions (two lookups per datagram).  In memory only.
 */
uint64_t netoops_dump_hash(const void *key, size_t key_len,
			   const uint8_t boot_id[16], uint64_t dump_id)
{
	uint64_t h = 0xcbf29ce484222325ull;

	h = mix(h, key, key_len);
	h = mix_word(h, key_len);
	h = mix(h, boot_id, 16);
	h = mix_word(h, dump_id);
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	return h ^ h >> 33;
}

static struct rdump **lookup(struct netoops_reasm *r, uint64_t h,
			     const void *key, size_t key_len,
			     const uint8_t boot_id[16], uint64_t dump_id)
{
	struct rdump **pp = &r->buckets[h & (r->nbuckets - 1)];

	for (; *pp; pp = &(*pp)->hnext) {
		struct rdump *d = *pp;

		if (d->hash == h && d->dump_id == dump_id &&
		    d->key_len == key_len &&
		    !memcmp(d->boot_id, boot_id, 16) &&
		    (!key_len || !memcmp(d->key, key, key_len)))
			return pp;
	}
	return pp;
}

static void unhash(struct netoops_reasm *r, struct rdump *d)
{
	struct rdump **pp = lookup(r, d->hash, d->key, d->key_len,
				   d->boot_id, d->dump_id);

	if (*pp == d)
		*pp = d->hnext;
	d->hnext = NULL;
}

/* Free the buffers of @d; a tombstone keeps its checksums and copies. */
static void free_buffers(struct rdump *d, bool all)
{
	uint32_t i;

	if (d->raw)
		for (i = 0; i < d->pkt_count; i++)
			free(d->raw[i]);
	for (i = 0; i < d->npar; i++)
		free(d->par[i].data);
	free(d->raw);
	free(d->raw_len);
	free(d->par);
	d->raw = NULL;
	d->raw_len = NULL;
	d->par = NULL;
	d->npar = d->par_cap = 0;
	free(d->got);
	free(d->have);
	free(d->payload);
	free(d->meta);
	d->got = d->have = d->payload = NULL;
	d->meta = NULL;
	if (!all)
		return;
	free(d->crcs);
	free(d->copies);
	d->crcs = NULL;
	d->copies = NULL;
}

static void rdump_free(struct rdump *d)
{
	if (!d)
		return;
	free_buffers(d, true);
	free(d);
}

void netoops_dump_free(struct netoops_dump *d)
{
	if (!d)
		return;
	free(d->payload);
	free(d->gaps);
	free(d);
}

/* ---- sending addresses ------------------------------------------------ */

static uint64_t addr_hash(const void *a, size_t len)
{
	return fnv(fnv(0xcbf29ce484222325ull, a, len), &len, sizeof(len));
}

static struct raddr **addr_lookup(struct netoops_reasm *r, uint64_t h,
				  const void *a, size_t len)
{
	struct raddr **pp = &r->abuckets[h & (r->nbuckets - 1)];

	for (; *pp; pp = &(*pp)->hnext)
		if ((*pp)->hash == h && (*pp)->len == len &&
		    (!len || !memcmp((*pp)->addr, a, len)))
			break;
	return pp;
}

static void idle_del(struct netoops_reasm *r, struct raddr *a)
{
	if (a->prev)
		a->prev->next = a->next;
	else
		r->idle_head = a->next;
	if (a->next)
		a->next->prev = a->prev;
	else
		r->idle_tail = a->prev;
	a->prev = a->next = NULL;
	a->idle = false;
}

static void idle_add(struct netoops_reasm *r, struct raddr *a)
{
	a->next = NULL;
	a->prev = r->idle_tail;
	if (r->idle_tail)
		r->idle_tail->next = a;
	else
		r->idle_head = a;
	r->idle_tail = a;
	a->idle = true;
}

static void addr_free(struct netoops_reasm *r, struct raddr *a)
{
	struct raddr **pp = addr_lookup(r, a->hash, a->addr, a->len);

	if (*pp == a)
		*pp = a->hnext;
	if (a->idle)
		idle_del(r, a);
	r->naddrs--;
	free(a);
}

static bool over_budget(const struct netoops_reasm *r, const struct raddr *a)
{
	return a->over_until[UNAUTH] > r->now || a->over_until[AUTH] > r->now;
}

/* An address without open dumps is kept only while it is over budget. */
static void addr_release(struct netoops_reasm *r, struct raddr *a)
{
	if (a->n[UNAUTH] || a->n[AUTH] || a->idle)
		return;
	if (over_budget(r, a))
		idle_add(r, a);
	else
		addr_free(r, a);
}

static void drop_old_idle(struct netoops_reasm *r)
{
	while (r->idle_head && !over_budget(r, r->idle_head))
		addr_free(r, r->idle_head);
}

/* The entry of address @a, created if needed; NULL without memory. */
static struct raddr *addr_get(struct netoops_reasm *r, const void *a,
			      size_t len)
{
	uint64_t h = addr_hash(a, len);
	struct raddr **pp = addr_lookup(r, h, a, len), *n;

	if (*pp)
		return *pp;
	/* at most max_dumps have open dumps; as many more keep a mark */
	if (r->naddrs >= 2 * (uint64_t)r->lim.max_dumps && r->idle_head) {
		addr_free(r, r->idle_head);
		pp = addr_lookup(r, h, a, len);
	}
	n = calloc(1, sizeof(*n));
	if (!n)
		return NULL;
	n->hash = h;
	if (len)
		memcpy(n->addr, a, len);
	n->len = len;
	*pp = n;
	r->naddrs++;
	return n;
}

/* One more (@up) or one fewer open dump of class @c for @a. */
static void count_open(struct netoops_reasm *r, struct raddr *a, int c,
		       bool up)
{
	uint32_t k = a->n[c];

	if (k)
		r->nwith[c][k]--;
	k = up ? k + 1 : k - 1;
	a->n[c] = k;
	if (k)
		r->nwith[c][k]++;
	if (k > r->maxk[c])
		r->maxk[c] = k;
	while (r->maxk[c] && !r->nwith[c][r->maxk[c]])
		r->maxk[c]--;
}

static void alist_del(struct raddr *a, int c, struct rdump *d)
{
	if (d->aprev)
		d->aprev->anext = d->anext;
	else
		a->head[c] = d->anext;
	if (d->anext)
		d->anext->aprev = d->aprev;
	else
		a->tail[c] = d->aprev;
	d->aprev = d->anext = NULL;
}

static void alist_add_tail(struct raddr *a, int c, struct rdump *d)
{
	d->anext = NULL;
	d->aprev = a->tail[c];
	if (a->tail[c])
		a->tail[c]->anext = d;
	else
		a->head[c] = d;
	a->tail[c] = d;
}

/* Put new open dump @d on the lists, as one of @a's. */
static void attach(struct netoops_reasm *r, struct rdump *d, struct raddr *a)
{
	if (a->idle)
		idle_del(r, a);
	d->addr = a;
	list_add_tail(&r->open[d->auth], d);
	alist_add_tail(a, d->auth, d);
	count_open(r, a, d->auth, true);
}

/* Take open dump @d off the lists; its bytes stay charged. */
static void detach(struct netoops_reasm *r, struct rdump *d)
{
	struct raddr *a = d->addr;

	list_del(&r->open[d->auth], d);
	alist_del(a, d->auth, d);
	count_open(r, a, d->auth, false);
	d->addr = NULL;
	addr_release(r, a);
}

/* New activity on open dump @d: to the tail of its lists. */
static void touch(struct netoops_reasm *r, struct rdump *d)
{
	list_del(&r->open[d->auth], d);
	list_add_tail(&r->open[d->auth], d);
	alist_del(d->addr, d->auth, d);
	alist_add_tail(d->addr, d->auth, d);
}

/* Forget open dump @d (already handed out, or discarded: @counter). */
static void drop_open(struct netoops_reasm *r, struct rdump *d,
		      uint64_t *counter)
{
	detach(r, d);
	unhash(r, d);
	r->st.bytes_buffered -= d->cost;
	r->cbytes[d->auth] -= d->cost;
	rdump_free(d);
	if (counter)
		(*counter)++;
}

/* Discard open dump @d for room; its address is over budget a while. */
static void evict(struct netoops_reasm *r, struct rdump *d,
		  uint64_t *counter)
{
	d->addr->over_until[d->auth] = r->now + r->lim.timeout_ms;
	drop_open(r, d, counter);
}

static void forget_tomb(struct netoops_reasm *r, struct rdump *d)
{
	list_del(&r->tombs, d);
	unhash(r, d);
	r->st.bytes_buffered -= d->cost;
	r->tomb_bytes -= d->cost;
	rdump_free(d);
}

/* Completed dump @d (detached) keeps its checksums for timeout_ms. */
static void add_tomb(struct netoops_reasm *r, struct rdump *d, uint64_t now)
{
	uint64_t keep = tomb_cost(d->pkt_count);

	free_buffers(d, false);
	r->cbytes[d->auth] -= d->cost;
	r->st.bytes_buffered -= d->cost - keep;
	d->cost = keep;
	r->tomb_bytes += keep;
	d->done = true;
	d->deadline = now + r->lim.timeout_ms;
	list_add_tail(&r->tombs, d);
	/* tombstones are small but a sender makes them: bound their number */
	while (r->tombs.n > r->lim.max_dumps)
		forget_tomb(r, r->tombs.head);
}

/* ---------------------------------------------------------------------- */

void netoops_reasm_free(struct netoops_reasm *r)
{
	struct rdump *d, *next;
	struct raddr *a, *an;
	size_t i;
	int c;

	if (!r)
		return;
	for (c = 0; c < 2; c++)
		for (d = r->open[c].head; d; d = next) {
			next = d->next;
			rdump_free(d);
		}
	for (d = r->tombs.head; d; d = next) {
		next = d->next;
		rdump_free(d);
	}
	for (i = 0; r->abuckets && i < r->nbuckets; i++)
		for (a = r->abuckets[i]; a; a = an) {
			an = a->hnext;
			free(a);
		}
	free(r->abuckets);
	free(r->nwith[UNAUTH]);
	free(r->nwith[AUTH]);
	free(r->buckets);
	free(r);
}

int netoops_reasm_new(const struct netoops_reasm_limits *limits,
		      struct netoops_reasm **ret)
{
	struct netoops_reasm *r;
	size_t nb = 16;

	if (!ret)
		return -EINVAL;
	*ret = NULL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	if (limits)
		r->lim = *limits;
	if (!r->lim.max_pkts_per_dump)
		r->lim.max_pkts_per_dump = NETOOPS_REASM_DEF_PKTS;
	if (!r->lim.max_bytes_per_dump)
		r->lim.max_bytes_per_dump = NETOOPS_REASM_DEF_BYTES;
	if (!r->lim.max_dumps_per_source)
		r->lim.max_dumps_per_source = NETOOPS_REASM_DEF_PER_SOURCE;
	if (!r->lim.max_dumps)
		r->lim.max_dumps = NETOOPS_REASM_DEF_DUMPS;
	if (!r->lim.max_bytes_total)
		r->lim.max_bytes_total = NETOOPS_REASM_DEF_TOTAL;
	if (!r->lim.timeout_ms)
		r->lim.timeout_ms = NETOOPS_REASM_DEF_TIMEOUT_MS;
	if (!r->lim.max_dumps_per_addr)
		r->lim.max_dumps_per_addr = r->lim.max_dumps / 4 ?: 1;
	if (r->lim.max_dumps > REASM_MAX_DUMPS ||
	    r->lim.partial_min_pct > 100) {
		free(r);
		return -EINVAL;
	}
	if (r->lim.max_dumps_per_addr > r->lim.max_dumps)
		r->lim.max_dumps_per_addr = r->lim.max_dumps;
	/* open dumps plus as many tombstones, at most half full */
	while (nb < 4 * (size_t)r->lim.max_dumps)
		nb <<= 1;
	r->nbuckets = nb;
	r->buckets = calloc(nb, sizeof(*r->buckets));
	r->abuckets = calloc(nb, sizeof(*r->abuckets));
	r->nwith[UNAUTH] = calloc(r->lim.max_dumps_per_addr + 1,
				  sizeof(*r->nwith[UNAUTH]));
	r->nwith[AUTH] = calloc(r->lim.max_dumps_per_addr + 1,
				sizeof(*r->nwith[AUTH]));
	if (!r->buckets || !r->abuckets || !r->nwith[UNAUTH] ||
	    !r->nwith[AUTH]) {
		netoops_reasm_free(r);
		return -ENOMEM;
	}
	*ret = r;
	return 0;
}

void netoops_reasm_get_stats(const struct netoops_reasm *r,
			     struct netoops_reasm_stats *ret)
{
	*ret = r->st;
	ret->open_dumps = r->open[UNAUTH].n + r->open[AUTH].n;
}

static int refuse(struct netoops_reasm *r, enum netoops_err *ret_reason,
		  enum netoops_err err, int errno_val)
{
	if (ret_reason)
		*ret_reason = err;
	switch (err) {
	case NETOOPS_ERR_CONFLICT:
	case NETOOPS_ERR_MISMATCH:
		r->st.conflicts++;
		break;
	case NETOOPS_ERR_NOMEM:
		r->st.refused_nomem++;
		break;
	case NETOOPS_ERR_DOWNGRADE:
		r->st.downgrades++;
		break;
	case NETOOPS_ERR_INVALID:
		break;
	default:
		r->st.refused_limit++;
		break;
	}
	return errno_val;
}

static bool bit(const uint8_t *map, size_t i)
{
	return map[i / 8] & (1u << (i % 8));
}

static void set_bit(uint8_t *map, size_t i)
{
	map[i / 8] |= (uint8_t)(1u << (i % 8));
}

/* Set bits [off, off + len) of a bitmap, whole bytes at a time. */
static void set_range(uint8_t *map, size_t off, size_t len)
{
	size_t end = off + len;

	while (off < end && off % 8)
		set_bit(map, off++);
	if (end - off >= 8) {
		memset(map + off / 8, 0xff, (end - off) / 8);
		off += (end - off) / 8 * 8;
	}
	while (off < end)
		set_bit(map, off++);
}

_Static_assert(offsetof(struct netoops_dump, payload) >=
	       offsetof(struct netoops_dump, meta) +
	       sizeof(struct netoops_meta), "meta must come right before payload");

/* Bits [i, i + 64) of @map, i a multiple of 8, bit i lowest. */
static uint64_t word_at(const uint8_t *map, size_t i)
{
	uint64_t w;

	memcpy(&w, map + i / 8, sizeof(w));
	return le64toh(w);
}

/*
 * First index in [from, end) whose bit equals @val, or @end: bit by bit
 * up to a byte boundary, then 64 bits at a time (a 128 KiB dump's
 * 23 KiB payload is 2,900 bytes of bitmap, scanned when it is handed
 * out, and each datagram's chunk is looked up), then a byte at a time,
 * then the last bits.  Never reads a byte past the one of bit @end - 1.
 */
static size_t find_bit(const uint8_t *map, size_t from, size_t end, bool val)
{
	const uint64_t flip = val ? 0 : UINT64_MAX;
	const uint8_t skip = val ? 0x00 : 0xff;
	uint64_t w;

	for (; from < end && from % 8; from++)
		if (bit(map, from) == val)
			return from;
	for (; end - from >= 64; from += 64) {
		w = word_at(map, from) ^ flip;
		if (w)
			return from + (size_t)__builtin_ctzll(w);
	}
	for (; end - from >= 8 && map[from / 8] == skip; from += 8)
		;
	for (; from < end; from++)
		if (bit(map, from) == val)
			return from;
	return end;
}

/* Whether any bit in [off, off + len) is set. */
static bool any_in_range(const uint8_t *map, size_t off, size_t len)
{
	return find_bit(map, off, off + len, true) < off + len;
}

/* An open dump as a struct netoops_dump; its payload moves there. */
static struct netoops_dump *hand_out(struct rdump *d)
{
	struct netoops_dump *out = malloc(sizeof(*out));
	size_t i, n = 0, start, total = d->payload_total;

	if (!out)
		return NULL;
	/* cleared around the 11 KiB metadata, which is copied or cleared
	 * below: not cleared and then copied over
	 */
	memset(out, 0, offsetof(struct netoops_dump, meta));
	memset((uint8_t *)out + offsetof(struct netoops_dump, payload), 0,
	       sizeof(*out) - offsetof(struct netoops_dump, payload));
	/* count the gaps first to allocate exactly; none if every byte
	 * was received
	 */
	if (d->covered == total)
		total = 0;
	for (i = find_bit(d->have, 0, total, false); i < total;
	     i = find_bit(d->have, i, total, false)) {
		n++;
		i = find_bit(d->have, i, total, true);
	}
	if (n) {
		out->gaps = calloc(n, sizeof(*out->gaps));
		if (!out->gaps) {
			free(out);
			return NULL;
		}
	}
	for (i = find_bit(d->have, 0, total, false); i < total;
	     i = find_bit(d->have, i, total, false)) {
		start = i;
		i = find_bit(d->have, i, total, true);
		out->gaps[out->nr_gaps].off = (uint32_t)start;
		out->gaps[out->nr_gaps].len = (uint32_t)(i - start);
		out->missing_bytes += i - start;
		out->nr_gaps++;
		/* the payload was not cleared when allocated */
		memset(d->payload + start, 0, i - start);
	}

	memcpy(out->src_key, d->key, d->key_len);
	out->src_key_len = d->key_len;
	memcpy(out->boot_id, d->boot_id, 16);
	out->dump_id = d->dump_id;
	out->complete = d->received == d->pkt_count;
	if (d->meta) {
		out->has_meta = true;
		out->meta = *d->meta;
	} else {
		memset(&out->meta, 0, sizeof(out->meta));
	}
	out->payload = d->payload;
	d->payload = NULL;
	out->payload_len = d->payload_total;
	out->pkt_count = d->pkt_count;
	out->pkts_received = d->received;
	out->duplicates = d->duplicates;
	out->pkts_rebuilt = d->rebuilt;
	out->first_ms = d->first_ms;
	out->last_ms = d->last_ms;
	out->authenticated = d->received && d->auth == AUTH;
	out->auth_key_id = out->authenticated ? d->key_id : 0;
	return out;
}

static struct rdump *new_dump(uint64_t h,
			      const void *key, size_t key_len,
			      const struct netoops_packet *pkt, uint64_t now,
			      uint64_t cost)
{
	struct rdump *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->crcs = calloc(pkt->pkt_count, sizeof(*d->crcs));
	d->copies = calloc(pkt->pkt_count, 1);
	d->got = calloc(((size_t)pkt->pkt_count + 7) / 8, 1);
	d->have = calloc(((size_t)pkt->payload_total + 7) / 8 + 1, 1);
	/* not cleared: chunks fill it, hand_out() clears what they left */
	d->payload = pkt->payload_total ? malloc(pkt->payload_total) : NULL;
	if (!d->crcs || !d->copies || !d->got || !d->have ||
	    (pkt->payload_total && !d->payload)) {
		rdump_free(d);
		return NULL;
	}
	d->hash = h;
	if (key_len)
		memcpy(d->key, key, key_len);
	d->key_len = key_len;
	memcpy(d->boot_id, pkt->boot_id, 16);
	d->dump_id = pkt->dump_id;
	d->pkt_count = pkt->pkt_count;
	d->payload_total = pkt->payload_total;
	d->first_ms = now;
	d->cost = cost;
	d->auth = pkt->verified ? AUTH : UNAUTH;
	d->key_id = pkt->verified ? pkt->key_id : 0;
	return d;
}

static unsigned int open_for_source(const struct netoops_reasm *r,
				    const void *key, size_t key_len)
{
	const struct rdump *d;
	unsigned int n = 0;
	int c;

	for (c = 0; c < 2; c++)
		for (d = r->open[c].head; d; d = d->next)
			if (d->key_len == key_len &&
			    (!key_len || !memcmp(d->key, key, key_len)))
				n++;
	return n;
}

/*
 * The dump to evict from class @c (never @self): of the addresses holding
 * the most, the least recently active dump, one that only has its opening
 * datagram first (a flood from many addresses opens dumps it never
 * continues).
 */
static struct rdump *victim(const struct netoops_reasm *r, int c,
			    const struct rdump *self)
{
	struct rdump *d, *best = NULL;
	bool single, best_single = false;
	uint32_t n, best_n = 0;

	for (d = r->open[c].head; d; d = d->next) {
		if (d == self)
			continue;
		n = d->addr->n[c];
		single = d->received + d->npar <= 1;
		if (!best || n > best_n ||
		    (n == best_n && single && !best_single)) {
			best = d;
			best_n = n;
			best_single = single;
		}
		if (best_n == r->maxk[c] && best_single)
			break;		/* nothing later is a better choice */
	}
	return best;
}

/* The class to evict from for a dump of class @c (other than @self). */
static int victim_class(const struct netoops_reasm *r, int c,
			const struct rdump *self)
{
	if (c == AUTH &&
	    r->open[UNAUTH].n > (self && self->auth == UNAUTH ? 1u : 0u))
		return UNAUTH;
	return c;
}

/* Bytes that evictions could free for a dump of class @c (not @self). */
static uint64_t evictable_bytes(const struct netoops_reasm *r, int c,
				const struct rdump *self)
{
	uint64_t b = r->tomb_bytes + r->cbytes[UNAUTH];

	if (c == AUTH)
		b += r->cbytes[AUTH];
	if (self && (self->auth == UNAUTH || c == AUTH))
		b -= self->cost;
	return b;
}

/*
 * Make @n more bytes fit for a dump of class @c, never evicting @self:
 * unauthenticated dumps (victim()) first, then tombstones (oldest first:
 * small, and only a complete dump leaves one), then, for an authenticated
 * dump, authenticated ones.  Evicts nothing and returns false when even
 * that would not be enough.
 */
static bool free_bytes(struct netoops_reasm *r, int c,
		       const struct rdump *self, uint64_t n)
{
	const uint64_t max = r->lim.max_bytes_total;
	struct rdump *d;

	if (n > max || r->st.bytes_buffered > max)
		return false;
	if (r->st.bytes_buffered + n <= max)
		return true;
	if (r->st.bytes_buffered + n - max > evictable_bytes(r, c, self))
		return false;
	while (r->st.bytes_buffered + n > max) {
		d = victim(r, UNAUTH, self);
		if (d) {
			evict(r, d, &r->st.evicted);
		} else if (r->tombs.head) {
			forget_tomb(r, r->tombs.head);
		} else {
			d = c == AUTH ? victim(r, AUTH, self) : NULL;
			if (!d)		/* cannot happen: counted above */
				return false;
			evict(r, d, &r->st.evicted);
		}
	}
	return true;
}

/*
 * Room for a new dump of class @c from @a costing @cost, by the rules of
 * netoops_reasm_add_src(); nothing is evicted if that would not be enough.
 */
static int make_room(struct netoops_reasm *r, int c, struct raddr *a,
		     uint64_t cost, enum netoops_err *ret_reason)
{
	const uint64_t max = r->lim.max_bytes_total;
	uint64_t nopen = r->open[UNAUTH].n + r->open[AUTH].n;
	uint64_t n_evictable = r->open[UNAUTH].n;

	if (c == AUTH)
		n_evictable += r->open[AUTH].n;
	if (nopen >= r->lim.max_dumps &&
	    nopen + 1 - r->lim.max_dumps > n_evictable)
		return refuse(r, ret_reason, NETOOPS_ERR_LIMIT_DUMPS, -ENOSPC);
	if (cost > max || r->st.bytes_buffered > max ||
	    (r->st.bytes_buffered + cost > max &&
	     r->st.bytes_buffered + cost - max > evictable_bytes(r, c, NULL)))
		return refuse(r, ret_reason, NETOOPS_ERR_LIMIT_MEMORY,
			      -ENOBUFS);

	if (a->n[c] >= r->lim.max_dumps_per_addr)
		evict(r, a->head[c], &r->st.over_budget);
	while (r->open[UNAUTH].n + r->open[AUTH].n >= r->lim.max_dumps)
		evict(r, victim(r, victim_class(r, c, NULL), NULL),
		      &r->st.evicted);
	free_bytes(r, c, NULL, cost);	/* enough: counted above */
	return 0;
}

int netoops_reasm_set_rebuild(struct netoops_reasm *r, netoops_rebuild_fn fn)
{
	if (!r)
		return -EINVAL;
	r->rebuild = fn;
	return 0;
}

void netoops_reasm_set_verify(struct netoops_reasm *r, netoops_verify_fn fn,
			      void *ctx)
{
	if (!r)
		return;
	r->verify = fn;
	r->verify_ctx = ctx;
}

/*
 * Account @n more bytes to open dump @d, evicting others as for a new
 * dump of its class if needed; false if there is no room even so.
 */
static bool charge(struct netoops_reasm *r, struct rdump *d, uint64_t n)
{
	if (!free_bytes(r, d->auth, d, n))
		return false;
	r->st.bytes_buffered += n;
	r->cbytes[d->auth] += n;
	d->cost += n;
	return true;
}

/* Keep a copy of a data datagram for rebuilding; best effort. */
static void keep_raw(struct netoops_reasm *r, struct rdump *d,
		     const struct netoops_packet *pkt)
{
	uint8_t *copy;

	if (!d->raw) {
		if (!charge(r, d, (uint64_t)d->pkt_count *
				  (sizeof(*d->raw) + sizeof(*d->raw_len))))
			return;
		d->raw = calloc(d->pkt_count, sizeof(*d->raw));
		d->raw_len = calloc(d->pkt_count, sizeof(*d->raw_len));
		if (!d->raw || !d->raw_len) {
			free(d->raw);
			free(d->raw_len);
			d->raw = NULL;
			d->raw_len = NULL;
			return;
		}
	}
	if (!pkt->raw || !pkt->raw_len || d->raw[pkt->pkt_index] ||
	    !charge(r, d, pkt->raw_len))
		return;
	copy = malloc(pkt->raw_len);
	if (!copy)
		return;
	memcpy(copy, pkt->raw, pkt->raw_len);
	d->raw[pkt->pkt_index] = copy;
	d->raw_len[pkt->pkt_index] = (uint32_t)pkt->raw_len;
}

/* One more copy of datagram @idx of @d. */
static void count_copy(struct rdump *d, uint32_t idx)
{
	if (d->copies[idx] < UINT8_MAX)
		d->copies[idx]++;
}

/* Add a data packet to open dump @d. */
static int put_data(struct netoops_reasm *r, struct rdump *d,
		    const struct netoops_packet *pkt, uint64_t now_ms,
		    enum netoops_err *ret_reason)
{
	size_t i, fresh = pkt->chunk_len;

	if (bit(d->got, pkt->pkt_index)) {
		if (d->crcs[pkt->pkt_index] != pkt->checksum)
			return refuse(r, ret_reason, NETOOPS_ERR_CONFLICT,
				      -EEXIST);
		count_copy(d, pkt->pkt_index);
		d->duplicates++;
		r->st.duplicates++;
		return NETOOPS_REASM_DUPLICATE;
	}
	/* Overlapping chunks (never sent by our encoder) must agree. */
	if (any_in_range(d->have, pkt->payload_off, pkt->chunk_len)) {
		for (i = 0; i < pkt->chunk_len; i++) {
			size_t at = pkt->payload_off + i;

			if (bit(d->have, at) &&
			    d->payload[at] != pkt->chunk[i])
				return refuse(r, ret_reason,
					      NETOOPS_ERR_CONFLICT, -EEXIST);
		}
		for (i = 0; i < pkt->chunk_len; i++)
			if (bit(d->have, pkt->payload_off + i))
				fresh--;
	}
	if (pkt->has_meta && !d->meta) {
		d->meta = malloc(sizeof(*d->meta));
		if (!d->meta)
			return refuse(r, ret_reason, NETOOPS_ERR_NOMEM,
				      -ENOMEM);
		*d->meta = pkt->meta;
	}
	if (r->rebuild && (pkt->flags & NETOOPS_F_FEC))
		d->fec = true;
	if (d->fec)
		keep_raw(r, d, pkt);
	if (pkt->chunk_len)
		memcpy(d->payload + pkt->payload_off, pkt->chunk,
		       pkt->chunk_len);
	set_range(d->have, pkt->payload_off, pkt->chunk_len);
	d->covered += (uint32_t)fresh;
	set_bit(d->got, pkt->pkt_index);
	d->crcs[pkt->pkt_index] = pkt->checksum;
	count_copy(d, pkt->pkt_index);
	d->received++;
	d->last_ms = now_ms;
	r->st.accepted++;
	return NETOOPS_REASM_ACCEPTED;
}

/* Store a parity packet in open dump @d. */
static int put_parity(struct netoops_reasm *r, struct rdump *d,
		      const struct netoops_packet *pkt, uint64_t now_ms,
		      enum netoops_err *ret_reason)
{
	struct rpar *p;
	uint32_t i;

	for (i = 0; i < d->npar; i++) {
		p = &d->par[i];
		if (p->first != pkt->par_first)
			continue;
		if (p->k != pkt->par_k || p->m != pkt->par_m ||
		    p->len != pkt->par_len)
			return refuse(r, ret_reason, NETOOPS_ERR_CONFLICT,
				      -EEXIST);
		if (p->row != pkt->par_row)
			continue;
		if (memcmp(p->data, pkt->par_data, p->len))
			return refuse(r, ret_reason, NETOOPS_ERR_CONFLICT,
				      -EEXIST);
		d->duplicates++;
		r->st.duplicates++;
		return NETOOPS_REASM_DUPLICATE;
	}
	/* an honest sender sends at most m <= 254 rows per k >= 1 data */
	if (d->npar >= d->pkt_count + NETOOPS_FEC_MAX)
		return refuse(r, ret_reason, NETOOPS_ERR_LIMIT_PACKETS,
			      -EMSGSIZE);
	if (d->npar == d->par_cap) {
		uint32_t cap = d->par_cap ? 2 * d->par_cap : 8;

		if (!charge(r, d, (uint64_t)(cap - d->par_cap) * sizeof(*p)))
			return refuse(r, ret_reason, NETOOPS_ERR_LIMIT_MEMORY,
				      -ENOBUFS);
		p = realloc(d->par, cap * sizeof(*p));
		if (!p)
			return refuse(r, ret_reason, NETOOPS_ERR_NOMEM,
				      -ENOMEM);
		d->par = p;
		d->par_cap = cap;
	}
	if (!charge(r, d, pkt->par_len))
		return refuse(r, ret_reason, NETOOPS_ERR_LIMIT_MEMORY,
			      -ENOBUFS);
	p = &d->par[d->npar];
	p->data = malloc(pkt->par_len);
	if (!p->data)
		return refuse(r, ret_reason, NETOOPS_ERR_NOMEM, -ENOMEM);
	memcpy(p->data, pkt->par_data, pkt->par_len);
	p->first = pkt->par_first;
	p->k = pkt->par_k;
	p->m = pkt->par_m;
	p->row = pkt->par_row;
	p->len = pkt->par_len;
	d->npar++;
	d->fec = true;
	d->last_ms = now_ms;
	r->st.parity++;
	r->st.accepted++;
	return NETOOPS_REASM_ACCEPTED;
}

/*
 * Check a rebuilt datagram and add it to @d: like a received one, it must
 * be verified with the dump's key to join an authenticated dump.
 */
static void put_rebuilt(struct netoops_reasm *r, struct rdump *d,
			const uint8_t *buf, size_t cap, uint32_t idx,
			uint64_t now_ms, struct netoops_packet *np)
{
	size_t len, i;

	len = (size_t)buf[5] + (size_t)(buf[36] | buf[37] << 8);
	for (i = len; i < cap; i++)
		if (buf[i])
			break;
	if (len > cap || i < cap || netoops_decode_packet(buf, len, np) ||
	    np->is_parity || np->pkt_index != idx ||
	    np->pkt_count != d->pkt_count ||
	    np->payload_total != d->payload_total ||
	    np->dump_id != d->dump_id || memcmp(np->boot_id, d->boot_id, 16) ||
	    (r->verify && r->verify(r->verify_ctx, np)) ||
	    (d->auth && (!np->verified || np->key_id != d->key_id)) ||
	    put_data(r, d, np, now_ms, NULL) != NETOOPS_REASM_ACCEPTED) {
		r->st.fec_failed++;
		return;
	}
	d->rebuilt++;
	r->st.fec_rebuilt++;
}

/* Rebuild what group @first of @d lost, if it has enough datagrams. */
static void try_group(struct netoops_reasm *r, struct rdump *d,
		      const struct rpar *g, uint64_t now_ms)
{
	const uint8_t *blocks[NETOOPS_FEC_MAX] = { NULL };
	uint8_t *out[NETOOPS_FEC_MAX] = { NULL };
	unsigned int k = g->k, m = g->m, j, have = 0, lost = 0;
	struct netoops_packet *np = NULL;
	uint8_t *pad = NULL, *rec = NULL;
	size_t len = g->len;
	uint32_t i;

	if ((uint32_t)g->first + k > d->pkt_count || !d->raw)
		return;
	for (i = 0; i < d->npar; i++)
		if (d->par[i].first == g->first && !blocks[k + d->par[i].row]) {
			blocks[k + d->par[i].row] = d->par[i].data;
			have++;
		}
	for (j = 0; j < k; j++) {
		uint32_t idx = g->first + j;

		if (!bit(d->got, idx)) {
			lost++;
			continue;
		}
		/* a received datagram kept whole is needed, and must fit */
		if (!d->raw[idx] || d->raw_len[idx] > len)
			return;
		have++;
	}
	if (!lost || have < k)
		return;
	pad = calloc(k, len);
	rec = calloc(lost, len);
	np = malloc(sizeof(*np));
	if (!pad || !rec || !np)
		goto out;
	for (j = 0, lost = 0; j < k; j++) {
		uint32_t idx = g->first + j;

		if (bit(d->got, idx)) {
			memcpy(pad + j * len, d->raw[idx], d->raw_len[idx]);
			blocks[j] = pad + j * len;
		} else {
			out[j] = rec + lost++ * len;
		}
	}
	if (r->rebuild(k, m, len, blocks, out) < 0) {
		r->st.fec_failed += lost;
		goto out;
	}
	for (j = 0; j < k; j++)
		if (out[j])
			put_rebuilt(r, d, out[j], len, g->first + j, now_ms,
				    np);
out:
	free(pad);
	free(rec);
	free(np);
}

/* The parity group data datagram @idx belongs to, if any arrived. */
static const struct rpar *group_of(const struct rdump *d, uint32_t idx)
{
	uint32_t i;

	for (i = 0; i < d->npar; i++)
		if (d->par[i].first <= idx &&
		    idx < (uint32_t)d->par[i].first + d->par[i].k)
			return &d->par[i];
	return NULL;
}


/* A copy of a datagram of completed dump @d. */
static int put_late(struct netoops_reasm *r, struct rdump *d,
		    const struct netoops_packet *pkt,
		    enum netoops_err *ret_reason)
{
	uint32_t idx = pkt->pkt_index;

	if (pkt->is_parity) {
		r->st.late_parity++;
		return NETOOPS_REASM_DUPLICATE;
	}
	if (d->crcs[idx] != pkt->checksum)
		return refuse(r, ret_reason, NETOOPS_ERR_CONFLICT, -EEXIST);
	count_copy(d, idx);
	r->st.duplicates++;
	/* the sender's own repeats are duplicates; more is someone else */
	if (d->copies[idx] > NETOOPS_REASM_MAX_COPIES) {
		r->st.replays++;
		if (ret_reason)
			*ret_reason = NETOOPS_ERR_REPLAY;
	}
	return NETOOPS_REASM_DUPLICATE;
}

/*
 * Whether data datagram @pkt may join dump @d: 0 if so, 1 if @d was
 * discarded for it (a new dump must be opened), or a refusal.
 */
static int check_class(struct netoops_reasm *r, struct rdump *d,
		       const struct netoops_packet *pkt,
		       enum netoops_err *ret_reason)
{
	int c = pkt->verified ? AUTH : UNAUTH;

	if (d->auth == c && (c == UNAUTH || d->key_id == pkt->key_id))
		return 0;
	/* verified data replaces unverified data, or a parity-only dump */
	if ((c == AUTH && d->auth == UNAUTH) || (!d->done && !d->received)) {
		if (d->done)
			forget_tomb(r, d);
		else
			drop_open(r, d, NULL);
		r->st.displaced++;
		return 1;
	}
	return refuse(r, ret_reason, NETOOPS_ERR_DOWNGRADE, -EACCES);
}

int netoops_reasm_add(struct netoops_reasm *r, const void *src_key,
		      size_t src_key_len, const struct netoops_packet *pkt,
		      uint64_t now_ms, struct netoops_dump **ret_done,
		      enum netoops_err *ret_reason)
{
	const struct netoops_src src = {
		.key = src_key, .key_len = src_key_len, .addr_len = src_key_len,
	};

	return netoops_reasm_add_src(r, &src, pkt, now_ms, ret_done,
				     ret_reason);
}

int netoops_reasm_add_src(struct netoops_reasm *r,
			  const struct netoops_src *src,
			  const struct netoops_packet *pkt, uint64_t now_ms,
			  struct netoops_dump **ret_done,
			  enum netoops_err *ret_reason)
{
	const struct rpar *g;
	struct rdump **pp, *d;
	struct raddr *a;
	uint64_t h, cost;
	int rc;

	if (ret_done)
		*ret_done = NULL;
	if (ret_reason)
		*ret_reason = NETOOPS_OK;
	if (!r || !src || !pkt || !ret_done ||
	    src->key_len > NETOOPS_SRC_KEY_MAX ||
	    src->addr_len > src->key_len || (src->key_len && !src->key) ||
	    !pkt->pkt_count || pkt->pkt_index >= pkt->pkt_count ||
	    (uint64_t)pkt->payload_off + pkt->chunk_len > pkt->payload_total ||
	    (pkt->chunk_len && !pkt->chunk) ||
	    (pkt->is_parity &&
	     (!pkt->par_data || !pkt->par_k || !pkt->par_m ||
	      pkt->par_k + pkt->par_m > NETOOPS_FEC_MAX ||
	      pkt->par_row >= pkt->par_m ||
	      pkt->par_len < NETOOPS_HDR_LEN_V1 || pkt->chunk_len ||
	      (uint32_t)pkt->par_first + pkt->par_k > pkt->pkt_count))) {
		if (!r)
			return -EINVAL;
		return refuse(r, ret_reason, NETOOPS_ERR_INVALID, -EINVAL);
	}
	r->st.packets++;
	if (now_ms > r->now)
		r->now = now_ms;
	if (pkt->is_parity && !r->rebuild) {
		r->st.parity_ignored++;
		if (ret_reason)
			*ret_reason = NETOOPS_ERR_PARITY;
		return NETOOPS_REASM_DUPLICATE;
	}

	h = netoops_dump_hash(src->key, src->key_len, pkt->boot_id, pkt->dump_id);
	pp = lookup(r, h, src->key, src->key_len, pkt->boot_id, pkt->dump_id);
	d = *pp;
	/* parity adds no data of its own: it joins a dump of either class */
	if (d && !pkt->is_parity) {
		rc = check_class(r, d, pkt, ret_reason);
		if (rc < 0)
			return rc;
		if (rc)
			d = NULL;
	}
	if (d && (d->pkt_count != pkt->pkt_count ||
		  d->payload_total != pkt->payload_total))
		return refuse(r, ret_reason, NETOOPS_ERR_MISMATCH, -EEXIST);
	if (d && d->done)
		return put_late(r, d, pkt, ret_reason);

	if (!d) {
		if (pkt->pkt_count > r->lim.max_pkts_per_dump)
			return refuse(r, ret_reason, NETOOPS_ERR_LIMIT_PACKETS,
				      -EMSGSIZE);
		if (pkt->payload_total > r->lim.max_bytes_per_dump)
			return refuse(r, ret_reason, NETOOPS_ERR_LIMIT_BYTES,
				      -EMSGSIZE);
		if (open_for_source(r, src->key, src->key_len) >=
		    r->lim.max_dumps_per_source)
			return refuse(r, ret_reason, NETOOPS_ERR_LIMIT_SOURCE,
				      -ENOSPC);
		a = addr_get(r, src->key, src->addr_len);
		if (!a)
			return refuse(r, ret_reason, NETOOPS_ERR_NOMEM,
				      -ENOMEM);
		cost = netoops_reasm_cost(pkt->pkt_count, pkt->payload_total);
		rc = make_room(r, pkt->verified ? AUTH : UNAUTH, a, cost,
			       ret_reason);
		d = rc < 0 ? NULL : new_dump(h, src->key, src->key_len, pkt,
					     now_ms, cost);
		if (!d) {
			addr_release(r, a);
			return rc < 0 ? rc : refuse(r, ret_reason,
						    NETOOPS_ERR_NOMEM,
						    -ENOMEM);
		}
		/* evictions may have changed the hash chain */
		pp = lookup(r, h, src->key, src->key_len, pkt->boot_id,
			    pkt->dump_id);
		d->hnext = NULL;
		*pp = d;
		attach(r, d, a);
		r->st.bytes_buffered += cost;
		r->cbytes[d->auth] += cost;
	}

	if (pkt->is_parity)
		rc = put_parity(r, d, pkt, now_ms, ret_reason);
	else
		rc = put_data(r, d, pkt, now_ms, ret_reason);
	if (rc != NETOOPS_REASM_ACCEPTED)
		return rc;
	d->deadline = now_ms + r->lim.timeout_ms;
	touch(r, d);

	if (d->fec && r->rebuild && d->received < d->pkt_count) {
		if (pkt->is_parity)
			g = &d->par[d->npar - 1];
		else
			g = group_of(d, pkt->pkt_index);
		if (g)
			try_group(r, d, g, now_ms);
	}
	if (d->received < d->pkt_count)
		return NETOOPS_REASM_ACCEPTED;

	*ret_done = hand_out(d);
	if (!*ret_done) {
		/* keep it open: a later packet or expiry retries */
		return refuse(r, ret_reason, NETOOPS_ERR_NOMEM, -ENOMEM);
	}
	detach(r, d);
	add_tomb(r, d, now_ms);
	r->st.completed++;
	return NETOOPS_REASM_COMPLETE;
}

static void drop_old_tombs(struct netoops_reasm *r, uint64_t now_ms)
{
	while (r->tombs.head && r->tombs.head->deadline <= now_ms)
		forget_tomb(r, r->tombs.head);
}

/* The open dump that expires first, of either class. */
static struct rdump *first_open(const struct netoops_reasm *r)
{
	struct rdump *u = r->open[UNAUTH].head, *a = r->open[AUTH].head;

	if (!u || !a)
		return u ?: a;
	return a->deadline < u->deadline ? a : u;
}

/* The counter of a partial dump to discard rather than hand out, or NULL. */
static uint64_t *junk(struct netoops_reasm *r, const struct rdump *d)
{
	uint64_t pct = r->lim.partial_min_pct;

	if (!pct)
		return NULL;
	/* its address went over budget while it was open */
	if (d->addr->over_until[d->auth] >= d->first_ms)
		return &r->st.over_budget;
	if (!d->received)
		return &r->st.scant;
	if (d->auth == UNAUTH &&
	    (!d->meta || (uint64_t)d->received * 100 < pct * d->pkt_count))
		return &r->st.scant;
	return NULL;
}

/* Hand out open dump @d as partial (1), or discard it (0); -ENOMEM. */
static int take(struct netoops_reasm *r, struct rdump *d,
		struct netoops_dump **ret)
{
	uint64_t *why = junk(r, d);

	if (why) {
		drop_open(r, d, why);
		return 0;
	}
	*ret = hand_out(d);
	if (!*ret)
		return -ENOMEM;
	drop_open(r, d, &r->st.expired);
	return 1;
}

int netoops_reasm_expire(struct netoops_reasm *r, uint64_t now_ms,
			 struct netoops_dump **ret)
{
	struct rdump *d;
	int rc;

	if (!r || !ret)
		return -EINVAL;
	*ret = NULL;
	if (now_ms > r->now)
		r->now = now_ms;
	drop_old_tombs(r, now_ms);
	drop_old_idle(r);
	while ((d = first_open(r)) && d->deadline <= now_ms) {
		rc = take(r, d, ret);
		if (rc)
			return rc;
	}
	return 0;
}

int netoops_reasm_flush(struct netoops_reasm *r, struct netoops_dump **ret)
{
	struct rdump *d;
	int rc;

	if (!r || !ret)
		return -EINVAL;
	*ret = NULL;
	while ((d = first_open(r))) {
		rc = take(r, d, ret);
		if (rc)
			return rc;
	}
	return 0;
}

uint64_t netoops_reasm_next_deadline(const struct netoops_reasm *r)
{
	const struct rdump *d = first_open(r);
	uint64_t t = UINT64_MAX;

	if (d)
		t = d->deadline;
	if (r->tombs.head && r->tombs.head->deadline < t)
		t = r->tombs.head->deadline;
	return t;
}
