// SPDX-License-Identifier: GPL-2.0
/*
 * netoops: query the crash store that netoopsd fills, and decode captures.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include <linux/netoops.h>

#include "cli.h"
#include "netoops_version.h"

#define DEFAULT_DB "/var/lib/netoops/netoops.db"

struct cmd {
	const char *name;
	int (*fn)(struct cli *c, int argc, char **argv);
	const char *args;
	const char *help;
};

static const struct cmd cmds[] = {
	{ "list", cmd_list,
	  "[--host GLOB] [--kernel GLOB] [--reason R] [--since T]\n"
	  "                 [--until T] [--bucket B] [--complete|--partial]\n"
	  "                 [--authenticated|--unauthenticated] [--limit N]"
	  " [--no-log]",
	  "list dumps, newest first (--limit N: the newest N; --json: an\n"
	  "              array of full records, log included unless --no-log)"
	},
	{ "watch", cmd_watch, "[same filters as list] [--interval MS]",
	  "print each dump stored from now on, until SIGINT or SIGTERM\n"
	  "              (--json: one object per line, no log; polls every\n"
	  "              MS, default 500)" },
	{ "show", cmd_show, "ID",
	  "one dump: header (\"authenticated: key N\" or \"no\"),\n"
	  "              registers, user fields, log with gaps marked" },
	{ "buckets", cmd_buckets, "[same filters as list]",
	  "dumps grouped by crash signature, biggest first" },
	{ "export", cmd_export, "[same filters as list]",
	  "every dump as JSON Lines (one object per line)" },
	{ "count", cmd_count,
	  "[--by time|host|kernel] [--step SECONDS] [same filters as list]",
	  "dumps per time slot (--step, default 3600), host or kernel\n"
	  "              release (default host), biggest first; time: oldest\n"
	  "              slot first, empty slots left out" },
	{ "web", cmd_web,
	  "[--listen ADDR:PORT] [--token-file FILE] [--ready-file FILE]",
	  "read-only dashboard over HTTP (default 127.0.0.1:8514): pages,\n"
	  "              SVG plots, /api/ with the --json output of these\n"
	  "              verbs; see netoops-web(1)" },
	{ "stats", cmd_stats, "",
	  "store figures and the daemon's counters (--metrics-file)" },
	{ "decode", cmd_decode, "[--packets] FILE|-",
	  "decode raw datagrams (concatenated, any size) or a pcap, no\n"
	  "              store; lost datagrams rebuilt from parity; MACs are\n"
	  "              not verified (no keys); exit status 3 when a datagram\n"
	  "              was refused or a dump is partial" },
	{ "prune", cmd_prune, "[--older-than DAYS] [--max-bytes N]",
	  "delete the oldest dumps: received more than DAYS ago, then\n"
	  "              until the store's files take at most N bytes; prints\n"
	  "              each dump removed.  Run it as netoopsd's user" },
	{ "import-log", cmd_import_log,
	  "[--host H] [--kernel R] [--reason R] FILE...",
	  "store plain-text logs as complete dumps (tests, corpora)" },
	{ NULL, NULL, NULL, NULL }
};

static void usage(FILE *f)
{
	const struct cmd *c;

	fprintf(f,
"Usage: netoops [--db PATH] [--json] [--metrics-file PATH] VERB [ARGS]\n"
"       netoops --version\n"
"\n"
"  --db PATH            crash store (default $NETOOPS_DB, else\n"
"                       " DEFAULT_DB "); PostgreSQL:\n"
"                       postgresql://..., postgres://..., pg:CONNINFO\n"
"  --json               JSON output (jansson)\n"
"  --metrics-file PATH  netoopsd --metrics-file, for `stats`\n"
"\n"
"Verbs:\n");
	for (c = cmds; c->name; c++)
		fprintf(f, "  %-11s %s\n              %s\n", c->name, c->args,
			c->help);
	fprintf(f,
"\n"
"Times (--since, --until): unix seconds, \"YYYY-MM-DD[ HH:MM[:SS]]\" (UTC)\n"
"or a relative \"-2h\", \"-30m\", \"-7d\"; from 1970-01-01 00:00:01 to\n"
"9999-12-31 23:59:59.  Reasons: panic, oops, emergency,\n"
"restart, halt, poweroff, soft.  --bucket takes a signature hash or a\n"
"prefix of it.  --host and --kernel are glob patterns ('*', '?', [...];\n"
"\"[*]\" for a literal '*'), exact without those; these three take at most\n"
"256 bytes.  Sizes take K, M, G.\n"
"A dump is authenticated (--authenticated, AUTH \"key N\") when\n"
"netoopsd verified every datagram of it with the one key N (--key); dumps\n"
"stored without a --key, or with any unsigned datagram, are not.\n"
"Exit status: 0 ok, 1 error, 2 usage.\n");
}

int open_store(struct cli *c, struct nstore **ret)
{
	int r = nstore_open(c->db, NSTORE_RDONLY, ret);

	if (r < 0)
		fprintf(stderr, "netoops: cannot open store %s: %s\n", c->db,
			r == -ENOENT ? "no such database (has netoopsd run?)" :
				       nstore_open_strerror(r));
	return r;
}

int64_t now_wall_ms(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return tv.tv_sec * 1000LL + tv.tv_usec / 1000;
}

int parse_bytes(const char *s, int64_t *ret)
{
	unsigned int shift = 0;
	long long v;
	char *end;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoll(s, &end, 10);
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	}
	if (*end || errno || v > INT64_MAX >> shift)
		return -EINVAL;
	*ret = (int64_t)v << shift;
	return 0;
}

/*
 * A time as unix milliseconds, from 1970-01-01 00:00:01 to 9999-12-31
 * 23:59:59 UTC (TIME_MIN_S, TIME_MAX_S): -ERANGE outside, before any
 * multiplication can overflow; -EINVAL when not a time.  Nothing earlier:
 * the store takes a bound of 0 for none, so "1970-01-01" would silently
 * mean "no bound".
 */
