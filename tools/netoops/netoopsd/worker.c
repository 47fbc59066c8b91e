// SPDX-License-Identifier: GPL-2.0
/*
 * netoopsd workers (decode, reassemble, expire, convert); the spool and
 * store threads are in spool.c.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "netoops_escape.h"
#include "netoopsd.h"
#include "store/spool.h"

#define RELAXED memory_order_relaxed
#define INC(x) atomic_fetch_add_explicit(&(x), 1, RELAXED)
#define LOAD(x) atomic_load_explicit(&(x), RELAXED)

/* ---- bounded pointer queues (worker -> finisher -> store) ----------- */

static int ptrq_init(struct ptrq *q, size_t cap, uint64_t max_bytes,
		     _Atomic uint64_t *gauge)
{
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->nonempty, NULL);
	pthread_cond_init(&q->room, NULL);
	q->cap = cap;
	q->max_bytes = max_bytes;
	q->gauge = gauge;
	q->items = calloc(cap, sizeof(*q->items));
	q->sizes = calloc(cap, sizeof(*q->sizes));
	return q->items && q->sizes ? 0 : -ENOMEM;
}

static void ptrq_free(struct ptrq *q)
{
	free(q->items);
	free(q->sizes);
	q->items = NULL;
	q->sizes = NULL;
}

/*
 * Back-pressure: waits while the queue is full by count or by bytes (an
 * item larger than max_bytes still goes in alone).  A slow disk slows the
 * finishers, which slow the workers, which leave datagrams in the socket
 * buffers; what overflows those is counted by the kernel (SO_RXQ_OVFL).
 */
void ptrq_push(struct ptrq *q, void *item, uint64_t bytes)
{
	size_t i;

	pthread_mutex_lock(&q->lock);
	while (q->len == q->cap ||
	       (q->len && q->bytes + bytes > q->max_bytes))
		pthread_cond_wait(&q->room, &q->lock);
	i = (q->head + q->len) % q->cap;
	q->items[i] = item;
	q->sizes[i] = bytes;
	q->len++;
	q->bytes += bytes;
	if (q->gauge)
		atomic_store_explicit(q->gauge, q->len, RELAXED);
	pthread_cond_signal(&q->nonempty);
	pthread_mutex_unlock(&q->lock);
}

/* Up to @max items; 0 only once the queue is closed and empty. */
size_t ptrq_take(struct ptrq *q, void **out, size_t max)
{
	size_t n = 0;

	pthread_mutex_lock(&q->lock);
	while (!q->len && !q->closed)
		pthread_cond_wait(&q->nonempty, &q->lock);
	while (q->len && n < max) {
		out[n++] = q->items[q->head];
		q->bytes -= q->sizes[q->head];
		q->head = (q->head + 1) % q->cap;
		q->len--;
	}
	if (q->gauge)
		atomic_store_explicit(q->gauge, q->len, RELAXED);
	pthread_cond_broadcast(&q->room);
	pthread_mutex_unlock(&q->lock);
	return n;
}

static void ptrq_close(struct ptrq *q)
{
	pthread_mutex_lock(&q->lock);
	q->closed = true;
	pthread_cond_broadcast(&q->nonempty);
	pthread_mutex_unlock(&q->lock);
}

/* ---- worker ---------------------------------------------------------- */

/*
 * The reassembler's source key: family (4 or 6), address, then the port
 * (--source-key addrport) or the boot_id (--source-key boot, the default:
 * each boot counts as one source for max_dumps_per_source, and a NAT that
 * changes the source port in the middle of a dump does not split it).
 * Starting with the address lets the record say where a dump came from.
 */
/* Key ring of --key options, for netoops_auth_check(). */
static int key_lookup(void *ctx, uint32_t key_id,
		      const struct netoops_packet *p, struct netoops_key *ret)
{
	const struct config *c = ctx;
	int i;

	(void)p;
	for (i = 0; i < c->nr_keys; i++)
		if (c->keys[i].id == key_id) {
			ret->key = c->keys[i].key;
			ret->key_len = c->keys[i].len;
			return 0;
		}
	return -ENOKEY;
}

