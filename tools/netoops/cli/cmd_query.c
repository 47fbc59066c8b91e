// SPDX-License-Identifier: GPL-2.0
/*
 * netoops CLI verbs over the store: list, show, buckets, export, stats,
 * import-log.
 */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <zlib.h>

#include <linux/netoops.h>

#include "cli.h"
#include "store/record.h"

enum { F_HOST = 256, F_KERNEL, F_REASON, F_SINCE, F_UNTIL, F_BUCKET,
       F_COMPLETE, F_PARTIAL, F_AUTH, F_UNAUTH, F_LIMIT, F_JSON, F_NOLOG,
       F_HELP, F_INTERVAL };

static bool no_log;	/* list --json --no-log */

static const struct option filter_opts[] = {
	{ "host", required_argument, NULL, F_HOST },
	{ "kernel", required_argument, NULL, F_KERNEL },
	{ "reason", required_argument, NULL, F_REASON },
	{ "since", required_argument, NULL, F_SINCE },
	{ "until", required_argument, NULL, F_UNTIL },
	{ "bucket", required_argument, NULL, F_BUCKET },
	{ "complete", no_argument, NULL, F_COMPLETE },
	{ "partial", no_argument, NULL, F_PARTIAL },
	{ "authenticated", no_argument, NULL, F_AUTH },
	{ "unauthenticated", no_argument, NULL, F_UNAUTH },
	{ "limit", required_argument, NULL, F_LIMIT },
	{ "json", no_argument, NULL, F_JSON },
	{ "no-log", no_argument, NULL, F_NOLOG },
	{ "help", no_argument, NULL, F_HELP },
	{ "interval", required_argument, NULL, F_INTERVAL },
	{ NULL, 0, NULL, 0 }
};

int parse_filter(struct cli *c, int argc, char **argv,
		 struct nstore_filter *f, const char *verb)
{
	bool watch = !strcmp(verb, "watch");
	const char *name;
	char *end;
	int o, r;

	nstore_filter_init(f);
	while ((o = getopt_long(argc, argv, "", filter_opts, NULL)) != -1) {
		switch (o) {
		case F_HOST:
			f->host = optarg;
			break;
		case F_KERNEL:
			f->kernel = optarg;
			break;
		case F_REASON:
			f->reason = nstore_reason_parse(optarg);
			if (f->reason < 0)
				goto bad;
			break;
		case F_SINCE:
			r = parse_time_ms(optarg, &f->since_ms);
			if (r < 0)
				goto bad_time;
			break;
		case F_UNTIL:
			r = parse_time_ms(optarg, &f->until_ms);
			if (r < 0)
				goto bad_time;
			break;
		case F_BUCKET:
			f->bucket = optarg;
			break;
		case F_COMPLETE:
			f->complete = 1;
			break;
		case F_PARTIAL:
			f->complete = 0;
			break;
		case F_AUTH:
			f->authenticated = 1;
			break;
		case F_UNAUTH:
			f->authenticated = 0;
			break;
		case F_LIMIT:
			if (parse_limit(optarg, &f->limit) < 0 || watch)
				goto bad;
			break;
		case F_INTERVAL:
			c->interval_ms = strtol(optarg, &end, 10);
			if (*end || c->interval_ms < 10 ||
			    c->interval_ms > 3600000 || !watch)
				goto bad;
			break;
		case F_JSON:
			c->json = true;
			break;
		case F_NOLOG:
			no_log = true;
			break;
		case F_HELP:
			printf("Usage: netoops %s [--host H] [--kernel R]"
			       " [--reason R] [--since T] [--until T]\n"
			       "       [--bucket B] [--complete|--partial]"
			       " [--authenticated|--unauthenticated]\n"
			       "       %s\n", verb, watch ?
			       "[--interval MS] [--json]" :
			       "[--limit N] [--json [--no-log]]");
			return 3;
		default:
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "netoops %s: unexpected argument '%s'\n", verb,
			argv[optind]);
		return 2;
	}
	/* what the store would refuse, as bad usage (store.h) */
	r = nstore_filter_check(f, &name);
	if (r) {
		fprintf(stderr, "netoops %s: --%s: %s\n", verb, name,
			nstore_glob_strerror(r));
		return 2;
	}
	return 0;
bad:
	fprintf(stderr, "netoops %s: bad value '%s'\n", verb, optarg);
	return 2;
bad_time:
	fprintf(stderr, "netoops %s: '%s': %s\n", verb, optarg,
		time_strerror(r));
	return 2;
}

