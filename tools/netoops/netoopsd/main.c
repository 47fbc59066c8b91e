// SPDX-License-Identifier: GPL-2.0
/*
 * netoopsd: receives netoops crash dumps over UDP and stores them.
 * See netoopsd.h for the threads and Documentation/admin-guide/
 * netoops-collector.rst for operation.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "netoopsd.h"

#define DEFAULT_DB "/var/lib/netoops/netoops.db"

static int write_ready(struct daemon *d)
{
	char tmp[4096], text[128];
	int fd, n, r = 0;

	if (!d->cfg.ready_file)
		return 0;
	n = snprintf(text, sizeof(text), "port=%d\nmetrics_port=%d\npid=%d\n",
		     d->port, d->metrics_port, (int)getpid());
	snprintf(tmp, sizeof(tmp), "%s.tmp", d->cfg.ready_file);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, text, n) != n || rename(tmp, d->cfg.ready_file))
		r = -errno;
	if (fd >= 0)
		close(fd);
	return r;
}

/* --spool by default: the database path with ".spool" added. */
static int default_spool(struct config *c)
{
	const char *db = c->db;

	if (!strncmp(db, "sqlite:", 7))
		db += 7;
	if (strstr(db, "://") || !strncmp(db, "pg:", 3))
		return -EINVAL;		/* not a file: no place for it */
	return asprintf(&c->spool_dir, "%s.spool", db) < 0 ? -ENOMEM : 0;
}

/*
 * A store that cannot be opened for now (locked, disk full, database
 * server down) does not stop netoopsd: dumps wait in the spool and the
 * store thread opens it later.
 */
static bool store_open_transient(int err)
{
	return err == -EBUSY || err == -ENOSPC || err == -EDQUOT ||
	       err == -EAGAIN || err == -ECONNREFUSED;
}

int main(int argc, char **argv)
{
	static struct daemon dm;	/* large: keep it off the stack */
	struct daemon *d = &dm;
	struct timespec ts;
	sigset_t set;
	int r, sig;

	config_defaults(&d->cfg);
	r = config_parse_args(&d->cfg, argc, argv);
	if (r)
		return r > 0 ? 0 : 2;
	if (!d->cfg.db) {
		d->cfg.db = strdup(DEFAULT_DB);
		if (!d->cfg.db)
			return 1;
	}
	if (!d->cfg.name) {
		char host[HOST_NAME_MAX + 1] = "";

		gethostname(host, sizeof(host) - 1);
		host[strcspn(host, ", \t\n")] = 0;
		d->cfg.name = strdup(*host ? host : "netoopsd");
		if (!d->cfg.name)
			return 1;
	}
	if (!d->cfg.spool_dir && default_spool(&d->cfg) < 0) {
		fprintf(stderr, "netoopsd: --spool DIR is needed with store %s\n",
			d->cfg.db);
		return 2;
	}
	/* --max-memory is for the whole daemon: each worker gets its share. */
	if (d->cfg.limits.max_bytes_total)
		d->cfg.limits.max_bytes_total /= d->cfg.workers;
	if (d->cfg.limits.max_dumps)
		d->cfg.limits.max_dumps = (d->cfg.limits.max_dumps +
					   d->cfg.workers - 1) / d->cfg.workers;
	d->start_ms = wall_ms();

	/* Every thread inherits this mask; main takes signals by sigwait. */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);

	r = nstore_open(d->cfg.db, d->cfg.sync_normal ? NSTORE_SYNC_NORMAL : 0,
			&d->store);
	if (r < 0 && !store_open_transient(r)) {
		fprintf(stderr, "netoopsd: cannot open store %s: %s\n",
			d->cfg.db, nstore_open_strerror(r));
		return 1;
	}
	if (r < 0)
		fprintf(stderr, "netoopsd: cannot open store %s yet: %s: dumps"
			" wait in the spool\n", d->cfg.db,
			nstore_open_strerror(r));
	r = spool_open(d);
	if (!r)
		r = resume_open(d);
	if (r < 0) {
		fprintf(stderr, "netoopsd: cannot open spool %s: %s\n",
			d->cfg.spool_dir, r == -EBUSY ?
			"in use by another netoopsd" : strerror(-r));
		return 1;
	}
	r = archive_open(d);
	if (r < 0) {
		fprintf(stderr, "netoopsd: cannot open archive %s: %s\n",
			d->cfg.archive, strerror(-r));
		return 1;
	}
	r = sockets_open(d);
	if (r < 0)
		return 1;
	/* Bound: no capability is needed any more (before any thread). */
	r = privs_drop();
	if (r < 0) {
		fprintf(stderr, "netoopsd: cannot drop capabilities: %s\n",
			strerror(-r));
		return 1;
	}
	r = metrics_http_start(d);
	if (r < 0) {
		fprintf(stderr, "netoopsd: cannot serve metrics on %s: %s\n",
			d->cfg.metrics_listen, strerror(-r));
		return 1;
	}
	r = store_start(d);
	if (!r)
		r = archive_start(d);
	if (!r)
		r = retain_start(d);
	if (!r)
		r = workers_start(d);
	if (r < 0) {
		fprintf(stderr, "netoopsd: cannot start threads: %s\n",
			strerror(-r));
		return 1;
	}
	r = write_ready(d);
	if (r < 0)
		fprintf(stderr, "netoopsd: cannot write %s: %s\n",
			d->cfg.ready_file, strerror(-r));
	fprintf(stderr, "netoopsd: listening on udp port %d (%d address(es) x"
		" %d workers), store %s", d->port, d->nr_addrs,
		d->cfg.workers, d->cfg.db);
	if (d->metrics_port)
		fprintf(stderr, ", metrics on tcp port %d", d->metrics_port);
	fputc('\n', stderr);

	for (;;) {
		ts.tv_sec = d->cfg.metrics_interval;
		ts.tv_nsec = 0;
		sig = sigtimedwait(&set, NULL, &ts);
		if (sig == SIGTERM || sig == SIGINT)
			break;
		if (sig == SIGHUP && d->archive && archive_reopen(d) == 0)
			fprintf(stderr, "netoopsd: SIGHUP: archive %s reopened\n",
				d->cfg.archive);
		r = metrics_write_file(d);
		if (r < 0)
			fprintf(stderr, "netoopsd: cannot write %s: %s\n",
				d->cfg.metrics_file, strerror(-r));
	}

	fprintf(stderr, "netoopsd: %s: flushing\n", strsignal(sig));
	/* Workers take what their sockets hold and store every open dump as
	 * partial, then the finishers and the store commit the last batch.
	 */
	workers_stop(d);
	sockets_close(d);
	store_stop(d);
	archive_close(d);
	r = metrics_write_file(d);
	if (r < 0)
		fprintf(stderr, "netoopsd: cannot write %s: %s\n",
			d->cfg.metrics_file, strerror(-r));
	metrics_http_stop(d);
	retain_stop(d);
	resume_close(d);
	spool_close(d);
	nstore_close(d->store);
	fprintf(stderr, "netoopsd: stored %llu dumps, exiting\n",
		(unsigned long long)atomic_load(&d->sst.stored));
	config_free(&d->cfg);
	return atomic_load(&d->sst.lost) ? 1 : 0;
}