/* A rebuilt datagram counts as verified only if its own MAC is. */
static int verify_rebuilt(void *ctx, struct netoops_packet *p)
{
	const struct config *c = ctx;

	return netoops_auth_verify(p, c->require_auth, key_lookup, ctx, NULL);
}

static size_t src_key(const struct daemon *d,
		      const struct sockaddr_storage *ss,
		      const struct netoops_packet *np, uint8_t *key)
{
	size_t n = 0;

	if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const void *)ss;

		key[n++] = 6;
		memcpy(key + n, &s6->sin6_addr, 16);
		n += 16;
		memcpy(key + n, &s6->sin6_port, 2);
	} else {
		const struct sockaddr_in *s4 = (const void *)ss;

		key[n++] = 4;
		memcpy(key + n, &s4->sin_addr, 4);
		n += 4;
		memcpy(key + n, &s4->sin_port, 2);
	}
	switch (d->cfg.src_key) {
	case SRC_KEY_ADDRPORT:
		return n + 2;
	case SRC_KEY_ADDR:
		return n;
	case SRC_KEY_BOOT:
	default:
		memcpy(key + n, np->boot_id, 16);
		return n + 16;
	}
}

static void key_to_src(const struct daemon *d, const struct netoops_dump *nd,
		       char *buf, size_t len)
{
	bool port = d->cfg.src_key == SRC_KEY_ADDRPORT;
	char a[INET6_ADDRSTRLEN];
	uint16_t pn = 0;

	if (nd->src_key_len >= 5 && nd->src_key[0] == 4) {
		inet_ntop(AF_INET, nd->src_key + 1, a, sizeof(a));
		if (port && nd->src_key_len >= 7)
			memcpy(&pn, nd->src_key + 5, 2);
	} else if (nd->src_key_len >= 17 && nd->src_key[0] == 6) {
		inet_ntop(AF_INET6, nd->src_key + 1, a, sizeof(a));
		if (port && nd->src_key_len >= 19)
			memcpy(&pn, nd->src_key + 17, 2);
	} else {
		snprintf(buf, len, "?");
		return;
	}
	if (!port)
		snprintf(buf, len, "%s", a);
	else if (nd->src_key[0] == 6)
		snprintf(buf, len, "[%s]:%u", a, ntohs(pn));
	else
		snprintf(buf, len, "%s:%u", a, ntohs(pn));
}

static const char *nd_host(const struct netoops_dump *nd)
{
	return nd->has_meta && nd->meta.hostname[0] ? nd->meta.hostname : NULL;
}

/*
 * The high-water mark of dumps held in memory: open in the reassemblers
 * (as of their last batch), waiting for a finisher, for the spool, or
 * held by the spool; for the RSS per dump of bench/collector.
 */
static void note_in_memory(struct daemon *d)
{
	uint64_t n = LOAD(d->sst.pending) + LOAD(d->sst.queued) +
		     LOAD(d->spst.held), max;
	int i;

	for (i = 0; i < d->cfg.workers; i++)
		n += LOAD(d->workers[i].st.open_dumps);
	max = LOAD(d->sst.in_memory_max);
	while (n > max &&
	       !atomic_compare_exchange_weak_explicit(&d->sst.in_memory_max,
						      &max, n, RELAXED,
						      RELAXED))
		;
}

/*
 * A finished dump (complete or partial) goes to the finishers, a partial
 * one with the datagrams kept of it (resume.c).
 */