int parse_time_ms(const char *s, int64_t *ret)
{
	struct tm tm;
	char *end;
	long long v;
	int64_t t;

	if (s[0] == '-' && s[1]) {
		long long mult;

		if (s[1] < '0' || s[1] > '9')
			return -EINVAL;
		errno = 0;
		v = strtoll(s + 1, &end, 10);
		switch (*end) {
		case 's': mult = 1; break;
		case 'm': mult = 60; break;
		case 'h': mult = 3600; break;
		case 'd': mult = 86400; break;
		default: return -EINVAL;
		}
		if (end[1] || v < 0)
			return -EINVAL;
		if (errno == ERANGE || v > TIME_MAX_S / mult)
			return -ERANGE;
		t = (int64_t)time(NULL) - v * mult;
	} else {
		errno = 0;
		v = strtoll(s, &end, 10);
		if (!*end && end != s) {
			if (errno == ERANGE)
				return -ERANGE;
			t = v;
		} else {
			memset(&tm, 0, sizeof(tm));
			end = strptime(s, "%Y-%m-%d", &tm);
			if (!end)
				return -EINVAL;
			if (*end) {
				const char *u = end + (*end == ' ' ||
						       *end == 'T');

				end = strptime(u, "%H:%M:%S", &tm);
				if (!end)
					end = strptime(u, "%H:%M", &tm);
				if (!end || (*end && strcmp(end, "Z")))
					return -EINVAL;
			}
			if (tm.tm_year > 9999 - 1900 || tm.tm_year < 0)
				return -ERANGE;
			t = timegm(&tm);
		}
	}
	if (t < TIME_MIN_S || t > TIME_MAX_S)
		return -ERANGE;
	*ret = t * 1000;
	return 0;
}

const char *time_strerror(int r)
{
	return r == -ERANGE ? "out of range (1970-01-01 00:00:01 to"
			      " 9999-12-31 23:59:59 UTC)" : "bad value";
}

/* --limit, ?limit=: 1 to LONG_MAX, digits only; -EINVAL or -ERANGE. */
int parse_limit(const char *s, long *ret)
{
	char *end;
	long v;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtol(s, &end, 10);
	if (*end || !v)
		return -EINVAL;
	if (errno == ERANGE)
		return -ERANGE;
	*ret = v;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "json", no_argument, NULL, 'j' },
		{ "metrics-file", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct cli c = { 0 };
	const struct cmd *cmd;
	int o;

	c.db = getenv("NETOOPS_DB");
	if (!c.db || !*c.db)
		c.db = DEFAULT_DB;
	/* '+': stop at the verb; the verb parses its own options. */
	while ((o = getopt_long(argc, argv, "+d:jm:hV", opts, NULL)) != -1) {
		switch (o) {
		case 'd':
			c.db = optarg;
			break;
		case 'j':
			c.json = true;
			break;
		case 'm':
			c.metrics_file = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("netoops %s (wire protocol %d)\n",
			       NETOOPS_TOOLS_VERSION, NETOOPS_VERSION);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return 2;
	}
	for (cmd = cmds; cmd->name; cmd++) {
		if (!strcmp(cmd->name, argv[optind])) {
			argc -= optind;
			argv += optind;
			optind = 0;	/* reset getopt for the verb */
			return cmd->fn(&c, argc, argv);
		}
	}
	if (!strcmp(argv[optind], "help")) {
		usage(stdout);
		return 0;
	}
	fprintf(stderr, "netoops: unknown verb '%s' (try --help)\n",
		argv[optind]);
	return 2;
}