struct list_ctx {
	json_t *arr;
	bool with_log;
	int64_t now_ms;		/* for the AGE column */
};

static int list_cb(const struct nstore_dump *d, void *arg)
{
	struct list_ctx *x = arg;

	if (x->arr)
		json_array_append_new(x->arr, dump_to_json(d, x->with_log));
	else
		dump_print_line(stdout, d, x->now_ms);
	return 0;
}

/* Newest first: with a limit, the newest ones (as list does). */
int list_json(struct nstore *st, const struct nstore_filter *f,
	      bool with_log, json_t **ret)
{
	struct list_ctx x = { .arr = json_array(), .with_log = with_log };
	struct nstore_filter nf = *f;
	int r;

	if (!x.arr)
		return -ENOMEM;
	nf.newest_first = true;
	r = nstore_list(st, &nf, with_log ? NSTORE_WITH_LOG : 0, list_cb, &x);
	if (r < 0) {
		json_decref(x.arr);
		return r;
	}
	*ret = x.arr;
	return 0;
}

int cmd_list(struct cli *c, int argc, char **argv)
{
	struct list_ctx x = { .now_ms = now_wall_ms() };
	struct nstore_filter f;
	struct nstore *st;
	json_t *j = NULL;
	int r;

	r = parse_filter(c, argc, argv, &f, "list");
	if (r)
		return r == 3 ? 0 : r;
	f.newest_first = true;	/* --limit N: the newest N */
	if (open_store(c, &st) < 0)
		return 1;
	if (c->json) {
		r = list_json(st, &f, !no_log, &j);
	} else {
		dump_print_header(stdout);
		r = nstore_list(st, &f, 0, list_cb, &x);
	}
	nstore_close(st);
	if (r < 0) {
		fprintf(stderr, "netoops list: %s\n", strerror(-r));
		return 1;
	}
	if (j)
		print_json(j, true);
	return 0;
}

static int export_cb(const struct nstore_dump *d, void *arg)
{
	(void)arg;
	return print_json(dump_to_json(d, true), false) < 0 ? -EIO : 0;
}

int cmd_export(struct cli *c, int argc, char **argv)
{
	struct nstore_filter f;
	struct nstore *st;
	int r;

	r = parse_filter(c, argc, argv, &f, "export");
	if (r)
		return r == 3 ? 0 : r;
	if (open_store(c, &st) < 0)
		return 1;
	/* JSON Lines is the only export format: --json is implied. */
	r = nstore_list(st, &f, NSTORE_WITH_LOG, export_cb, NULL);
	nstore_close(st);
	if (r < 0) {
		fprintf(stderr, "netoops export: %s\n", strerror(-r));
		return 1;
	}
	return 0;
}

int cmd_show(struct cli *c, int argc, char **argv)
{
	struct nstore_dump *d;
	struct nstore *st;
	long long id = -1;
	char *end;
	int i, r;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			c->json = true;
		} else if (id < 0) {
			id = strtoll(argv[i], &end, 10);
			if (*end || id < 0)
				id = -2;
		} else {
			id = -2;
		}
	}
	if (id < 0) {
		fprintf(stderr, "Usage: netoops show ID [--json]\n");
		return 2;
	}
	if (open_store(c, &st) < 0)
		return 1;
	r = nstore_get(st, id, &d);
	nstore_close(st);
	if (r < 0) {
		fprintf(stderr, "netoops show: dump %lld: %s\n", id,
			r == -ENOENT ? "no such dump" : strerror(-r));
		return 1;
	}
	if (c->json)
		print_json(dump_to_json(d, true), true);
	else
		dump_print_text(stdout, d, true);
	nstore_dump_free(d);
	return 0;
}

struct bucket_ctx {
	json_t *arr;
};

static int bucket_cb(const struct nstore_bucket *b, void *arg)
{
	struct bucket_ctx *x = arg;
	char first[32], last[32];

	if (x->arr) {
		json_array_append_new(x->arr, bucket_to_json(b));
		return 0;
	}
	format_ms(b->first_ms, first, sizeof(first));
	format_ms(b->last_ms, last, sizeof(last));
	printf("%6ld  %5ld  %-19s  %-19s  ", b->count, b->hosts, first, last);
	put_esc(stdout, b->sig_hash, strlen(b->sig_hash), 0, 16);
	fputs("  ", stdout);
	put_esc_str(stdout, b->sig_title ?: "-");
	printf("\n%6s  %5s  kernels: ", "", "");
	put_esc_str(stdout, b->kernels ?: "?");
	format_age(now_wall_ms(), b->last_ms, last, sizeof(last));
	printf("; last seen %s; e.g. `netoops show %lld`\n", last,
	       (long long)b->example_id);
	return 0;
}