static void finish_dump(struct worker *w, struct netoops_dump *nd)
{
	struct qdump *q;
	char name[160];

	if (nd->complete)
		INC(w->st.dumps_complete);
	else
		INC(w->st.dumps_partial);
	q = calloc(1, sizeof(*q));
	if (!q) {
		dump_name(name, sizeof(name), nd_host(nd), nd->boot_id,
			  nd->dump_id);
		fprintf(stderr, "netoopsd: out of memory: dump lost: %s\n",
			name);
		INC(w->d->sst.lost);
		q = &(struct qdump){ 0 };
		keep_take(w, nd, &q->dgrams, &q->dgrams_len);
		free(q->dgrams);
		netoops_dump_free(nd);
		return;
	}
	keep_take(w, nd, &q->dgrams, &q->dgrams_len);
	/* Packed, it waits in its payload's size (and a slab shared with
	 * others), not in an 11 KiB struct and the heap's pages; unpacked
	 * only if there is no memory for that.
	 */
	q->pd = netoops_dump_pack(w->pack, nd);
	if (q->pd) {
		netoops_dump_free(nd);
		ptrq_push(&w->d->dq, q,
			  netoops_packed_size(q->pd) + q->dgrams_len);
		note_in_memory(w->d);
		return;
	}
	q->nd = nd;
	ptrq_push(&w->d->dq, q, sizeof(*nd) + nd->payload_len + q->dgrams_len);
	note_in_memory(w->d);
}

static void process(struct worker *w, const uint8_t *buf, size_t len,
		    const struct sockaddr_storage *src, uint64_t now);

/*
 * The first datagram of a dump stored partial whose datagrams were kept
 * (resume.c): those go back into the reassembler first, so that the dump
 * carries on where it stopped.
 */
static void resume(struct worker *w, const struct netoops_packet *np,
		   const struct sockaddr_storage *src, uint64_t now)
{
	uint64_t before = atomic_load_explicit(&w->st.accepted, RELAXED);
	size_t len, off, n;
	uint8_t *buf;

	if (!resume_take(w->d, np->boot_id, np->dump_id, &buf, &len))
		return;
	w->replaying = true;
	for (off = 0; (n = nspool_dgram_len(buf + off, len - off)); off += n)
		process(w, buf + off, n, src, now);
	w->replaying = false;
	if (atomic_load_explicit(&w->st.accepted, RELAXED) == before)
		resume_release(w->d, np->boot_id, np->dump_id);
	free(buf);
}

static void process(struct worker *w, const uint8_t *buf, size_t len,
		    const struct sockaddr_storage *src, uint64_t now)
{
	struct daemon *d = w->d;
	struct netoops_packet np;
	struct netoops_dump *done = NULL;
	enum netoops_err why = NETOOPS_OK;
	uint8_t key[NETOOPS_SRC_KEY_MAX];
	size_t klen;
	int r;

	INC(w->st.packets);
	r = netoops_decode_packet(buf, len, &np);
	if (r < 0) {
		INC(w->st.dropped[np.err < NETOOPS_ERR__MAX ? np.err :
				  NETOOPS_ERR_INVALID]);
		return;
	}
	/* np.verified (cleared by decode) says whether a key verified it:
	 * the stored dump is authenticated only if all its datagrams were.
	 */
	if ((d->cfg.nr_keys || d->cfg.require_auth) &&
	    netoops_auth_verify(&np, d->cfg.require_auth, key_lookup, &d->cfg,
				&why)) {
		INC(w->st.dropped[why != NETOOPS_OK && why < NETOOPS_ERR__MAX ?
				  why : NETOOPS_ERR_INVALID]);
		return;
	}
	/* archived with the rest of the batch, by receive() */
	if (d->archive && !w->replaying)
		w->arch[w->narch++] = (struct iovec){ (void *)buf, len };
	if (!w->replaying)
		resume(w, &np, src, now);
	klen = src_key(d, src, &np, key);
	{
		/* family and IP, without the port: the per-address budget */
		struct netoops_src s = { key, klen, key[0] == 6 ? 17 : 5 };

		r = netoops_reasm_add_src(w->reasm, &s, &np, now, &done, &why);
	}
	if (r == NETOOPS_REASM_ACCEPTED) {
		INC(w->st.accepted);
		keep_datagram(w, key, klen, &np, now);
	} else if (r == NETOOPS_REASM_DUPLICATE) {
		if (why == NETOOPS_ERR_REPLAY && d->cfg.nr_keys)
			INC(w->st.dropped[why]);
		else
			INC(w->st.duplicates);
	} else if (r == NETOOPS_REASM_COMPLETE) {
		INC(w->st.accepted);
		finish_dump(w, done);
	} else {
		if (why == NETOOPS_OK || why >= NETOOPS_ERR__MAX)
			why = r == -ENOMEM ? NETOOPS_ERR_NOMEM :
					     NETOOPS_ERR_INVALID;
		INC(w->st.dropped[why]);
	}
}

