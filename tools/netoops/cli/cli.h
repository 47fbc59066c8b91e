/* SPDX-License-Identifier: GPL-2.0 */
/*
 * netoops CLI: verbs dispatched from a table (netoops.c), each in its own
 * function.  A verb returns the process exit status: 0 ok, 1 failure, 2 bad
 * usage.
 */
#ifndef NETOOPS_CLI_H
#define NETOOPS_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include <jansson.h>

#include "netoops_escape.h"
#include "store/store.h"

struct cli {
	const char *db;			/* --db */
	const char *metrics_file;	/* --metrics-file */
	bool json;			/* --json */
	long interval_ms;		/* watch --interval */
};

int cmd_list(struct cli *c, int argc, char **argv);
int cmd_show(struct cli *c, int argc, char **argv);
int cmd_buckets(struct cli *c, int argc, char **argv);
int cmd_export(struct cli *c, int argc, char **argv);
int cmd_stats(struct cli *c, int argc, char **argv);
int cmd_import_log(struct cli *c, int argc, char **argv);
int cmd_decode(struct cli *c, int argc, char **argv);
int cmd_prune(struct cli *c, int argc, char **argv);
int cmd_watch(struct cli *c, int argc, char **argv);
int cmd_count(struct cli *c, int argc, char **argv);

/* output.c */
/*
 * Sender text to a terminal, escaped by netoops_escape() (@flags
 * NETOOPS_ESC_*): every human-readable printer goes through these.  With a
 * @width, at most @width characters, padded with spaces to @width.
 */
void put_esc(FILE *f, const char *s, size_t len, unsigned int flags,
	     size_t width);
void put_esc_str(FILE *f, const char *s);
/* A JSON string of @len bytes; '?' for every non-ASCII byte if not UTF-8. */
json_t *text_json(const char *s, size_t len);
json_t *dump_to_json(const struct nstore_dump *d, bool with_log);
/* @auth_checked: false when MACs were not verified (netoops decode) */
void dump_print_text(FILE *f, const struct nstore_dump *d, bool auth_checked);
/* One row: id, received (UTC) and how long before @now_ms, host... */
void dump_print_line(FILE *f, const struct nstore_dump *d, int64_t now_ms);
void dump_print_header(FILE *f);
void format_ms(int64_t ms, char *buf, size_t len);
void format_age(int64_t now_ms, int64_t ms, char *buf, size_t len);
int print_json(json_t *j, bool pretty);	/* steals the reference */
/* What print_json() prints, '\n' included, malloc'ed; steals @j. */
char *json_text(json_t *j, bool pretty, size_t *ret_len);
/* The --json objects of buckets, count and stats (@daemon stolen). */
json_t *bucket_to_json(const struct nstore_bucket *b);
json_t *count_row_to_json(const struct nstore_count_row *r,
			  enum nstore_group by);
json_t *stats_to_json(const struct nstore_stats *s, json_t *daemon);

/* netoops.c */
int open_store(struct cli *c, struct nstore **ret);
/* Times from 1970-01-01 00:00:01 to 9999-12-31 23:59:59 UTC, in seconds. */
#define TIME_MIN_S	1LL
#define TIME_MAX_S	253402300799LL
/* 0, -EINVAL (not a time) or -ERANGE; time_strerror() words either. */
int parse_time_ms(const char *s, int64_t *ret);
const char *time_strerror(int r);
/* A positive count: 0, -EINVAL or -ERANGE. */
int parse_limit(const char *s, long *ret);
/* "512", "64K", "10M", "2G" (powers of 1024): 0 or -EINVAL. */
int parse_bytes(const char *s, int64_t *ret);
int64_t now_wall_ms(void);
/* Filter options common to list, buckets, export and watch (cmd_query.c):
 * 0, 2 for a bad option (a --host, --kernel or --bucket pattern beyond
 * nstore_filter_check()'s limits too), 3 after --help.
 */
int parse_filter(struct cli *c, int argc, char **argv,
		 struct nstore_filter *f, const char *verb);

/* cmd_query.c: whole file (or stdin for "-") into memory */
int read_file(const char *path, char **ret, size_t *ret_len);

/*
 * cmd_query.c: the --json output of list, buckets, count and stats, built
 * once for the CLI and for `netoops web`'s API, which must print the same.
 * 0 or a negative errno; *@ret is an array (stats: an object).
 */
int list_json(struct nstore *st, const struct nstore_filter *f,
	      bool with_log, json_t **ret);
int buckets_json(struct nstore *st, const struct nstore_filter *f,
		 json_t **ret);
int count_json(struct nstore *st, const struct nstore_filter *f,
	       enum nstore_group by, int64_t step_ms, json_t **ret);
int stats_json(struct nstore *st, json_t *daemon, json_t **ret);
/* "time", "host", "kernel" -> NSTORE_BY_*, or -EINVAL. */
int parse_group(const char *s);

/* cmd_web.c */
int cmd_web(struct cli *c, int argc, char **argv);

#endif /* NETOOPS_CLI_H */