int buckets_json(struct nstore *st, const struct nstore_filter *f,
		 json_t **ret)
{
	struct bucket_ctx x = { json_array() };
	int r;

	if (!x.arr)
		return -ENOMEM;
	r = nstore_buckets(st, f, bucket_cb, &x);
	if (r < 0) {
		json_decref(x.arr);
		return r;
	}
	*ret = x.arr;
	return 0;
}

int cmd_buckets(struct cli *c, int argc, char **argv)
{
	struct bucket_ctx x = { NULL };
	struct nstore_filter f;
	struct nstore *st;
	json_t *j = NULL;
	int r;

	r = parse_filter(c, argc, argv, &f, "buckets");
	if (r)
		return r == 3 ? 0 : r;
	if (open_store(c, &st) < 0)
		return 1;
	if (c->json) {
		r = buckets_json(st, &f, &j);
	} else {
		printf("%6s  %5s  %-19s  %-19s  %-16s  %s\n", "COUNT", "HOSTS",
		       "FIRST SEEN (UTC)", "LAST SEEN (UTC)", "BUCKET",
		       "TITLE");
		r = nstore_buckets(st, &f, bucket_cb, &x);
	}
	nstore_close(st);
	if (r < 0) {
		fprintf(stderr, "netoops buckets: %s\n", strerror(-r));
		return 1;
	}
	if (j)
		print_json(j, true);
	return 0;
}

int parse_group(const char *s)
{
	if (!strcmp(s, "time"))
		return NSTORE_BY_TIME;
	if (!strcmp(s, "host"))
		return NSTORE_BY_HOST;
	if (!strcmp(s, "kernel"))
		return NSTORE_BY_KERNEL;
	return -EINVAL;
}

struct count_ctx {
	json_t *arr;
	enum nstore_group by;
};

static int count_cb(const struct nstore_count_row *row, void *arg)
{
	struct count_ctx *x = arg;
	char t[32];

	if (x->arr) {
		json_array_append_new(x->arr, count_row_to_json(row, x->by));
		return 0;
	}
	format_ms(row->last_ms, t, sizeof(t));
	printf("%8ld  %7ld  %-19s  ", row->count, row->buckets, t);
	if (x->by == NSTORE_BY_TIME) {
		format_ms(row->slot_ms, t, sizeof(t));
		printf("%s\n", t);
	} else {
		put_esc_str(stdout, row->key ?: "-");
		fputc('\n', stdout);
	}
	return 0;
}

int count_json(struct nstore *st, const struct nstore_filter *f,
	       enum nstore_group by, int64_t step_ms, json_t **ret)
{
	struct count_ctx x = { json_array(), by };
	int r;

	if (!x.arr)
		return -ENOMEM;
	r = nstore_count(st, f, by, step_ms, count_cb, &x);
	if (r < 0) {
		json_decref(x.arr);
		return r;
	}
	*ret = x.arr;
	return 0;
}

/*
 * count [--by time|host|kernel] [--step SECONDS] [filters]: dumps per time
 * slot, host or release.  Its own options first, then the filters.
 */
