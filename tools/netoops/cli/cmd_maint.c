// SPDX-License-Identifier: GPL-2.0
/*
 * netoops CLI verbs that follow or trim the store: watch, prune.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"

#define WATCH_INTERVAL_MS	500

struct watch_ctx {
	bool json;
	int64_t last;		/* highest id printed */
};

static int watch_cb(const struct nstore_dump *d, void *arg)
{
	struct watch_ctx *x = arg;

	if (x->json)
		print_json(dump_to_json(d, false), false);
	else
		dump_print_line(stdout, d, now_wall_ms());
	if (d->id > x->last)
		x->last = d->id;
	return fflush(stdout) ? -errno : 0;
}

/*
 * Polls the store for dumps with an id above the last one seen.  A dump
 * that a more complete copy replaces keeps its id: it is printed once.
 * SIGINT and SIGTERM are blocked and taken by sigtimedwait() between two
 * polls, so that a signal never cuts a line.
 */
int cmd_watch(struct cli *c, int argc, char **argv)
{
	struct watch_ctx x = { 0 };
	struct nstore_filter f;
	struct nstore *st;
	struct timespec ts;
	sigset_t set;
	int r, sig;

	c->interval_ms = WATCH_INTERVAL_MS;
	r = parse_filter(c, argc, argv, &f, "watch");
	if (r)
		return r == 3 ? 0 : r;
	x.json = c->json;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_BLOCK, &set, NULL);
	if (open_store(c, &st) < 0)
		return 1;
	r = nstore_last_id(st, &x.last);
	if (r < 0) {
		fprintf(stderr, "netoops watch: %s\n", strerror(-r));
		nstore_close(st);
		return 1;
	}
	fprintf(stderr, "netoops watch: following %s after dump #%lld\n",
		c->db, (long long)x.last);
	if (!x.json) {
		dump_print_header(stdout);
		fflush(stdout);
	}
	for (;;) {
		f.after_id = x.last;
		r = nstore_list(st, &f, 0, watch_cb, &x);
		/* A writer holding the database past the busy timeout:
		 * the next poll sees its dumps.
		 */
		if (r < 0 && r != -EBUSY) {
			fprintf(stderr, "netoops watch: %s\n", strerror(-r));
			break;
		}
		ts.tv_sec = c->interval_ms / 1000;
		ts.tv_nsec = c->interval_ms % 1000 * 1000000L;
		sig = sigtimedwait(&set, NULL, &ts);
		if (sig == SIGINT || sig == SIGTERM) {
			r = 0;
			break;
		}
	}
	nstore_close(st);
	return r < 0 ? 1 : 0;
}

struct prune_ctx {
	json_t *arr;
	int64_t now_ms;
};

static int prune_cb(const struct nstore_dump *d, void *arg)
{
	struct prune_ctx *x = arg;
	char t[32], age[32];

	format_ms(d->received_ms, t, sizeof(t));
	if (x->arr) {
		json_t *o = json_object();

		json_object_set_new(o, "id", json_integer(d->id));
		json_object_set_new(o, "host", d->hostname ?
				    text_json(d->hostname,
					      strlen(d->hostname)) :
				    json_null());
		json_object_set_new(o, "received_ms",
				    json_integer(d->received_ms));
		json_object_set_new(o, "bucket", d->sig_hash ?
				    json_string(d->sig_hash) : json_null());
		json_object_set_new(o, "log_len", json_integer(d->log_len));
		json_array_append_new(x->arr, o);
		return 0;
	}
	format_age(x->now_ms, d->received_ms, age, sizeof(age));
	printf("removed #%lld  %s UTC (%s)  ", (long long)d->id, t, age);
	put_esc_str(stdout, d->hostname ?: "?");
	fputs("  ", stdout);
	put_esc_str(stdout, d->sig_title ?: "-");
	fputc('\n', stdout);
	return 0;
}

int cmd_prune(struct cli *c, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "older-than", required_argument, NULL, 'o' },
		{ "max-bytes", required_argument, NULL, 'b' },
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 }
	};
	struct prune_ctx x = { .now_ms = now_wall_ms() };
	struct nstore_prune_result res;
	struct nstore_prune p = { 0 };
	struct nstore *st;
	bool pg;
	double days;
	char *end;
	int o, r;

	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (o) {
		case 'o':
			days = strtod(optarg, &end);
			if (*end || end == optarg || !(days > 0) ||
			    days > 100000)
				goto bad;
			p.before_ms = x.now_ms - (int64_t)(days * 86400000.0);
			break;
		case 'b':
			if (parse_bytes(optarg, &p.max_bytes) < 0 ||
			    !p.max_bytes)
				goto bad;
			break;
		case 'j':
			c->json = true;
			break;
		default:
			return 2;
		}
	}
	if (optind < argc || (!p.before_ms && !p.max_bytes)) {
		fprintf(stderr, "Usage: netoops prune [--older-than DAYS]"
			" [--max-bytes N] [--json]\n");
		return 2;
	}
	/* A reader's open first: it creates nothing and says why not. */
	if (open_store(c, &st) < 0)
		return 1;
	nstore_close(st);
	r = nstore_open(c->db, 0, &st);
	if (r < 0) {
		fprintf(stderr, "netoops prune: cannot open store %s for"
			" writing: %s\n", c->db, nstore_open_strerror(r));
		return 1;
	}
	if (c->json)
		x.arr = json_array();
	r = nstore_prune(st, &p, prune_cb, &x, &res);
	pg = !strcmp(st->ops->name, "postgresql");
	nstore_close(st);
	if (r < 0) {
		/* What went before the failure stays removed. */
		fprintf(stderr, "netoops prune: %s (%ld dumps removed)\n",
			strerror(-r), res.by_age + res.by_size);
		json_decref(x.arr);
		return 1;
	}
	if (x.arr) {
		json_t *j = json_object();

		json_object_set_new(j, "removed", x.arr);
		json_object_set_new(j, "by_age", json_integer(res.by_age));
		json_object_set_new(j, "by_size", json_integer(res.by_size));
		json_object_set_new(j, "bytes_before",
				    json_integer(res.bytes_before));
		json_object_set_new(j, "bytes_after",
				    json_integer(res.bytes_after));
		json_object_set_new(j, "dumps_left",
				    json_integer(res.dumps_left));
		print_json(j, true);
	} else {
		printf("pruned %ld dump(s): %ld by age, %ld by size, %ld"
		       " left; store files %lld -> %lld bytes\n",
		       res.by_age + res.by_size, res.by_age, res.by_size,
		       res.dumps_left, (long long)res.bytes_before,
		       (long long)res.bytes_after);
	}
	if (p.max_bytes && res.bytes_after > p.max_bytes) {
		fprintf(stderr, "netoops prune: store still %lld bytes, above"
			" %lld: %s\n", (long long)res.bytes_after,
			(long long)p.max_bytes, !res.dumps_left ?
			"no dump left: that is the empty store's size" : pg ?
			"a reader held the dumps table, VACUUM FULL could"
			" not run; try again" :
			"a reader held the WAL back, try again");
		return 1;
	}
	return 0;
bad:
	fprintf(stderr, "netoops prune: bad value '%s'\n", optarg);
	return 2;
}
