// SPDX-License-Identifier: GPL-2.0
/*
 * netoopsd --archive: every valid datagram appended, as received, to a
 * file that `netoops decode` reads (datagrams back to back; each says its
 * own length).
 *
 *   - The datagrams of a worker's recvmmsg() batch in one writev(2) on an
 *     O_APPEND descriptor, before the worker counts them as received: a
 *     datagram counted as received is whole in the file, even after
 *     SIGKILL.  Of a short write (disk full) only whole datagrams stay,
 *     the rest is cut off with ftruncate().  (A write that SIGKILL stops
 *     between two pages can leave one datagram cut short: `netoops
 *     decode` reads on past it.)
 *   - fdatasync() by the archive thread every --archive-sync-ms when
 *     something was written (0: after every write, by the worker), and
 *     before a file is rotated or reopened.  A power loss loses at most
 *     what was written in the last interval plus one fdatasync().
 *   - At --archive-bytes the file is renamed FILE.1 (FILE.1 to FILE.2 ...,
 *     FILE.N removed, N = --archive-keep) and a new FILE started.
 *   - SIGHUP (archive_reopen()) closes and reopens FILE, for logrotate.
 *   - Errors are counted (netoops_archive_write_errors_total) and logged
 *     at most once a minute, with the number not logged since.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "netoopsd.h"

#define RELAXED memory_order_relaxed
#define ADD(x, n) atomic_fetch_add_explicit(&(x), (n), RELAXED)

#define LOG_EVERY_MS	60000	/* one error line a minute at most */
#define RETRY_OPEN_MS	1000	/* after a failed open, between tries */

struct archive {
	struct daemon *d;
	pthread_mutex_t lock;	/* everything below but @syncer */
	int fd;			/* -1 after a failed (re)open */
	uint64_t size;		/* bytes in the current file */
	bool dirty;		/* written since the last fdatasync */
	bool stop;		/* the archive thread exits */
	pthread_cond_t wake;	/* to the archive thread: stop */
	uint64_t open_tried_ms;	/* last failed open, mono */
	int open_err;		/* its errno */
	uint64_t logged_ms;	/* last error line, mono; 0 = none yet */
	uint64_t unlogged;	/* errors since that line */
	pthread_t syncer;	/* the archive thread, if sync_ms */
	bool has_syncer;
};

/*
 * Counts @count failed operations (datagrams not archived, or one flush,
 * rotation...); logs the first unless a line was logged in the last
 * minute.
 */
static void archive_errors(struct archive *a, const char *what, int err,
			   uint64_t count)
{
	uint64_t now = mono_ms();

	ADD(a->d->ast.write_errors, count);
	if (a->logged_ms && now - a->logged_ms < LOG_EVERY_MS) {
		a->unlogged += count;
		return;
	}
	fprintf(stderr, "netoopsd: archive %s: %s: %s", a->d->cfg.archive,
		what, strerror(err));
	if (a->unlogged)
		fprintf(stderr, " (and %llu more errors in the last minute)",
			(unsigned long long)a->unlogged);
	fputc('\n', stderr);
	a->logged_ms = now;
	a->unlogged = count - 1;
}

static void archive_error(struct archive *a, const char *what, int err)
{
	archive_errors(a, what, err, 1);
}

/* fsync() of the directory holding the archive: renames and creations. */
static void sync_dir(struct archive *a)
{
	char *copy = strdup(a->d->cfg.archive);
	int fd;

	if (!copy)
		return;
	fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		if (fsync(fd) < 0)
			archive_error(a, "cannot flush its directory", errno);
		close(fd);
	}
	free(copy);
}

/* Under the lock: the current file flushed and closed. */
static void close_file(struct archive *a)
{
	if (a->fd < 0)
		return;
	if (a->dirty && fdatasync(a->fd) < 0)
		archive_error(a, "cannot flush", errno);
	else if (a->dirty)
		ADD(a->d->ast.syncs, 1);
	a->dirty = false;
	close(a->fd);
	a->fd = -1;
}

