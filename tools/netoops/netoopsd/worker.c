// SPDX-License-Identifier: GPL-2.0
/*
 * netoopsd workers (decode, reassemble, expire, convert) and the store
 * thread (batched transactions).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "netoopsd.h"

#define RELAXED memory_order_relaxed
#define INC(x) atomic_fetch_add_explicit(&(x), 1, RELAXED)

/* ---- listener -> worker queue ---------------------------------------- */

void pktq_push_list(struct daemon *d, struct worker *w, struct pkt *head,
		    struct pkt *tail, uint64_t bytes)
{
	struct pktq *q = &w->q;

	pthread_mutex_lock(&q->lock);
	/*
	 * Back-pressure: wait while the worker is behind.  Datagrams then
	 * wait in the socket buffer, and what overflows it is counted by the
	 * kernel (SO_RXQ_OVFL, netoops_kernel_drops_total).
	 */
	while (q->bytes > d->cfg.queue_bytes && !q->closed)
		pthread_cond_wait(&q->room, &q->lock);
	if (q->tail)
		q->tail->next = head;
	else
		q->head = head;
	q->tail = tail;
	q->bytes += bytes;
	atomic_store_explicit(&w->st.queue_bytes, q->bytes, RELAXED);
	pthread_cond_signal(&q->nonempty);
	pthread_mutex_unlock(&q->lock);
}