int cmd_count(struct cli *c, int argc, char **argv)
{
	struct count_ctx x = { NULL, NSTORE_BY_HOST };
	struct nstore_filter f;
	int64_t step_ms = 3600 * 1000;
	struct nstore *st;
	json_t *j = NULL;
	int i, r, by;
	char *end;

	/* --by and --step are taken out; the rest goes to parse_filter(). */
	for (i = 1; i < argc; i++) {
		const char *v = NULL;
		int n = 0;

		if (!strcmp(argv[i], "--by") || !strcmp(argv[i], "--step")) {
			if (i + 1 >= argc)
				goto usage;
			v = argv[i + 1];
			n = 2;
		} else if (!strncmp(argv[i], "--by=", 5)) {
			v = argv[i] + 5;
			n = 1;
		} else if (!strncmp(argv[i], "--step=", 7)) {
			v = argv[i] + 7;
			n = 1;
		}
		if (!n)
			continue;
		if (argv[i][2] == 'b') {
			by = parse_group(v);
			if (by < 0)
				goto usage;
			x.by = by;
		} else {
			long long sec = strtoll(v, &end, 10);

			if (*end || sec <= 0 || sec > INT64_MAX / 1000)
				goto usage;
			step_ms = sec * 1000;
		}
		memmove(argv + i, argv + i + n,
			(argc - i - n + 1) * sizeof(*argv));
		argc -= n;
		i--;
	}
	r = parse_filter(c, argc, argv, &f, "count");
	if (r)
		return r == 3 ? 0 : r;
	if (open_store(c, &st) < 0)
		return 1;
	if (c->json) {
		r = count_json(st, &f, x.by, step_ms, &j);
	} else {
		printf("%8s  %7s  %-19s  %s\n", "DUMPS", "BUCKETS",
		       "LAST (UTC)", x.by == NSTORE_BY_TIME ? "SLOT (UTC)" :
		       x.by == NSTORE_BY_HOST ? "HOST" : "KERNEL");
		r = nstore_count(st, &f, x.by, step_ms, count_cb, &x);
	}
	nstore_close(st);
	if (r < 0) {
		fprintf(stderr, "netoops count: %s\n", strerror(-r));
		return 1;
	}
	if (j)
		print_json(j, true);
	return 0;
usage:
	fprintf(stderr, "Usage: netoops count [--by time|host|kernel]"
		" [--step SECONDS] [same filters as list] [--json]\n");
	return 2;
}

int stats_json(struct nstore *st, json_t *daemon, json_t **ret)
{
	struct nstore_stats s;
	int r = nstore_stats(st, &s);

	if (r < 0) {
		json_decref(daemon);
		return r;
	}
	*ret = stats_to_json(&s, daemon);
	return 0;
}

/* Prometheus text lines "name{labels} value" -> object. */
static json_t *read_metrics(const char *path, bool echo)
{
	char line[512], name[384];
	double v;
	json_t *o;
	FILE *f;

	f = fopen(path, "re");
	if (!f)
		return NULL;
	o = json_object();
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#')
			continue;
		if (echo)
			fputs(line, stdout);
		if (sscanf(line, "%383s %lf", name, &v) == 2)
			json_object_set_new(o, name, json_real(v));
	}
	fclose(f);
	return o;
}

int cmd_stats(struct cli *c, int argc, char **argv)
{
	struct nstore_stats s;
	struct nstore *st;
	json_t *m = NULL;
	int i, r;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			c->json = true;
		} else {
			fprintf(stderr, "Usage: netoops [--metrics-file PATH]"
				" stats [--json]\n");
			return 2;
		}
	}
	if (open_store(c, &st) < 0)
		return 1;
	r = nstore_stats(st, &s);
	nstore_close(st);
	if (r < 0) {
		fprintf(stderr, "netoops stats: %s\n", strerror(-r));
		return 1;
	}
	if (!c->json) {
		printf("store %s\n  dumps %ld (%ld complete, %ld partial)\n"
		       "  buckets %ld, hosts %ld\n  log bytes %lld, file"
		       " bytes %lld\n", c->db, s.dumps, s.complete, s.partial,
		       s.buckets, s.hosts, (long long)s.log_bytes,
		       (long long)s.file_bytes);
	}
	if (c->metrics_file) {
		if (!c->json)
			printf("daemon counters (%s):\n", c->metrics_file);
		m = read_metrics(c->metrics_file, !c->json);
		if (!m)
			fprintf(stderr, "netoops stats: cannot read %s: %m\n",
				c->metrics_file);
	}
	if (c->json) {
		print_json(stats_to_json(&s, m), true);
	} else {
		json_decref(m);
	}
	return c->metrics_file && !m ? 1 : 0;
}

static int read_all(const char *path, char **ret, size_t *ret_len)
{
	size_t cap = 65536, len = 0, n;
	char *buf = malloc(cap), *nb;
	FILE *f;

	if (!buf)
		return -ENOMEM;
	f = strcmp(path, "-") ? fopen(path, "re") : stdin;
	if (!f) {
		free(buf);
		return -errno;
	}
	while ((n = fread(buf + len, 1, cap - len, f)) > 0) {
		len += n;
		if (len == cap) {
			if (cap >= NETOOPS_INFLATE_MAX * 4) {
				n = 0;
				errno = EFBIG;
				break;
			}
			nb = realloc(buf, cap * 2);
			if (!nb) {
				errno = ENOMEM;
				n = 0;
				break;
			}
			buf = nb;
			cap *= 2;
		}
	}
	if (ferror(f) || len == cap) {
		int e = errno ? errno : EIO;

		if (f != stdin)
			fclose(f);
		free(buf);
		return -e;
	}
	if (f != stdin)
		fclose(f);
	*ret = buf;
	*ret_len = len;
	return 0;
}