/* Under the lock: opens (creates) FILE for appending. */
static int open_file(struct archive *a)
{
	struct stat st;
	int fd;

	fd = open(a->d->cfg.archive,
		  O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0640);
	if (fd < 0 || fstat(fd, &st) < 0) {
		int r = -errno;

		if (fd >= 0)
			close(fd);
		a->open_tried_ms = mono_ms();
		a->open_err = -r;
		return r;
	}
	a->fd = fd;
	a->size = st.st_size;
	atomic_store_explicit(&a->d->ast.file_bytes, a->size, RELAXED);
	return 0;
}

/* Under the lock: FILE.i renamed FILE.i+1 (FILE.keep removed), FILE to
 * FILE.1, a new FILE.
 */
static void rotate(struct archive *a)
{
	const char *path = a->d->cfg.archive;
	int keep = a->d->cfg.archive_keep, i, r;
	char from[PATH_MAX], to[PATH_MAX];

	close_file(a);
	if (!keep) {
		if (unlink(path) < 0 && errno != ENOENT)
			archive_error(a, "cannot remove", errno);
	} else {
		snprintf(to, sizeof(to), "%s.%d", path, keep);
		if (unlink(to) < 0 && errno != ENOENT)
			archive_error(a, "cannot remove the oldest file",
				      errno);
		for (i = keep - 1; i >= 0; i--) {
			if (i)
				snprintf(from, sizeof(from), "%s.%d", path, i);
			else
				snprintf(from, sizeof(from), "%s", path);
			snprintf(to, sizeof(to), "%s.%d", path, i + 1);
			if (rename(from, to) < 0 && errno != ENOENT)
				archive_error(a, "cannot rotate", errno);
		}
	}
	r = open_file(a);
	if (r < 0)
		archive_error(a, "cannot open a new file", -r);
	sync_dir(a);
	ADD(a->d->ast.rotations, 1);
}

/*
 * Under the lock: writes @n whole datagrams of @rec with one writev(2);
 * returns how many are in the file.  Of a short write only the whole
 * datagrams stay: the rest is cut off again.
 */
static int write_records(struct archive *a, const struct iovec *rec, int n,
			 size_t bytes)
{
	size_t kept = 0;
	ssize_t w;
	int k = 0;

	w = writev(a->fd, rec, n);
	if (w == (ssize_t)bytes) {
		kept = bytes;
		k = n;
	} else {
		int err = w < 0 ? errno : ENOSPC;

		while (w > 0 && k < n && kept + rec[k].iov_len <= (size_t)w)
			kept += rec[k++].iov_len;
		if (w > 0 && (size_t)w != kept &&
		    ftruncate(a->fd, a->size + kept) < 0)
			archive_error(a, "cannot cut a partial write", errno);
		archive_errors(a, "cannot write", err, n - k);
	}
	a->size += kept;
	if (k) {
		a->dirty = true;
		ADD(a->d->ast.records, k);
		ADD(a->d->ast.bytes, kept);
	}
	return k;
}

void archive_write(struct daemon *d, const struct iovec *rec, int n)
{
	struct archive *a = d->archive;
	uint64_t max = d->cfg.archive_bytes;
	size_t bytes;
	int i = 0, j, r, rotated = -1;

	pthread_mutex_lock(&a->lock);
	while (i < n) {
		if (a->fd < 0) {
			/* after a failed open: again once a second at most */
			r = mono_ms() - a->open_tried_ms < RETRY_OPEN_MS ?
			    -a->open_err : open_file(a);
			if (r < 0) {
				archive_errors(a, "cannot open", -r, n - i);
				break;
			}
		}
		/* rotated before a datagram that would pass --archive-bytes
		 * (once: a rotation that failed to rename leaves it be)
		 */
		if (max && a->size && a->size + rec[i].iov_len > max &&
		    rotated != i) {
			rotate(a);
			rotated = i;
			continue;
		}
		/* as many as fit in this file, in one writev(2) */
		bytes = rec[i].iov_len;
		for (j = i + 1; j < n && j - i < IOV_MAX; j++) {
			if (max && a->size + bytes + rec[j].iov_len > max)
				break;
			bytes += rec[j].iov_len;
		}
		write_records(a, rec + i, j - i, bytes);
		i = j;
	}
	atomic_store_explicit(&d->ast.file_bytes, a->size, RELAXED);
	if (!d->cfg.archive_sync_ms && a->dirty && a->fd >= 0) {
		if (fdatasync(a->fd) < 0) {
			archive_error(a, "cannot flush", errno);
		} else {
			a->dirty = false;
			ADD(d->ast.syncs, 1);
		}
	}
	pthread_mutex_unlock(&a->lock);
}

