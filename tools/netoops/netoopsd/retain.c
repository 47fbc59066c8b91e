// SPDX-License-Identifier: GPL-2.0
/*
 * Retention: a thread with a store connection of its own deletes the
 * oldest dumps (nstore_prune()): those received more than --retain-days
 * ago, every --retain-interval seconds, and, while the store's files take
 * more than --max-store-bytes, the oldest until they fit.  The size is
 * looked at every second (three stat() calls), so a limit passed is acted
 * on within about a second.  Its transactions are short: the store thread
 * waits for one at most (busy timeout), and a failure is retried at the
 * next look.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "netoopsd.h"

#define RETAIN_LOOK_MS	1000	/* between two looks at the size */

struct retain {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;		/* signalled to stop */
	bool stopping;			/* protected by lock */
	struct nstore *store;		/* this thread's connection */
	char *path;			/* database file, for stat() */
	_Atomic uint64_t by_age;	/* dumps deleted, for the metrics */
	_Atomic uint64_t by_size;
};

static void prune_now(struct daemon *d, bool by_age)
{
	struct retain *rt = d->retain;
	struct nstore_prune p = { 0 };
	struct nstore_prune_result res;
	int r;

	if (by_age && d->cfg.retain_days)
		p.before_ms = (int64_t)wall_ms() -
			      (int64_t)d->cfg.retain_days * 86400000;
	if (d->cfg.max_store_bytes)
		p.max_bytes = d->cfg.max_store_bytes;
	if (!rt->store) {
		r = nstore_open(d->cfg.db, d->cfg.sync_normal ?
				NSTORE_SYNC_NORMAL : 0, &rt->store);
		if (r < 0)
			return;		/* the store thread says why */
	}
	r = nstore_prune(rt->store, &p, NULL, NULL, &res);
	atomic_fetch_add(&rt->by_age, res.by_age);
	atomic_fetch_add(&rt->by_size, res.by_size);
	if (r < 0)
		fprintf(stderr, "netoopsd: retention: %s (%ld dumps deleted"
			" before)\n", strerror(-r), res.by_age + res.by_size);
	if (res.by_age || res.by_size)
		fprintf(stderr, "netoopsd: retention: deleted %ld dumps"
			" older than %u days and %ld for --max-store-bytes;"
			" store %lld -> %lld bytes\n", res.by_age,
			d->cfg.retain_days, res.by_size,
			(long long)res.bytes_before,
			(long long)res.bytes_after);
}

static void *retain_main(void *arg)
{
	struct daemon *d = arg;
	struct retain *rt = d->retain;
	uint64_t next_age = 0, now;
	struct timespec ts;
	bool over;

	pthread_setname_np(pthread_self(), "netoopsd-retain");
	pthread_mutex_lock(&rt->lock);
	while (!rt->stopping) {
		pthread_mutex_unlock(&rt->lock);
		now = mono_ms();
		over = d->cfg.max_store_bytes &&
		       nstore_file_bytes(rt->path) >
		       (int64_t)d->cfg.max_store_bytes;
		if (now >= next_age || over) {
			prune_now(d, now >= next_age);
			if (now >= next_age)
				next_age = now + d->cfg.retain_interval *
						 1000ull;
		}
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_nsec += RETAIN_LOOK_MS % 1000 * 1000000L;
		ts.tv_sec += RETAIN_LOOK_MS / 1000 + ts.tv_nsec / 1000000000;
		ts.tv_nsec %= 1000000000;
		pthread_mutex_lock(&rt->lock);
		while (!rt->stopping &&
		       pthread_cond_timedwait(&rt->cond, &rt->lock, &ts) !=
		       ETIMEDOUT)
			;
	}
	pthread_mutex_unlock(&rt->lock);
	return NULL;
}

int retain_start(struct daemon *d)
{
	struct retain *rt;
	pthread_condattr_t ca;
	const char *db = d->cfg.db;
	int r;

	if (!d->cfg.retain_days && !d->cfg.max_store_bytes)
		return 0;
	rt = calloc(1, sizeof(*rt));
	if (!rt)
		return -ENOMEM;
	if (!strncmp(db, "sqlite:", 7))
		db += 7;
	rt->path = strdup(db);
	if (!rt->path) {
		free(rt);
		return -ENOMEM;
	}
	pthread_mutex_init(&rt->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&rt->cond, &ca);
	pthread_condattr_destroy(&ca);
	d->retain = rt;
	r = pthread_create(&rt->thread, NULL, retain_main, d);
	if (r) {
		d->retain = NULL;
		free(rt->path);
		free(rt);
		return -r;
	}
	return 0;
}

void retain_stop(struct daemon *d)
{
	struct retain *rt = d->retain;

	if (!rt)
		return;
	pthread_mutex_lock(&rt->lock);
	rt->stopping = true;
	pthread_cond_signal(&rt->cond);
	pthread_mutex_unlock(&rt->lock);
	pthread_join(rt->thread, NULL);
	nstore_close(rt->store);
	pthread_cond_destroy(&rt->cond);
	pthread_mutex_destroy(&rt->lock);
	free(rt->path);
	free(rt);
	d->retain = NULL;
}

uint64_t retain_removed(struct daemon *d, bool by_size)
{
	struct retain *rt = d->retain;

	if (!rt)
		return 0;
	return atomic_load(by_size ? &rt->by_size : &rt->by_age);
}