static void update_gauges(struct worker *w)
{
	struct netoops_reasm_stats rs;

	netoops_reasm_get_stats(w->reasm, &rs);
	atomic_store_explicit(&w->st.open_dumps, rs.open_dumps, RELAXED);
	atomic_store_explicit(&w->st.bytes_buffered, rs.bytes_buffered,
			      RELAXED);
	atomic_store_explicit(&w->st.fec_rebuilt, rs.fec_rebuilt, RELAXED);
	atomic_store_explicit(&w->st.fec_failed, rs.fec_failed, RELAXED);
	atomic_store_explicit(&w->st.dumps_evicted, rs.evicted, RELAXED);
	atomic_store_explicit(&w->st.dumps_over_budget, rs.over_budget,
			      RELAXED);
	atomic_store_explicit(&w->st.dumps_scant, rs.scant, RELAXED);
	atomic_store_explicit(&w->st.dumps_displaced, rs.displaced, RELAXED);
}

#define BATCH	64	/* datagrams per recvmmsg() */

struct rxbuf {
	struct mmsghdr msgs[BATCH];
	struct iovec iov[BATCH];
	struct sockaddr_storage srcs[BATCH];
	union {
		char buf[CMSG_SPACE(sizeof(uint32_t))];
		struct cmsghdr align;
	} ctl[BATCH];
	uint8_t *data;		/* BATCH * max_packet bytes */
};

/* One recvmmsg() batch from socket @idx, processed in place.  Returns its
 * size.
 */
static int receive(struct worker *w, int idx, struct rxbuf *rx, int flags)
{
	int fd = w->fds[idx];
	size_t bufsz = w->d->cfg.max_packet;
	uint64_t now, bytes = 0;
	int i, n;

	for (i = 0; i < BATCH; i++) {
		rx->iov[i].iov_base = rx->data + i * bufsz;
		rx->iov[i].iov_len = bufsz;
		memset(&rx->msgs[i].msg_hdr, 0, sizeof(rx->msgs[i].msg_hdr));
		rx->msgs[i].msg_hdr.msg_iov = &rx->iov[i];
		rx->msgs[i].msg_hdr.msg_iovlen = 1;
		rx->msgs[i].msg_hdr.msg_name = &rx->srcs[i];
		rx->msgs[i].msg_hdr.msg_namelen = sizeof(rx->srcs[i]);
		rx->msgs[i].msg_hdr.msg_control = rx->ctl[i].buf;
		rx->msgs[i].msg_hdr.msg_controllen = sizeof(rx->ctl[i].buf);
	}
	n = recvmmsg(fd, rx->msgs, BATCH, flags, NULL);
	if (n <= 0) {
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			fprintf(stderr, "netoopsd: recvmmsg: %m\n");
		return 0;
	}
	now = mono_ms();
	for (i = 0; i < n; i++) {
		struct msghdr *mh = &rx->msgs[i].msg_hdr;
		struct cmsghdr *cm;

		for (cm = CMSG_FIRSTHDR(mh); cm; cm = CMSG_NXTHDR(mh, cm)) {
			uint32_t drops;

			if (cm->cmsg_level != SOL_SOCKET ||
			    cm->cmsg_type != SO_RXQ_OVFL)
				continue;
			memcpy(&drops, CMSG_DATA(cm), sizeof(drops));
			atomic_store_explicit(&w->st.kernel_drops[idx], drops,
					      RELAXED);
		}
		if (mh->msg_flags & MSG_TRUNC)
			INC(w->st.dropped[DROP_OVERSIZED]);
		else
			process(w, rx->iov[i].iov_base, rx->msgs[i].msg_len,
				&rx->srcs[i], now);
		bytes += rx->msgs[i].msg_len;
	}
	/* The valid datagrams of the batch in one write, then counted as
	 * received: a datagram counted as received is in the --archive,
	 * even if netoopsd is killed.
	 */
	if (w->narch)
		archive_write(w->d, w->arch, w->narch);
	w->narch = 0;
	atomic_fetch_add_explicit(&w->st.received, n, RELAXED);
	atomic_fetch_add_explicit(&w->st.bytes, bytes, RELAXED);
	atomic_store_explicit(&w->st.last_ms, wall_ms(), RELAXED);
	return n;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct daemon *d = w->d;
	struct pollfd pfd[MAX_LISTEN_ADDRS];
	struct netoops_dump *nd;
	static __thread struct rxbuf rx;
	uint64_t now;
	bool stopping = false;
	int i, n, got;

	pthread_setname_np(pthread_self(), "netoopsd-rx");
	rx.data = malloc((size_t)BATCH * d->cfg.max_packet);
	w->arch = calloc(BATCH, sizeof(*w->arch));
	if (!rx.data || !w->arch) {
		fprintf(stderr, "netoopsd: worker: out of memory\n");
		exit(1);
	}
	for (i = 0; i < w->nfds; i++) {
		pfd[i].fd = w->fds[i];
		pfd[i].events = POLLIN;
	}
	for (;;) {
		if (w->nfds == 1 && !stopping) {
			/* Waits in the kernel, at most SO_RCVTIMEO. */
			receive(w, 0, &rx, MSG_WAITFORONE);
		} else {
			/* Several sockets, or the last pass before stopping:
			 * read while there is something, then wait in poll().
			 */
			do {
				got = 0;
				for (i = 0; i < w->nfds; i++)
					got += receive(w, i, &rx,
						       MSG_DONTWAIT);
			} while (got);
			if (!stopping) {
				n = poll(pfd, w->nfds, 50);
				if (n < 0 && errno != EINTR)
					fprintf(stderr, "netoopsd: poll: %m\n");
			}
		}
		now = mono_ms();
		if (netoops_reasm_next_deadline(w->reasm) <= now) {
			while (netoops_reasm_expire(w->reasm, now, &nd) == 1)
				finish_dump(w, nd);
		}
		update_gauges(w);
		if (stopping)
			break;
		/* Once told to stop, one more pass takes what the sockets
		 * hold; then whatever is open is stored as partial.
		 */
		if (atomic_load(&d->stop))
			stopping = true;
	}
	while (netoops_reasm_flush(w->reasm, &nd) == 1)
		finish_dump(w, nd);
	update_gauges(w);
	free(rx.data);
	free(w->arch);
	w->arch = NULL;
	return NULL;
}

