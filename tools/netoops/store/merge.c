// SPDX-License-Identifier: GPL-2.0
/*
 * Merging partial copies of one dump: several collectors that each got
 * part of a dump's datagrams put their partial copies with those datagrams
 * (nstore_dump.pieces); the store rebuilds the dump from the union with
 * the decoder library, the same reassembler, inflation and signature code
 * netoopsd uses, so a dump rebuilt here is what one collector would have
 * stored had it received every datagram any of them did.
 *
 * Safety (see struct nstore_ops): copies of different classes are never
 * merged; the datagrams of an authenticated copy count as verified only
 * when they carry a MAC of the row's key id (the collector that put them
 * verified that MAC; the store has no keys to check it again), and a
 * datagram rebuilt from parity is not taken for an authenticated row (its
 * MAC could not be verified).  Datagrams of the stored copy are fed first:
 * on any contradiction the stored bytes stay.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "netoops_decode.h"
#include "record.h"
#include "spool.h"
#include "store.h"
#include "store_enc.h"

/* Bounds on what a merge rebuilds: the collectors' defaults, and more. */
#define MERGE_MAX_PKTS		(8 * NETOOPS_REASM_DEF_PKTS)
#define MERGE_MAX_BYTES		(16u << 20)

struct feed {
	struct netoops_reasm *r;
	const struct nstore_dump *d;	/* boot_id, dump_id to match */
	bool auth;			/* the row's class */
	uint32_t key_id;
	struct netoops_dump *done;	/* handed out complete */
	uint32_t conflicts;		/* datagrams left out as contradictory */
	bool added;			/* a datagram of the new copy was new */
	uint8_t *keep;			/* the union's datagrams */
	size_t keep_len, keep_cap;
};

static int keep_dgram(struct feed *f, const uint8_t *p, size_t n)
{
	uint8_t *b;
	size_t cap;

	if (n > f->keep_cap - f->keep_len) {
		cap = f->keep_cap ? f->keep_cap : 4096;
		while (cap - f->keep_len < n)
			cap *= 2;
		b = realloc(f->keep, cap);
		if (!b)
			return -ENOMEM;
		f->keep = b;
		f->keep_cap = cap;
	}
	memcpy(f->keep + f->keep_len, p, n);
	f->keep_len += n;
	return 0;
}

/* One copy's datagrams into the reassembler; @new: the copy being put. */
static int feed(struct feed *f, const uint8_t *buf, size_t len, bool new)
{
	struct netoops_dump *done;
	struct netoops_packet np;
	enum netoops_err why;
	size_t off, n;
	int r;

	for (off = 0; (n = nspool_dgram_len(buf + off, len - off)); off += n) {
		if (netoops_decode_packet(buf + off, n, &np) < 0 ||
		    memcmp(np.boot_id, f->d->boot_id, 16) ||
		    np.dump_id != f->d->dump_id || np.is_parity)
			continue;
		if (f->auth) {
			if (!np.has_mac || np.key_id != f->key_id)
				continue;
			np.verified = true;
		}
		done = NULL;
		r = netoops_reasm_add(f->r, NULL, 0, &np, 0, &done, &why);
		if (r == NETOOPS_REASM_COMPLETE)
			f->done = done;
		if (r == NETOOPS_REASM_ACCEPTED ||
		    r == NETOOPS_REASM_COMPLETE) {
			f->added |= new;
			r = keep_dgram(f, buf + off, n);
			if (r)
				return r;
		} else if (r == -ENOMEM) {
			return r;
		} else if (r < 0 && (why == NETOOPS_ERR_CONFLICT ||
				     why == NETOOPS_ERR_MISMATCH)) {
			f->conflicts++;
		}
	}
	return 0;
}

/*
 * The dump rebuilt from the union of @h's and @d's datagrams, into
 * *@ret (NULL when it cannot be: nothing decodes, or the result is not of
 * the row's class); *@ret_added: @d brought a datagram @h lacked.
 */