int read_file(const char *path, char **ret, size_t *ret_len)
{
	return read_all(path, ret, ret_len);
}

/*
 * import-log: a plain log becomes a complete dump.  The boot_id is derived
 * from the content so importing the same file twice stores it once.
 */
int cmd_import_log(struct cli *c, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "host", required_argument, NULL, 'H' },
		{ "kernel", required_argument, NULL, 'k' },
		{ "reason", required_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 }
	};
	const char *host = NULL, *kernel = NULL;
	int reason = NETOOPS_REASON_OOPS, o, i, r, status = 0;
	struct nstore *st;
	struct timeval tv;

	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (o) {
		case 'H':
			host = optarg;
			break;
		case 'k':
			kernel = optarg;
			break;
		case 'r':
			reason = nstore_reason_parse(optarg);
			if (reason < 0) {
				fprintf(stderr, "netoops import-log: bad reason"
					" '%s'\n", optarg);
				return 2;
			}
			break;
		default:
			return 2;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "Usage: netoops import-log [--host H]"
			" [--kernel R] [--reason R] FILE...\n");
		return 2;
	}
	r = nstore_open(c->db, 0, &st);
	if (r < 0) {
		fprintf(stderr, "netoops: cannot open store %s: %s\n", c->db,
			nstore_open_strerror(r));
		return 1;
	}
	for (i = optind; i < argc; i++) {
		struct nstore_dump *d = nstore_dump_new();
		const char *base = strrchr(argv[i], '/');
		uLong h1, h2;
		size_t dups = 0;

		if (!d) {
			status = 1;
			break;
		}
		r = read_all(argv[i], &d->log, &d->log_len);
		if (r < 0) {
			fprintf(stderr, "netoops import-log: %s: %s\n", argv[i],
				strerror(-r));
			nstore_dump_free(d);
			status = 1;
			continue;
		}
		h1 = crc32(0, (const Bytef *)d->log, d->log_len);
		h2 = adler32(1, (const Bytef *)d->log, d->log_len);
		memcpy(d->boot_id, "import:", 7);
		memcpy(d->boot_id + 8, &h1, 4);
		memcpy(d->boot_id + 12, &h2, 4);
		d->dump_id = d->log_len;
		d->hostname = strdup(host ? host : base ? base + 1 : argv[i]);
		d->release = kernel ? strdup(kernel) : NULL;
		d->reason = reason;
		d->complete = true;
		d->pkt_count = d->pkt_received = 1;
		d->payload_total = d->log_len;
		d->src = strdup("import");
		gettimeofday(&tv, NULL);
		d->received_ms = d->stored_ms = tv.tv_sec * 1000LL +
						 tv.tv_usec / 1000;
		r = nstore_record_sign(d);
		if (!r)
			r = nstore_put(st, &d, 1, &dups);
		if (r < 0) {
			fprintf(stderr, "netoops import-log: %s: %s\n", argv[i],
				strerror(-r));
			status = 1;
		} else if (!c->json) {
			put_esc_str(stdout, argv[i]);
			printf(": %s #%lld ", dups ? "already stored" : "stored",
			       (long long)(dups ? d->dup_of : d->id));
			put_esc_str(stdout, d->sig_title ?: "-");
			fputs(" [", stdout);
			put_esc_str(stdout, d->sig_hash ?: "-");
			fputs("]\n", stdout);
		} else {
			json_t *j = json_object();

			json_object_set_new(j, "file", text_json(argv[i],
							  strlen(argv[i])));
			json_object_set_new(j, "id", json_integer(dups ?
							d->dup_of : d->id));
			json_object_set_new(j, "duplicate", json_boolean(dups));
			json_object_set_new(j, "bucket",
					    json_string(d->sig_hash ?: ""));
			json_object_set_new(j, "title",
					    text_json(d->sig_title ?: "",
						      strlen(d->sig_title ?:
							     "")));
			print_json(j, false);
		}
		nstore_dump_free(d);
	}
	nstore_close(st);
	return status;
}