/* Takes the whole queue; waits until @deadline_ms (monotonic) at most. */
static struct pkt *pktq_take(struct worker *w, uint64_t deadline_ms,
			     bool *closed)
{
	struct pktq *q = &w->q;
	struct pkt *p;

	pthread_mutex_lock(&q->lock);
	while (!q->head && !q->closed) {
		struct timespec ts;
		uint64_t now = mono_ms();

		if (deadline_ms <= now)
			break;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		if (deadline_ms - now > 1000)
			deadline_ms = now + 1000;
		ts.tv_sec += (deadline_ms - now) / 1000;
		ts.tv_nsec += (deadline_ms - now) % 1000 * 1000000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&q->nonempty, &q->lock, &ts);
	}
	p = q->head;
	q->head = q->tail = NULL;
	q->bytes = 0;
	*closed = q->closed;
	atomic_store_explicit(&w->st.queue_bytes, 0, RELAXED);
	pthread_cond_broadcast(&q->room);
	pthread_mutex_unlock(&q->lock);
	return p;
}

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
static void ptrq_push(struct ptrq *q, void *item, uint64_t bytes)
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
static size_t ptrq_take(struct ptrq *q, void **out, size_t max)
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
static size_t src_key(const struct daemon *d, const struct pkt *p,
		      const struct netoops_packet *np, uint8_t *key)
{
	const struct sockaddr_storage *ss = &p->src;
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

/* A finished dump (complete or partial) goes to the finishers. */
static void finish_dump(struct worker *w, struct netoops_dump *nd)
{
	if (nd->complete)
		INC(w->st.dumps_complete);
	else
		INC(w->st.dumps_partial);
	ptrq_push(&w->d->dq, nd, sizeof(*nd) + nd->payload_len);
}

static void process(struct worker *w, struct pkt *p)
{
	struct daemon *d = w->d;
	struct netoops_packet np;
	struct netoops_dump *done = NULL;
	enum netoops_err why = NETOOPS_OK;
	uint8_t key[NETOOPS_SRC_KEY_MAX];
	size_t klen;
	int r;

	INC(w->st.packets);
	r = netoops_decode_packet(p->data, p->len, &np);
	if (r < 0) {
		INC(w->st.dropped[np.err < NETOOPS_ERR__MAX ? np.err :
				  NETOOPS_ERR_INVALID]);
		return;
	}
	if (d->archive) {
		pthread_mutex_lock(&d->archive_lock);
		fwrite(p->data, 1, p->len, d->archive);
		pthread_mutex_unlock(&d->archive_lock);
	}
	klen = src_key(d, p, &np, key);
	r = netoops_reasm_add(w->reasm, key, klen, &np, p->recv_ms, &done,
			      &why);
	if (r == NETOOPS_REASM_ACCEPTED) {
		INC(w->st.accepted);
	} else if (r == NETOOPS_REASM_DUPLICATE) {
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
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct netoops_dump *nd;
	bool closed = false;
	struct pkt *p, *next;
	uint64_t deadline;

	while (!closed) {
		deadline = netoops_reasm_next_deadline(w->reasm);
		p = pktq_take(w, deadline == UINT64_MAX ? mono_ms() + 1000 :
				 deadline, &closed);
		for (; p; p = next) {
			next = p->next;
			process(w, p);
			free(p);
			if (!next)	/* time of the last packet handled */
				atomic_store_explicit(&w->st.last_ms,
						      wall_ms(), RELAXED);
		}
		while (netoops_reasm_expire(w->reasm, mono_ms(), &nd) == 1)
			finish_dump(w, nd);
		update_gauges(w);
	}
	/* Shutdown: everything still open is stored as partial. */
	while (netoops_reasm_flush(w->reasm, &nd) == 1)
		finish_dump(w, nd);
	update_gauges(w);
	return NULL;
}

int workers_start(struct daemon *d)
{
	struct netoops_reasm_limits lim = d->cfg.limits;
	int i, r;

	for (i = 0; i < d->cfg.workers; i++) {
		struct worker *w = &d->workers[i];

		w->d = d;
		w->idx = i;
		pthread_mutex_init(&w->q.lock, NULL);
		pthread_cond_init(&w->q.nonempty, NULL);
		pthread_cond_init(&w->q.room, NULL);
		r = netoops_reasm_new(&lim, &w->reasm);
		if (r < 0)
			return r;
	}
	for (i = 0; i < d->cfg.workers; i++) {
		r = pthread_create(&d->workers[i].thread, NULL, worker_main,
				   &d->workers[i]);
		if (r)
			return -r;
	}
	return 0;
}

/* Call after the listeners are joined: nothing will be queued any more. */
void workers_stop(struct daemon *d)
{
	int i;

	for (i = 0; i < d->cfg.workers; i++) {
		struct pktq *q = &d->workers[i].q;

		pthread_mutex_lock(&q->lock);
		q->closed = true;
		pthread_cond_broadcast(&q->nonempty);
		pthread_cond_broadcast(&q->room);
		pthread_mutex_unlock(&q->lock);
	}
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

static void *finisher_main(void *arg)
{
	struct daemon *d = arg;
	struct netoops_dump *nd;
	struct nstore_dump *rec;
	void *items[16];
	size_t n, i;
	char buf[80];
	int perr, r;

	lower_priority(d);
	while ((n = ptrq_take(&d->dq, items, 16)) > 0) {
		for (i = 0; i < n; i++) {
			uint64_t now_mono = mono_ms();
			int64_t first_wall;

			nd = items[i];
			first_wall = (int64_t)wall_ms() -
				     (int64_t)(now_mono - nd->first_ms);
			perr = 0;
			r = nstore_record_from_dump(nd, first_wall, &rec,
						    &perr);
			if (r < 0) {
				fprintf(stderr, "netoopsd: cannot convert"
					" dump: %s\n", strerror(-r));
				INC(d->sst.lost);
				netoops_dump_free(nd);
				continue;
			}
			if (perr)
				INC(d->sst.payload_errors);
			key_to_src(d, nd, buf, sizeof(buf));
			rec->src = strdup(buf);
			rec->stored_ms = wall_ms();
			netoops_dump_free(nd);
			/* The store keeps the compressed payload when there
			 * is one: the text was only needed for the signature.
			 */
			if (rec->log_z) {
				free(rec->log);
				rec->log = NULL;
			}
			ptrq_push(&d->rq, rec, rec->log_z ? rec->log_z_len :
						rec->log_len);
		}
	}
	return NULL;
}

/* ---- store thread ---------------------------------------------------- */

/* Upper bounds (µs) of the store latency histogram, see metrics.c. */
const uint64_t store_lat_bounds[8] = {
	1000, 5000, 10000, 50000, 100000, 500000, 1000000, 5000000
};

static void *store_main(void *arg)
{
	struct daemon *d = arg;
	struct nstore_dump **batch;
	size_t n, i, dups;
	uint64_t t0, us, max;
	struct timespec a, b;
	int r, k;

	batch = calloc(d->cfg.batch, sizeof(*batch));
	if (!batch) {
		fprintf(stderr, "netoopsd: store: out of memory\n");
		exit(1);
	}
	lower_priority(d);
	while ((n = ptrq_take(&d->rq, (void **)batch, d->cfg.batch)) > 0) {
		clock_gettime(CLOCK_MONOTONIC, &a);
		dups = 0;
		r = nstore_put(d->store, batch, n, &dups);
		if (r == -EBUSY)	/* a long CLI read: try once more */
			r = nstore_put(d->store, batch, n, &dups);
		clock_gettime(CLOCK_MONOTONIC, &b);
		us = (b.tv_sec - a.tv_sec) * 1000000ull +
		     (b.tv_nsec - a.tv_nsec) / 1000;
		if (r < 0) {
			fprintf(stderr, "netoopsd: store: cannot write %zu"
				" dumps: %s\n", n, strerror(-r));
			INC(d->sst.errors);
			atomic_fetch_add_explicit(&d->sst.lost, n, RELAXED);
		} else {
			atomic_fetch_add_explicit(&d->sst.stored, n - dups,
						  RELAXED);
			atomic_fetch_add_explicit(&d->sst.duplicates, dups,
						  RELAXED);
			t0 = wall_ms();
			atomic_store_explicit(&d->sst.last_commit_ms, t0,
					      RELAXED);
		}
		INC(d->sst.batches);
		atomic_fetch_add_explicit(&d->sst.latency_us_sum, us, RELAXED);
		max = atomic_load_explicit(&d->sst.latency_us_max, RELAXED);
		if (us > max)
			atomic_store_explicit(&d->sst.latency_us_max, us,
					      RELAXED);
		for (k = 0; k < 8; k++)
			if (us <= store_lat_bounds[k])
				INC(d->sst.lat_bucket[k]);
		for (i = 0; i < n; i++) {
			if (d->cfg.verbose && r == 0) {
				char boot[33];

				nstore_boot_id_hex(batch[i]->boot_id, boot);
				fprintf(stderr, "netoopsd: stored #%lld %s/%llu"
					" %s %s%s\n", (long long)batch[i]->id,
					boot,
					(unsigned long long)batch[i]->dump_id,
					batch[i]->hostname ?: "?",
					batch[i]->complete ? "complete" :
							     "partial",
					batch[i]->id ? "" : " (duplicate)");
			}
			nstore_dump_free(batch[i]);
		}
	}
	free(batch);
	return NULL;
}

int store_start(struct daemon *d)
{
	int i, r;

	r = ptrq_init(&d->dq, 1u << 20, d->cfg.pending_bytes,
		      &d->sst.pending);
	if (!r)
		r = ptrq_init(&d->rq, d->cfg.store_queue, UINT64_MAX,
			      &d->sst.queued);
	if (r)
		return r;
	r = pthread_create(&d->store_thread, NULL, store_main, d);
	if (r)
		return -r;
	for (i = 0; i < d->cfg.finishers; i++) {
		r = pthread_create(&d->finishers[i], NULL, finisher_main, d);
		if (r)
			return -r;
	}
	return 0;
}

/* Call after workers_stop(): finishes and commits what is queued. */
void store_stop(struct daemon *d)
{
	int i;

	ptrq_close(&d->dq);
	for (i = 0; i < d->cfg.finishers; i++)
		pthread_join(d->finishers[i], NULL);
	ptrq_close(&d->rq);
	pthread_join(d->store_thread, NULL);
	ptrq_free(&d->dq);
	ptrq_free(&d->rq);
}