int workers_start(struct daemon *d)
{
	struct netoops_reasm_limits lim = d->cfg.limits;
	int i, r;

	/* like --max-open-dumps: a worker sees its share of each address */
	if (lim.max_dumps_per_addr)
		lim.max_dumps_per_addr = (lim.max_dumps_per_addr +
					  d->cfg.workers - 1) / d->cfg.workers;
	for (i = 0; i < d->cfg.workers; i++) {
		struct worker *w = &d->workers[i];

		w->d = d;
		w->idx = i;
		r = netoops_reasm_new(&lim, &w->reasm);
		if (r < 0)
			return r;
		r = netoops_pack_arena_new(&w->pack);
		if (r < 0)
			return r;
		/* the receive thread packs; page faults are the filler's */
		r = netoops_pack_arena_prefault(w->pack);
		if (r < 0)
			return r;
		/* rebuild lost datagrams from parity; check rebuilt MACs */
		netoops_reasm_enable_fec(w->reasm);
		if (d->cfg.nr_keys)
			netoops_reasm_set_verify(w->reasm, verify_rebuilt,
						 &d->cfg);
	}
	for (i = 0; i < d->cfg.workers; i++) {
		r = pthread_create(&d->workers[i].thread, NULL, worker_main,
				   &d->workers[i]);
		if (r)
			return -r;
	}
	return 0;
}

/* Workers drain their sockets, store open dumps as partial, and exit. */
void workers_stop(struct daemon *d)
{
	int i;

	atomic_store(&d->stop, true);
	for (i = 0; i < d->cfg.workers; i++) {
		pthread_join(d->workers[i].thread, NULL);
		netoops_reasm_free(d->workers[i].reasm);
		d->workers[i].reasm = NULL;
	}
}