/*
 * The archive thread: every sync_ms, fdatasync() of what was written,
 * outside the lock (on a dup() of the descriptor, which a rotation may
 * close meanwhile), so that workers are not held up by the disk.
 */
static void *archive_main(void *arg)
{
	struct archive *a = arg;
	struct timespec ts;
	int fd;

	pthread_setname_np(pthread_self(), "netoopsd-arch");
	pthread_mutex_lock(&a->lock);
	while (!a->stop) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_sec += a->d->cfg.archive_sync_ms / 1000;
		ts.tv_nsec += (long)(a->d->cfg.archive_sync_ms % 1000) * 1000000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&a->wake, &a->lock, &ts);
		if (a->stop || !a->dirty || a->fd < 0)
			continue;
		fd = dup(a->fd);
		if (fd < 0) {
			archive_error(a, "cannot flush", errno);
			continue;
		}
		a->dirty = false;
		pthread_mutex_unlock(&a->lock);
		if (fdatasync(fd) < 0) {
			int err = errno;

			pthread_mutex_lock(&a->lock);
			a->dirty = true;
			archive_error(a, "cannot flush", err);
		} else {
			ADD(a->d->ast.syncs, 1);
			pthread_mutex_lock(&a->lock);
		}
		close(fd);
	}
	pthread_mutex_unlock(&a->lock);
	return NULL;
}

int archive_open(struct daemon *d)
{
	struct archive *a;
	pthread_condattr_t ca;
	int r;

	if (!d->cfg.archive)
		return 0;
	a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	a->d = d;
	a->fd = -1;
	pthread_mutex_init(&a->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&a->wake, &ca);
	pthread_condattr_destroy(&ca);
	r = open_file(a);
	if (r < 0)
		goto out_free;
	d->archive = a;
	return 0;
out_free:
	pthread_cond_destroy(&a->wake);
	pthread_mutex_destroy(&a->lock);
	free(a);
	return r;
}

int archive_start(struct daemon *d)
{
	struct archive *a = d->archive;
	int r;

	if (!a || !d->cfg.archive_sync_ms)
		return 0;
	r = -pthread_create(&a->syncer, NULL, archive_main, a);
	if (r < 0)
		return r;
	a->has_syncer = true;
	return 0;
}

int archive_reopen(struct daemon *d)
{
	struct archive *a = d->archive;
	int r;

	if (!a)
		return 0;
	pthread_mutex_lock(&a->lock);
	close_file(a);
	r = open_file(a);
	if (r < 0)
		archive_error(a, "cannot reopen", -r);
	else
		sync_dir(a);
	pthread_mutex_unlock(&a->lock);
	return r;
}

void archive_close(struct daemon *d)
{
	struct archive *a = d->archive;

	if (!a)
		return;
	pthread_mutex_lock(&a->lock);
	a->stop = true;
	pthread_cond_signal(&a->wake);
	pthread_mutex_unlock(&a->lock);
	if (a->has_syncer)
		pthread_join(a->syncer, NULL);
	close_file(a);
	if (a->unlogged)
		fprintf(stderr, "netoopsd: archive %s: %llu errors not logged\n",
			d->cfg.archive, (unsigned long long)a->unlogged);
	pthread_cond_destroy(&a->wake);
	pthread_mutex_destroy(&a->lock);
	free(a);
	d->archive = NULL;
}