static int rebuild(const struct nstore_held *h, const struct nstore_dump *d,
		   struct nstore_dump **ret, uint32_t *ret_conflicts,
		   bool *ret_added)
{
	struct netoops_reasm_limits lim = {
		.max_pkts_per_dump = MERGE_MAX_PKTS,
		.max_bytes_per_dump = MERGE_MAX_BYTES,
		.max_bytes_total = 4ull * MERGE_MAX_BYTES,
	};
	struct feed f = {
		.d = d, .auth = h->authenticated, .key_id = h->auth_key_id,
	};
	struct netoops_dump *nd = NULL;
	struct nstore_dump *m = NULL;
	int r;

	*ret = NULL;
	*ret_conflicts = 0;
	*ret_added = false;
	r = netoops_reasm_new(&lim, &f.r);
	if (r)
		return r;
	r = feed(&f, h->pieces, h->pieces_len, false);
	if (!r)
		r = feed(&f, d->pieces, d->pieces_len, true);
	if (r)
		goto out;
	*ret_conflicts = f.conflicts;
	*ret_added = f.added;
	nd = f.done;
	f.done = NULL;
	if (!nd && netoops_reasm_flush(f.r, &nd) < 0) {
		r = -ENOMEM;
		goto out;
	}
	if (!nd || nd->authenticated != h->authenticated ||
	    (nd->authenticated && nd->auth_key_id != h->auth_key_id))
		goto out;
	r = nstore_record_from_dump(nd, h->received_ms < d->received_ms ?
				    h->received_ms : d->received_ms, &m,
				    NULL);
	if (r)
		goto out;
	if (h->src || d->src) {
		m->src = strdup(h->src ? h->src : d->src);
		if (!m->src) {
			r = -ENOMEM;
			goto out;
		}
	}
	m->stored_ms = d->stored_ms;
	if (!m->complete) {
		m->pieces = f.keep;
		m->pieces_len = f.keep_len;
		f.keep = NULL;
	}
	*ret = m;
	m = NULL;
out:
	nstore_dump_free(m);
	netoops_dump_free(nd);
	netoops_dump_free(f.done);
	netoops_reasm_free(f.r);
	free(f.keep);
	return r;
}

/* The rule of struct nstore_ops: whether @w replaces the stored @h. */
static bool beats(const struct nstore_dump *w, const struct nstore_held *h)
{
	if (w->authenticated && !h->authenticated)
		return true;
	if (w->authenticated != h->authenticated ||
	    (w->authenticated && w->auth_key_id != h->auth_key_id))
		return false;
	if (w->complete != h->complete)
		return w->complete;
	return w->pkt_received > h->pkt_received;
}

/* Whether the list @list (',' separated) holds @name. */
static bool listed(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *p, *e;

	for (p = list; p && *p; p = *e ? e + 1 : e) {
		e = strchrnul(p, ',');
		if ((size_t)(e - p) == n && !strncmp(p, name, n))
			return true;
	}
	return false;
}

/* @a with the names of @b it lacks; NULL only when both are NULL. */
static int union_names(const char *a, const char *b, char **ret)
{
	const char *p, *e;
	size_t len = 0;
	char *out, name[256];

	*ret = NULL;
	if (!a && !b)
		return 0;
	out = malloc((a ? strlen(a) : 0) + (b ? strlen(b) : 0) + 2);
	if (!out)
		return -ENOMEM;
	out[0] = 0;
	if (a) {
		strcpy(out, a);
		len = strlen(a);
	}
	for (p = b; p && *p; p = *e ? e + 1 : e) {
		e = strchrnul(p, ',');
		if (e == p || (size_t)(e - p) >= sizeof(name))
			continue;
		memcpy(name, p, e - p);
		name[e - p] = 0;
		if (listed(out, name))
			continue;
		len += sprintf(out + len, "%s%s", len ? "," : "", name);
	}
	*ret = out;
	return 0;
}

static bool mergeable(const struct nstore_held *h,
		      const struct nstore_dump *d)
{
	return !h->complete && !d->complete && h->pieces && h->pieces_len &&
	       d->pieces && d->pieces_len &&
	       h->authenticated == d->authenticated &&
	       (!d->authenticated || h->auth_key_id == d->auth_key_id);
}

int nstore_plan_put(const struct nstore_held *h, struct nstore_dump *d,
		    struct nstore_plan *ret)
{
	struct nstore_dump *m = NULL;
	uint32_t conflicts = 0;
	bool added = false;
	int r;

	memset(ret, 0, sizeof(*ret));
	ret->w = d;
	d->merged = false;
	if (!h) {
		ret->wins = true;
		return union_names(d->collectors, NULL, &ret->collectors);
	}
	ret->conflicts = h->conflicts;
	if (mergeable(h, d)) {
		r = rebuild(h, d, &m, &conflicts, &added);
		if (r)
			return r;
		ret->conflicts += conflicts;
	}
	if (m && added && beats(m, h) &&
	    (m->complete || m->pkt_received >= d->pkt_received)) {
		ret->rebuilt = m;
		ret->w = m;
		ret->wins = true;
		d->merged = true;
		return union_names(h->collectors, d->collectors,
				   &ret->collectors);
	}
	nstore_dump_free(m);
	ret->wins = beats(d, h);
	if (ret->wins)
		return union_names(d->collectors, NULL, &ret->collectors);
	return 0;
}

void nstore_plan_free(struct nstore_plan *p)
{
	nstore_dump_free(p->rebuilt);
	free(p->collectors);
	p->rebuilt = NULL;
	p->collectors = NULL;
}