/* ---- finishers ------------------------------------------------------ */

static void lower_priority(struct daemon *d)
{
	/* Linux: a thread's nice value is its own. */
	if (d->cfg.finish_nice)
		setpriority(PRIO_PROCESS, gettid(), d->cfg.finish_nice);
}

/* Done with the dump of @q, packed or not. */
static void put_dump(struct qdump *q)
{
	if (q->pd)
		netoops_packed_release(q->pd);
	else
		netoops_dump_free(q->nd);
	q->pd = NULL;
	q->nd = NULL;
}

static void *finisher_main(void *arg)
{
	struct daemon *d = arg;
	struct netoops_dump *nd, *view;
	struct nstore_dump *rec;
	struct qdump *q;
	void *items[16];
	size_t n, i;
	char buf[160];
	int perr, r;

	pthread_setname_np(pthread_self(), "netoopsd-fin");
	lower_priority(d);
	/* packed dumps are unpacked here; their payload stays in place */
	view = malloc(sizeof(*view));
	if (!view) {
		fprintf(stderr, "netoopsd: finisher: out of memory\n");
		exit(1);
	}
	while ((n = ptrq_take(&d->dq, items, 16)) > 0) {
		for (i = 0; i < n; i++) {
			uint64_t now_mono = mono_ms();
			int64_t first_wall;

			q = items[i];
			nd = q->pd ? netoops_dump_unpack(q->pd, view) : q->nd;
			first_wall = (int64_t)wall_ms() -
				     (int64_t)(now_mono - nd->first_ms);
			perr = 0;
			r = nstore_record_from_dump(nd, first_wall, &rec,
						    &perr);
			if (r < 0) {
				dump_name(buf, sizeof(buf), nd_host(nd),
					  nd->boot_id, nd->dump_id);
				fprintf(stderr, "netoopsd: cannot convert"
					" dump: %s: dump lost: %s\n",
					strerror(-r), buf);
				INC(d->sst.lost);
				put_dump(q);
				free(q->dgrams);
				free(q);
				continue;
			}
			if (perr)
				INC(d->sst.payload_errors);
			key_to_src(d, nd, buf, sizeof(buf));
			rec->src = strdup(buf);
			rec->collectors = strdup(d->cfg.name);
			rec->stored_ms = wall_ms();
			put_dump(q);
			/* The store keeps the compressed payload when there
			 * is one: the text was only needed for the signature.
			 */
			if (rec->log_z) {
				free(rec->log);
				rec->log = NULL;
			}
			q->rec = rec;
			ptrq_push(&d->rq, q, (rec->log_z ? rec->log_z_len :
					      rec->log_len) + q->dgrams_len);
		}
	}
	free(view);
	return NULL;
}

/* Finishers, then the spool and store threads (spool.c). */
int store_start(struct daemon *d)
{
	int i, r;

	r = ptrq_init(&d->dq, 1u << 20, d->cfg.pending_bytes,
		      &d->sst.pending);
	if (!r)
		r = ptrq_init(&d->rq, d->cfg.store_queue, d->cfg.pending_bytes,
			      &d->sst.queued);
	if (!r)
		r = spool_start(d);
	if (r)
		return r;
	for (i = 0; i < d->cfg.finishers; i++) {
		r = pthread_create(&d->finishers[i], NULL, finisher_main, d);
		if (r)
			return -r;
	}
	return 0;
}

/* Call after workers_stop(): finishes, spools and commits what is queued. */
void store_stop(struct daemon *d)
{
	int i;

	ptrq_close(&d->dq);
	for (i = 0; i < d->cfg.finishers; i++)
		pthread_join(d->finishers[i], NULL);
	ptrq_close(&d->rq);
	spool_stop(d);
	ptrq_free(&d->dq);
	ptrq_free(&d->rq);
	for (i = 0; i < d->cfg.workers; i++) {
		keeper_free(d->workers[i].keep);
		d->workers[i].keep = NULL;
		/* every packed dump is released: the finishers are done */
		netoops_pack_arena_free(d->workers[i].pack);
		d->workers[i].pack = NULL;
	}
}
