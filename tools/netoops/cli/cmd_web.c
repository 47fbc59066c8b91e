// SPDX-License-Identifier: GPL-2.0
/*
 * netoops web: a read-only crash dashboard over HTTP (libmicrohttpd).
 *
 * Pages are HTML built on the server, plots inline SVG: no script runs in
 * the browser (the Content-Security-Policy forbids any) and nothing is
 * loaded from elsewhere.  Everything a sender chose (hostname, release,
 * user fields, the log) goes through netoops_escape() and then HTML
 * escaping.  /api/... answers what the CLI's --json prints for the same
 * query, from the same functions (cmd_query.c).
 *
 * One libmicrohttpd thread answers every request in turn: the store is
 * used by one thread at a time, as store.h asks.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <netdb.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <microhttpd.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>

#include <linux/netoops.h>

#include "cli.h"

#define DEFAULT_LISTEN	"127.0.0.1:8514"
#define TOKEN_MAX	256
#define COOKIE		"netoops_token"
#define DUMPS_LIMIT	100	/* /dumps without ?limit= */
#define API_DUMPS_LIMIT	1000	/* /api/dumps without ?limit= */
#define BUCKETS_LIMIT	500	/* /buckets without ?limit= */
#define LIMIT_MAX	1000	/* the largest ?limit= anywhere */
/*
 * Connections: one client address may hold CONN_PER_IP at once, so that
 * one peer trickling bytes (slowloris) cannot take all CONN_LIMIT; an idle
 * one is closed after CONN_TIMEOUT_S.  A browser opens at most 6 per host.
 */
#define CONN_LIMIT	64
#define CONN_PER_IP	8
#define CONN_TIMEOUT_S	10
#define DAY_MS		(86400 * 1000LL)

struct web {
	struct nstore *st;
	const char *db;
	bool have_token;
	unsigned char token_md[32];	/* SHA-256 of the token */
};

/* A response being built: text in memory, then a status and a type. */
struct page {
	FILE *f;
	char *buf;
	size_t len;
	unsigned int status;
	const char *type;
};

/* ---- escaping ---------------------------------------------------------- */

static void html_raw(FILE *f, const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		switch (s[i]) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default: fputc(s[i], f);
		}
	}
}

/*
 * Sender text as HTML: control characters and invalid UTF-8 shown as
 * escapes (as on a terminal), then the HTML metacharacters as entities.
 */
static void html_n(FILE *f, const char *s, size_t len, unsigned int flags)
{
	char *t;

	if (netoops_escape(s, len, flags, 0, &t, NULL) < 0) {
		fputc('?', f);
		return;
	}
	html_raw(f, t, strlen(t));
	free(t);
}

/* NULL shows as "-". */
static void html(FILE *f, const char *s)
{
	if (!s)
		fputc('-', f);
	else
		html_n(f, s, strlen(s), 0);
}

/* Percent-encoding for a query value; '*', '?' and '[' bracketed first
 * when @literal (a GLOB filter that matches exactly this text).
 */
static void url_value(FILE *f, const char *s, bool literal)
{
	static const char hex[] = "0123456789ABCDEF";
	const unsigned char *p;

	for (p = (const unsigned char *)s; *p; p++) {
		bool wrap = literal && (*p == '*' || *p == '?' || *p == '[');

		if (wrap)
			fputs("%5B", f);
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr("-._~", *p))
			fputc(*p, f);
		else
			fprintf(f, "%%%c%c", hex[*p >> 4], hex[*p & 15]);
		if (wrap)
			fputs("%5D", f);
	}
}

/* ---- time ------------------------------------------------------------ */

static void fmt_time(int64_t ms, char *buf, size_t len)
{
	format_ms(ms, buf, len);
}

/* ---- page frame ------------------------------------------------------ */

static const char style_css[] =
	"body{font:14px/1.4 system-ui,sans-serif;margin:0;color:#222;"
	"background:#fafafa}\n"
	"header{background:#263238;color:#eee;padding:.5em 1em}\n"
	"header a{color:#cfd8dc;margin-right:1.2em;text-decoration:none}\n"
	"header b{margin-right:2em}\n"
	"main{padding:1em 1.5em;max-width:1400px}\n"
	"h1{font-size:1.4em;margin:.2em 0 .6em}\n"
	"h2{font-size:1.1em;margin:1.4em 0 .5em}\n"
	"table{border-collapse:collapse;background:#fff;margin-bottom:1em}\n"
	"th,td{border:1px solid #ddd;padding:.25em .6em;text-align:left;"
	"vertical-align:top}\n"
	"th{background:#eceff1}\n"
	"td.n{text-align:right;font-variant-numeric:tabular-nums}\n"
	"code,pre,.mono{font-family:ui-monospace,monospace;font-size:13px}\n"
	"pre.log{background:#fff;border:1px solid #ddd;padding:.6em;"
	"overflow-x:auto;white-space:pre-wrap;word-break:break-all}\n"
	"pre.log .gap{display:block;background:#ffebee;color:#b71c1c;"
	"border-left:4px solid #c62828;padding:0 .4em;font-weight:bold}\n"
	".up{color:#c62828}.down{color:#2e7d32}.same{color:#777}\n"
	".partial{color:#c62828}.err{color:#b71c1c;font-weight:bold}\n"
	".muted{color:#777}\n"
	"form.filters{background:#fff;border:1px solid #ddd;padding:.5em;"
	"margin-bottom:1em}\n"
	"form.filters label{margin-right:.8em;white-space:nowrap}\n"
	"form.filters input{width:9em}\n"
	"svg.plot{background:#fff;border:1px solid #ddd;max-width:100%}\n"
	"svg .bar{fill:#1e88e5}svg a:hover .bar{fill:#0d47a1}\n"
	"svg .axis{stroke:#999;stroke-width:1}\n"
	"svg .grid{stroke:#e0e0e0;stroke-width:1}\n"
	"svg text{font:11px system-ui,sans-serif;fill:#555}\n"
	"svg.hbar .bar{fill:#43a047}\n"
	"dl.kv{display:grid;grid-template-columns:max-content auto;"
	"gap:.15em 1em;background:#fff;border:1px solid #ddd;padding:.6em}\n"
	"dl.kv dt{font-weight:bold}dl.kv dd{margin:0}\n";

static void page_begin(struct page *p, const char *title)
{
	p->f = open_memstream(&p->buf, &p->len);
	p->status = MHD_HTTP_OK;
	p->type = "text/html; charset=utf-8";
	if (!p->f)
		return;
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
	      "<title>netoops: ", p->f);
	html(p->f, title);
	fputs("</title><link rel=\"stylesheet\" href=\"/style.css\"></head>\n"
	      "<body><header><nav><b>netoops</b>"
	      "<a href=\"/\">Overview</a><a href=\"/buckets\">Buckets</a>"
	      "<a href=\"/dumps\">Dumps</a><a href=\"/kernels\">Kernels</a>"
	      "<a href=\"/hosts\">Hosts</a></nav></header>\n<main>\n", p->f);
}

static void page_end(struct page *p)
{
	if (p->f && !strncmp(p->type, "text/html", 9))
		fputs("</main></body></html>\n", p->f);
}

/* An error page (replacing what was written). */
static void page_error(struct page *p, unsigned int status, const char *what,
		       const char *detail)
{
	if (p->f)
		fclose(p->f);
	free(p->buf);
	p->buf = NULL;
	page_begin(p, what);
	p->status = status;
	if (!p->f)
		return;
	fprintf(p->f, "<h1>%u ", status);
	html(p->f, what);
	fputs("</h1>\n<p class=\"err\">", p->f);
	html(p->f, detail);
	fputs("</p>\n", p->f);
}

static void store_error(struct page *p, int r)
{
	page_error(p, MHD_HTTP_INTERNAL_SERVER_ERROR, "store error",
		   strerror(-r));
}

/* ---- query parameters -------------------------------------------------- */

struct args {
	struct MHD_Connection *c;
	const char *const *extra;	/* names a page takes besides filters */
	const char *bad;		/* first parameter refused */
	char why[96];
};

static const char *const filter_names[] = {
	"host", "kernel", "reason", "since", "until", "bucket", "complete",
	"authenticated", "limit", NULL
};

static bool in_list(const char *const *l, const char *s)
{
	for (; l && *l; l++)
		if (!strcmp(*l, s))
			return true;
	return false;
}

static enum MHD_Result check_name(void *cls, enum MHD_ValueKind kind,
				  const char *key, const char *value)
{
	struct args *a = cls;

	(void)kind;
	(void)value;
	if (!in_list(filter_names, key) && !in_list(a->extra, key) &&
	    strcmp(key, "token")) {
		a->bad = key;
		snprintf(a->why, sizeof(a->why), "unknown parameter");
		return MHD_NO;
	}
	return MHD_YES;
}

/* A parameter's value; an empty one (a blank form field) is absent. */
static const char *arg(struct args *a, const char *name)
{
	const char *v = MHD_lookup_connection_value(a->c, MHD_GET_ARGUMENT_KIND,
						    name);

	return v && *v ? v : NULL;
}

static int tristate(const char *v)
{
	if (!v)
		return -1;
	if (!strcmp(v, "1") || !strcmp(v, "yes") || !strcmp(v, "true"))
		return 1;
	if (!strcmp(v, "0") || !strcmp(v, "no") || !strcmp(v, "false"))
		return 0;
	return -2;
}

/*
 * The CLI's filters from the query string: host, kernel, reason, since,
 * until, bucket, complete (1/0), authenticated (1/0), limit.  -EINVAL with
 * a->bad set for a bad value or an unknown name.
 */
static int parse_args(struct args *a, struct nstore_filter *f)
{
	const char *v;
	int r;

	nstore_filter_init(f);
	MHD_get_connection_values(a->c, MHD_GET_ARGUMENT_KIND, check_name, a);
	if (a->bad)
		return -EINVAL;
	f->host = arg(a, "host");
	f->kernel = arg(a, "kernel");
	f->bucket = arg(a, "bucket");
	/* the store's own limits (store.h), refused here as a 400 */
	r = nstore_filter_check(f, &a->bad);
	if (r) {
		snprintf(a->why, sizeof(a->why), "%s",
			 nstore_glob_strerror(r));
		return -EINVAL;
	}
	if ((v = arg(a, "reason")) && (f->reason = nstore_reason_parse(v)) < 0)
		goto bad_reason;
	if ((v = arg(a, "since")) &&
	    (r = parse_time_ms(v, &f->since_ms)) < 0) {
		a->bad = "since";
		goto bad_time;
	}
	if ((v = arg(a, "until")) &&
	    (r = parse_time_ms(v, &f->until_ms)) < 0) {
		a->bad = "until";
		goto bad_time;
	}
	f->complete = tristate(arg(a, "complete"));
	if (f->complete == -2) {
		a->bad = "complete";
		goto bad;
	}
	f->authenticated = tristate(arg(a, "authenticated"));
	if (f->authenticated == -2) {
		a->bad = "authenticated";
		goto bad;
	}
	if ((v = arg(a, "limit"))) {
		if (parse_limit(v, &f->limit) < 0) {
			a->bad = "limit";
			goto bad;
		}
		if (f->limit > LIMIT_MAX) {
			a->bad = "limit";
			snprintf(a->why, sizeof(a->why), "at most %d",
				 LIMIT_MAX);
			return -EINVAL;
		}
	}
	return 0;
bad_time:
	snprintf(a->why, sizeof(a->why), "%s", time_strerror(r));
	return -EINVAL;
bad_reason:
	a->bad = "reason";
bad:
	snprintf(a->why, sizeof(a->why), "bad value");
	return -EINVAL;
}

static void bad_request(struct page *p, struct args *a)
{
	char msg[160];

	snprintf(msg, sizeof(msg), "%s: %s", a->bad ? a->bad : "?", a->why);
	page_error(p, MHD_HTTP_BAD_REQUEST, "bad request", msg);
}

/* ---- plots ------------------------------------------------------------- */

/* The smallest 1, 2 or 5 times a power of ten that is >= @v. */
static long nice_ceil(long v)
{
	long m = 1;

	for (;;) {
		if (v <= m)
			return m;
		if (v <= 2 * m)
			return 2 * m;
		if (v <= 5 * m)
			return 5 * m;
		m *= 10;
	}
}

struct series {
	int64_t start_ms, step_ms;
	int n;
	long *count;
};

/*
 * A slot of the store into the plot's: whatever received_ms a dump has
 * (1970, before, or far ahead), the index never overflows nor goes below
 * 0 (nstore_slot_index()).
 */
static int series_cb(const struct nstore_count_row *r, void *arg)
{
	struct series *s = arg;
	long i = nstore_slot_index(r->slot_ms, s->start_ms, s->step_ms, s->n);

	if (i >= 0)
		s->count[i] += r->count;
	return 0;
}

/*
 * Dumps per slot of @step_ms over the @n slots that end with the current
 * one, as an SVG bar chart; each bar links to those dumps.
 */
static int svg_rate(struct page *p, struct nstore *st,
		    const struct nstore_filter *base, int64_t step_ms, int n)
{
	const int W = 960, H = 240, L = 48, R = 12, T = 12, B = 34;
	struct series s = { .step_ms = step_ms, .n = n };
	int64_t now = now_wall_ms();
	struct nstore_filter f = *base;
	long max = 0, top, total = 0;
	double bw;
	int i, r, every;
	char t[32];

	s.start_ms = (now - now % step_ms) - (int64_t)(n - 1) * step_ms;
	s.count = calloc(n, sizeof(long));
	if (!s.count)
		return -ENOMEM;
	f.since_ms = s.start_ms;
	f.until_ms = 0;
	f.limit = 0;
	r = nstore_count(st, &f, NSTORE_BY_TIME, step_ms, series_cb, &s);
	if (r < 0) {
		free(s.count);
		return r;
	}
	for (i = 0; i < n; i++) {
		if (s.count[i] > max)
			max = s.count[i];
		total += s.count[i];
	}
	/* four grid steps of 1, 2 or 5 times a power of ten */
	top = 4 * nice_ceil((max + 3) / 4 ? (max + 3) / 4 : 1);
	bw = (double)(W - L - R) / n;
	fprintf(p->f, "<svg class=\"plot\" xmlns=\"http://www.w3.org/2000/svg\""
		" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\""
		" aria-label=\"%ld dumps, per %" PRId64 " minutes\">\n",
		W, H, W, H, total, step_ms / 60000);
	for (i = 0; i <= 4; i++) {
		double y = T + (H - T - B) * (1 - i / 4.0);

		fprintf(p->f, "<line class=\"grid\" x1=\"%d\" x2=\"%d\""
			" y1=\"%.1f\" y2=\"%.1f\"/><text x=\"%d\" y=\"%.1f\""
			" text-anchor=\"end\">%ld</text>\n", L, W - R, y, y,
			L - 4, y + 4, top * i / 4);
	}
	for (i = 0; i < n; i++) {
		double h = (double)(H - T - B) * s.count[i] / top;
		int64_t a = s.start_ms + i * step_ms;

		if (!s.count[i])
			continue;
		fmt_time(a, t, sizeof(t));
		fprintf(p->f, "<a href=\"/dumps?since=%" PRId64 "&amp;until=%"
			PRId64 "\"><rect class=\"bar\" x=\"%.1f\" y=\"%.1f\""
			" width=\"%.1f\" height=\"%.1f\"><title>%s UTC: %ld"
			" dump%s</title></rect></a>\n", a / 1000,
			(a + step_ms) / 1000, L + i * bw + bw * 0.1,
			H - B - h, bw * 0.8, h, t, s.count[i],
			s.count[i] == 1 ? "" : "s");
	}
	fprintf(p->f, "<line class=\"axis\" x1=\"%d\" x2=\"%d\" y1=\"%d\""
		" y2=\"%d\"/>\n", L, W - R, H - B, H - B);
	every = n > 8 ? (n + 7) / 8 : 1;
	for (i = 0; i < n; i += every) {
		int64_t a = s.start_ms + i * step_ms;

		fmt_time(a, t, sizeof(t));
		/* "MM-DD HH:MM", or "MM-DD" for whole days */
		t[step_ms % DAY_MS ? 16 : 10] = 0;
		fprintf(p->f, "<text x=\"%.1f\" y=\"%d\">%s</text>\n",
			L + i * bw, H - B + 16, t + 5);
	}
	fputs("</svg>\n", p->f);
	free(s.count);
	return 0;
}

/* A horizontal bar of @v out of @max, for tables. */
static void svg_hbar(FILE *f, long v, long max)
{
	fprintf(f, "<svg class=\"hbar\" xmlns=\"http://www.w3.org/2000/svg\""
		" width=\"160\" height=\"12\"><rect class=\"bar\" x=\"0\""
		" y=\"1\" height=\"10\" width=\"%.1f\"/></svg>",
		max ? 160.0 * v / max : 0);
}

/* ---- tables ------------------------------------------------------------ */

static void bucket_link(FILE *f, const char *hash)
{
	if (!hash || !strcmp(hash, "-")) {
		fputs("<span class=\"muted\">none</span>", f);
		return;
	}
	fputs("<a class=\"mono\" href=\"/bucket/", f);
	url_value(f, hash, false);
	fputs("\">", f);
	html_n(f, hash, strlen(hash) < 16 ? strlen(hash) : 16, 0);
	fputs("</a>", f);
}

struct dump_rows {
	FILE *f;
	long n;
};

static void dump_table_head(FILE *f)
{
	fputs("<table><tr><th>id</th><th>received (UTC)</th><th>host</th>"
	      "<th>kernel</th><th>reason</th><th>state</th><th>auth</th>"
	      "<th>bucket</th><th>title</th></tr>\n", f);
}

static int dump_row_cb(const struct nstore_dump *d, void *arg)
{
	struct dump_rows *x = arg;
	FILE *f = x->f;
	char t[32];

	fmt_time(d->received_ms, t, sizeof(t));
	fprintf(f, "<tr><td class=\"n\"><a href=\"/dump/%" PRId64 "\">%"
		PRId64 "</a></td><td>%s</td><td>", d->id, d->id, t);
	html(f, d->hostname);
	fputs("</td><td>", f);
	html(f, d->release);
	fprintf(f, "</td><td>%s</td><td%s>%s</td><td>",
		nstore_reason_name(d->reason),
		d->complete ? "" : " class=\"partial\"",
		d->complete ? "complete" : "partial");
	if (d->authenticated)
		fprintf(f, "key %u", d->auth_key_id);
	else
		fputs("no", f);
	fputs("</td><td>", f);
	bucket_link(f, d->sig_hash);
	fputs("</td><td>", f);
	html(f, d->sig_title);
	fputs("</td></tr>\n", f);
	x->n++;
	return 0;
}

struct bucket_rows {
	FILE *f;
	long n;
	long max;	/* rows shown, 0 = all; one more is counted */
};

static void bucket_table_head(FILE *f)
{
	fputs("<table><tr><th>dumps</th><th>hosts</th><th>kernels</th>"
	      "<th>first seen (UTC)</th><th>last seen (UTC)</th>"
	      "<th>bucket</th><th>title</th></tr>\n", f);
}

static int bucket_row_cb(const struct nstore_bucket *b, void *arg)
{
	struct bucket_rows *x = arg;
	FILE *f = x->f;
	char first[32], last[32];

	if (x->max && x->n >= x->max) {
		x->n++;		/* one more than shown: the list was cut */
		return 0;
	}
	x->n++;
	fmt_time(b->first_ms, first, sizeof(first));
	fmt_time(b->last_ms, last, sizeof(last));
	fprintf(f, "<tr><td class=\"n\" data-count=\"%ld\">%ld</td>"
		"<td class=\"n\">%ld</td><td>", b->count, b->count, b->hosts);
	html(f, b->kernels);
	fprintf(f, "</td><td>%s</td><td>%s</td><td>", first, last);
	bucket_link(f, b->sig_hash);
	fputs("</td><td>", f);
	html(f, b->sig_title);
	fputs("</td></tr>\n", f);
	return 0;
}

/* ---- pages --------------------------------------------------------------- */

struct top {
	int n;
	char hash[10][128];
	char title[10][160];
	long count[10];
};

static int top_cb(const struct nstore_bucket *b, void *arg)
{
	struct top *t = arg;

	if (t->n >= 10)
		return 0;
	snprintf(t->hash[t->n], sizeof(t->hash[0]), "%s", b->sig_hash);
	snprintf(t->title[t->n], sizeof(t->title[0]), "%s",
		 b->sig_title ?: "");
	t->count[t->n] = b->count;
	t->n++;
	return 0;
}

static int one_count_cb(const struct nstore_bucket *b, void *arg)
{
	*(long *)arg += b->count;
	return 0;
}

struct totals {
	long dumps, hosts;
};

static int totals_cb(const struct nstore_count_row *r, void *arg)
{
	struct totals *t = arg;

	t->dumps += r->count;
	t->hosts += !!r->key;
	return 0;
}

static int count_buckets_cb(const struct nstore_bucket *b, void *arg)
{
	(void)b;
	(*(long *)arg)++;
	return 0;
}

/*
 * Overview: totals, the crash rate (?range=24h, 7d or 30d), the buckets of
 * the last 24 hours against the 24 before them, the biggest buckets.
 */
static void page_overview(struct web *w, struct page *p, struct args *a)
{
	static const char *const extra[] = { "range", NULL };
	const char *range;
	struct nstore_filter f;
	struct totals tot = { 0, 0 };
	struct bucket_rows br = { .f = NULL };
	struct top top = { .n = 0 };
	int64_t now = now_wall_ms(), step;
	long nbuckets = 0;
	int r, i, n;

	a->extra = extra;
	r = parse_args(a, &f);
	if (r < 0 || (f.host || f.kernel || f.bucket || f.since_ms ||
		      f.until_ms || f.limit || f.reason >= 0 ||
		      f.complete >= 0 || f.authenticated >= 0)) {
		if (!a->bad) {
			a->bad = "filters";
			snprintf(a->why, sizeof(a->why), "not on this page");
		}
		bad_request(p, a);
		return;
	}
	range = arg(a, "range") ?: "7d";
	if (!strcmp(range, "24h")) {
		step = 3600 * 1000LL;
		n = 24;
	} else if (!strcmp(range, "7d")) {
		step = 6 * 3600 * 1000LL;
		n = 28;
	} else if (!strcmp(range, "30d")) {
		step = DAY_MS;
		n = 30;
	} else {
		a->bad = "range";
		snprintf(a->why, sizeof(a->why), "24h, 7d or 30d");
		bad_request(p, a);
		return;
	}
	r = nstore_count(w->st, &f, NSTORE_BY_HOST, 0, totals_cb, &tot);
	if (!r)
		r = nstore_buckets(w->st, &f, count_buckets_cb, &nbuckets);
	if (r < 0)
		goto err;
	fputs("<h1>Overview</h1>\n", p->f);
	fprintf(p->f, "<p id=\"totals\"><b>%ld</b> dumps from <b>%ld</b> hosts"
		" in <b>%ld</b> buckets.</p>\n", tot.dumps, tot.hosts,
		nbuckets);
	fprintf(p->f, "<h2>Crash rate, last %s (per %" PRId64 " h)</h2>\n<p>",
		range, step / 3600000);
	for (i = 0; i < 3; i++) {
		static const char *const rs[] = { "24h", "7d", "30d" };

		if (strcmp(rs[i], range))
			fprintf(p->f, "<a href=\"/?range=%s\">%s</a> ", rs[i],
				rs[i]);
		else
			fprintf(p->f, "<b>%s</b> ", rs[i]);
	}
	fputs("</p>\n", p->f);
	r = svg_rate(p, w->st, &f, step, n);
	if (r < 0)
		goto err;

	/* The last 24 h against the 24 h before. */
	f.since_ms = now - DAY_MS;
	f.limit = 10;
	r = nstore_buckets(w->st, &f, top_cb, &top);
	if (r < 0)
		goto err;
	fputs("<h2>Top buckets, last 24 h</h2>\n", p->f);
	if (!top.n)
		fputs("<p class=\"muted\">No crash in the last 24 hours.</p>\n",
		      p->f);
	else
		fputs("<table id=\"trend\"><tr><th>last 24 h</th>"
		      "<th>24 h before</th><th>trend</th><th>bucket</th>"
		      "<th>title</th></tr>\n", p->f);
	for (i = 0; i < top.n; i++) {
		struct nstore_filter g;
		long prev = 0, d;

		nstore_filter_init(&g);
		g.bucket = top.hash[i];
		g.since_ms = now - 2 * DAY_MS;
		g.until_ms = now - DAY_MS;
		if (strcmp(top.hash[i], "-")) {
			r = nstore_buckets(w->st, &g, one_count_cb, &prev);
			if (r < 0)
				goto err;
		}
		d = top.count[i] - prev;
		fprintf(p->f, "<tr><td class=\"n\">%ld</td><td class=\"n\">%ld"
			"</td><td class=\"%s\">", top.count[i], prev,
			!prev ? "up" : d > 0 ? "up" : d < 0 ? "down" : "same");
		if (!prev)
			fputs("new", p->f);
		else if (d)
			fprintf(p->f, "%s%ld (%+.0f%%)", d > 0 ? "+" : "", d,
				100.0 * d / prev);
		else
			fputs("=", p->f);
		fputs("</td><td>", p->f);
		bucket_link(p->f, top.hash[i]);
		fputs("</td><td>", p->f);
		html(p->f, top.title[i][0] ? top.title[i] : NULL);
		fputs("</td></tr>\n", p->f);
	}
	if (top.n)
		fputs("</table>\n", p->f);

	fputs("<h2>Biggest buckets</h2>\n", p->f);
	br.f = p->f;
	nstore_filter_init(&f);
	f.limit = 10;
	bucket_table_head(p->f);
	r = nstore_buckets(w->st, &f, bucket_row_cb, &br);
	if (r < 0)
		goto err;
	fputs("</table>\n<p><a href=\"/buckets\">All buckets</a></p>\n", p->f);
	return;
err:
	store_error(p, r);
}

static void page_buckets(struct web *w, struct page *p, struct args *a)
{
	struct bucket_rows br = { .f = p->f };
	struct nstore_filter f;
	int r;

	if (parse_args(a, &f) < 0) {
		bad_request(p, a);
		return;
	}
	/* one more than shown, to tell that there are more */
	br.max = f.limit ? f.limit : BUCKETS_LIMIT;
	f.limit = br.max + 1;
	fputs("<h1>Buckets</h1>\n<p class=\"muted\">Dumps grouped by crash"
	      " signature, biggest first.</p>\n", p->f);
	bucket_table_head(p->f);
	r = nstore_buckets(w->st, &f, bucket_row_cb, &br);
	if (r < 0) {
		store_error(p, r);
		return;
	}
	if (br.n > br.max)
		fprintf(p->f, "</table>\n<p id=\"nbuckets\">The %ld biggest"
			" buckets; there are more (narrow the filters, or"
			" <a href=\"/api/buckets\">/api/buckets</a>).</p>\n",
			br.max);
	else
		fprintf(p->f, "</table>\n<p id=\"nbuckets\">%ld buckets."
			"</p>\n", br.n);
}

struct key_rows {
	FILE *f;
	const char *param;	/* "host" or "kernel" */
	const char *bucket;	/* links keep this bucket filter, or NULL */
	long max;
	long n;
};

static int key_row_cb(const struct nstore_count_row *r, void *arg)
{
	struct key_rows *x = arg;
	char t[32];

	if (!x->max)
		x->max = r->count;	/* the first row is the biggest */
	fmt_time(r->last_ms, t, sizeof(t));
	fprintf(x->f, "<tr><td>");
	if (r->key) {
		fprintf(x->f, "<a href=\"/dumps?%s=", x->param);
		url_value(x->f, r->key, true);
		if (x->bucket) {
			fputs("&amp;bucket=", x->f);
			url_value(x->f, x->bucket, false);
		}
		fputs("\">", x->f);
		html(x->f, r->key);
		fputs("</a>", x->f);
	} else {
		fputs("<span class=\"muted\">not sent</span>", x->f);
	}
	fprintf(x->f, "</td><td class=\"n\">%ld</td><td>", r->count);
	svg_hbar(x->f, r->count, x->max);
	fprintf(x->f, "</td><td class=\"n\">%ld</td><td>%s</td></tr>\n",
		r->buckets, t);
	x->n++;
	return 0;
}

/* /hosts and /kernels: dumps per hostname or release. */
static void page_keys(struct web *w, struct page *p, struct args *a,
		      enum nstore_group by)
{
	struct key_rows x = { .f = p->f };
	struct nstore_filter f;
	int r;

	if (parse_args(a, &f) < 0) {
		bad_request(p, a);
		return;
	}
	x.param = by == NSTORE_BY_HOST ? "host" : "kernel";
	fprintf(p->f, "<h1>%s</h1>\n<table><tr><th>%s</th><th>dumps</th>"
		"<th></th><th>buckets</th><th>last (UTC)</th></tr>\n",
		by == NSTORE_BY_HOST ? "Hosts" : "Kernels",
		by == NSTORE_BY_HOST ? "host" : "release");
	r = nstore_count(w->st, &f, by, 0, key_row_cb, &x);
	if (r < 0) {
		store_error(p, r);
		return;
	}
	fprintf(p->f, "</table>\n<p>%ld %s.</p>\n", x.n,
		by == NSTORE_BY_HOST ? "hosts" : "releases");
}

static void input(FILE *f, struct args *a, const char *name, const char *label)
{
	fprintf(f, "<label>%s <input name=\"%s\" value=\"", label, name);
	html(f, arg(a, name) ?: "");
	fputs("\"></label>", f);
}

static void select_tri(FILE *f, struct args *a, const char *name,
		       const char *yes, const char *no)
{
	int v = tristate(arg(a, name));

	fprintf(f, "<label>%s <select name=\"%s\"><option value=\"\">any"
		"</option><option value=\"1\"%s>%s</option><option value=\"0\""
		"%s>%s</option></select></label>", name, name,
		v == 1 ? " selected" : "", yes, v == 0 ? " selected" : "", no);
}

static void page_dumps(struct web *w, struct page *p, struct args *a)
{
	struct dump_rows x = { .f = p->f };
	struct nstore_filter f;
	int r, i;

	if (parse_args(a, &f) < 0) {
		bad_request(p, a);
		return;
	}
	if (!f.limit)
		f.limit = DUMPS_LIMIT;
	f.newest_first = true;
	fputs("<h1>Dumps</h1>\n<form class=\"filters\" method=\"get\""
	      " action=\"/dumps\">", p->f);
	input(p->f, a, "host", "host");
	input(p->f, a, "kernel", "kernel");
	fputs("<label>reason <select name=\"reason\"><option value=\"\">any"
	      "</option>", p->f);
	for (i = NETOOPS_REASON_PANIC; i <= NETOOPS_REASON_SOFT; i++)
		fprintf(p->f, "<option%s>%s</option>",
			f.reason == i ? " selected" : "",
			nstore_reason_name(i));
	fputs("</select></label>", p->f);
	input(p->f, a, "since", "since");
	input(p->f, a, "until", "until");
	input(p->f, a, "bucket", "bucket");
	select_tri(p->f, a, "complete", "complete", "partial");
	select_tri(p->f, a, "authenticated", "yes", "no");
	input(p->f, a, "limit", "limit");
	fputs(" <button>Filter</button></form>\n", p->f);
	dump_table_head(p->f);
	r = nstore_list(w->st, &f, 0, dump_row_cb, &x);
	if (r < 0) {
		store_error(p, r);
		return;
	}
	fprintf(p->f, "</table>\n<p id=\"ndumps\">%ld dumps shown (newest"
		" first, at most %ld).</p>\n", x.n, f.limit);
}

static void page_bucket(struct web *w, struct page *p, struct args *a,
			const char *hash)
{
	struct bucket_rows br = { .f = p->f };
	struct dump_rows dr = { .f = p->f };
	struct key_rows kr = { .f = p->f };
	struct nstore_filter f;
	struct top t = { .n = 0 };
	int r;

	if (parse_args(a, &f) < 0) {
		bad_request(p, a);
		return;
	}
	nstore_filter_init(&f);
	f.bucket = hash;
	f.limit = 2;
	if (nstore_filter_check(&f, NULL)) {
		page_error(p, MHD_HTTP_NOT_FOUND, "no such bucket",
			   "no bucket has so long a hash");
		return;
	}
	r = nstore_buckets(w->st, &f, top_cb, &t);
	if (r < 0)
		goto err;
	if (t.n != 1 || strcmp(t.hash[0], hash)) {
		page_error(p, MHD_HTTP_NOT_FOUND, "no such bucket",
			   t.n ? "give the whole hash of one bucket" :
			   "no dump has this signature");
		return;
	}
	f.limit = 0;
	fputs("<h1>Bucket <span class=\"mono\">", p->f);
	html(p->f, hash);
	fputs("</span></h1>\n", p->f);
	bucket_table_head(p->f);
	r = nstore_buckets(w->st, &f, bucket_row_cb, &br);
	if (r < 0)
		goto err;
	fputs("</table>\n<h2>Crash rate, last 30 days (per day)</h2>\n", p->f);
	r = svg_rate(p, w->st, &f, DAY_MS, 30);
	if (r < 0)
		goto err;
	kr.param = "host";
	kr.bucket = hash;
	fputs("<h2>Hosts</h2>\n<table><tr><th>host</th><th>dumps</th><th>"
	      "</th><th>buckets</th><th>last (UTC)</th></tr>\n", p->f);
	f.limit = 50;
	r = nstore_count(w->st, &f, NSTORE_BY_HOST, 0, key_row_cb, &kr);
	if (r < 0)
		goto err;
	fputs("</table>\n<h2>Kernels</h2>\n<table><tr><th>release</th>"
	      "<th>dumps</th><th></th><th>buckets</th><th>last (UTC)</th>"
	      "</tr>\n", p->f);
	kr.param = "kernel";
	kr.max = 0;
	r = nstore_count(w->st, &f, NSTORE_BY_KERNEL, 0, key_row_cb, &kr);
	if (r < 0)
		goto err;
	fputs("</table>\n<h2>Newest dumps</h2>\n", p->f);
	dump_table_head(p->f);
	f.newest_first = true;
	r = nstore_list(w->st, &f, 0, dump_row_cb, &dr);
	if (r < 0)
		goto err;
	fputs("</table>\n<p><a href=\"/dumps?bucket=", p->f);
	url_value(p->f, hash, false);
	fputs("&amp;limit=1000\">More dumps of this bucket</a></p>\n", p->f);
	return;
err:
	store_error(p, r);
}

/* The log in <pre>, each gap as nstore_render_log() words it, marked. */
static void log_html(FILE *f, const struct nstore_dump *d)
{
	size_t pos = 0, i;

	fputs("<pre class=\"log\" id=\"log\">", f);
	for (i = 0; i <= d->nr_gaps; i++) {
		size_t end = i < d->nr_gaps ? d->gaps[i].off : d->log_len;
		struct nstore_gap g;
		struct nstore_dump one;
		size_t mlen;
		char *m;

		if (end > d->log_len)
			end = d->log_len;
		if (end > pos) {
			html_n(f, d->log + pos, end - pos, NETOOPS_ESC_LOG);
			pos = end;
		}
		if (i == d->nr_gaps)
			break;
		/* The marker alone: the same gap at the start of no text. */
		memset(&one, 0, sizeof(one));
		g.off = 0;
		g.len = d->gaps[i].len;
		one.gaps = &g;
		one.nr_gaps = 1;
		one.log = "";
		if (nstore_render_log(&one, &m, &mlen) < 0) {
			fputs("<span class=\"gap\">?</span>", f);
			continue;
		}
		if (mlen && m[mlen - 1] == '\n')
			mlen--;
		fputs("<span class=\"gap\">", f);
		html_n(f, m, mlen, 0);
		fputs("</span>", f);
		free(m);
	}
	fputs("</pre>\n", f);
}

static void kv(FILE *f, const char *key, const char *value)
{
	fprintf(f, "<dt>%s</dt><dd>", key);
	html(f, value);
	fputs("</dd>\n", f);
}

static void page_dump(struct web *w, struct page *p, struct args *a,
		      const char *ids)
{
	struct nstore_filter f;
	struct nstore_dump *d;
	char t[64], boot[33], *end;
	uint64_t missing = 0;
	long long id;
	size_t i;
	int r;

	if (parse_args(a, &f) < 0) {
		bad_request(p, a);
		return;
	}
	id = strtoll(ids, &end, 10);
	if (*end || end == ids || id <= 0) {
		page_error(p, MHD_HTTP_NOT_FOUND, "no such dump", "bad id");
		return;
	}
	r = nstore_get(w->st, id, &d);
	if (r == -ENOENT) {
		page_error(p, MHD_HTTP_NOT_FOUND, "no such dump", ids);
		return;
	}
	if (r < 0) {
		store_error(p, r);
		return;
	}
	fprintf(p->f, "<h1>Dump %lld</h1>\n<dl class=\"kv\" id=\"header\">\n",
		id);
	kv(p->f, "host", d->hostname);
	kv(p->f, "kernel", d->release);
	kv(p->f, "version", d->version);
	kv(p->f, "arch", d->arch);
	fprintf(p->f, "<dt>reason</dt><dd>%s (oops count %u, part %u, cpu %u)"
		"</dd>\n", nstore_reason_name(d->reason), d->oops_count,
		d->part, d->cpu);
	nstore_boot_id_hex(d->boot_id, boot);
	fprintf(p->f, "<dt>boot / dump</dt><dd class=\"mono\">%s / %llu</dd>\n",
		boot, (unsigned long long)d->dump_id);
	if (d->have_time && nstore_wall_sec_ok(d->wall_sec)) {
		fmt_time(d->wall_sec * 1000, t, sizeof(t));
		fprintf(p->f, "<dt>crashed</dt><dd>%s.%09u UTC, uptime %.3f s"
			"</dd>\n", t, d->wall_nsec, d->uptime_ns / 1e9);
	}
	fmt_time(d->received_ms, t, sizeof(t));
	fprintf(p->f, "<dt>received</dt><dd>%s UTC from ", t);
	html(p->f, d->src);
	fputs("</dd>\n", p->f);
	if (d->have_taint)
		fprintf(p->f, "<dt>taint</dt><dd>0x%llx</dd>\n",
			(unsigned long long)d->taint);
	if (d->cpu_desc)
		kv(p->f, "cpu", d->cpu_desc);
	for (i = 0; i < d->nr_gaps; i++)
		missing += d->gaps[i].len;
	fprintf(p->f, "<dt>state</dt><dd%s>%s, %u of %u packets, %zu gap(s),"
		" %llu bytes missing</dd>\n",
		d->complete ? "" : " class=\"partial\"",
		d->complete ? "complete" : "PARTIAL", d->pkt_received,
		d->pkt_count, d->nr_gaps, (unsigned long long)missing);
	fprintf(p->f, "<dt>payload</dt><dd>%u bytes %s, log %zu bytes</dd>\n",
		d->payload_total, d->compression == NETOOPS_COMPRESS_DEFLATE ?
		"deflate" : "plain", d->log_len);
	/* the collectors whose copies it was built from (store.h) */
	if (d->collectors)
		kv(p->f, "collectors", d->collectors);
	if (d->conflicts)
		fprintf(p->f, "<dt>conflicts</dt><dd>%u datagram(s) of other"
			" copies left out</dd>\n", d->conflicts);
	if (d->authenticated)
		fprintf(p->f, "<dt>authenticated</dt><dd>key %u</dd>\n",
			d->auth_key_id);
	else
		fputs("<dt>authenticated</dt><dd>no</dd>\n", p->f);
	kv(p->f, "title", d->sig_title);
	fputs("<dt>bucket</dt><dd>", p->f);
	bucket_link(p->f, d->sig_hash);
	fputs("</dd>\n", p->f);
	if (d->sig_frames && *d->sig_frames) {
		fputs("<dt>frames</dt><dd class=\"mono\">", p->f);
		html_n(p->f, d->sig_frames, strlen(d->sig_frames),
		       NETOOPS_ESC_KEEP_NL);
		fputs("</dd>\n", p->f);
	}
	fputs("</dl>\n", p->f);
	if (d->nr_user) {
		fputs("<h2>User fields</h2>\n<table id=\"user\">", p->f);
		for (i = 0; i < d->nr_user; i++) {
			fputs("<tr><th>", p->f);
			html(p->f, d->user[i].key);
			fputs("</th><td>", p->f);
			html(p->f, d->user[i].value);
			fputs("</td></tr>\n", p->f);
		}
		fputs("</table>\n", p->f);
	}
	if (d->nr_regs) {
		fprintf(p->f, "<h2>Registers (%s, %s)</h2>\n<table class=\"mono\""
			" id=\"regs\"><tr>",
			d->regs_arch == NETOOPS_ARCH_X86_64 ? "x86_64" :
			d->regs_arch == NETOOPS_ARCH_ARM64 ? "arm64" :
			"unknown arch",
			d->regs_context == NETOOPS_REGS_OOPS ? "oops context" :
			d->regs_context == NETOOPS_REGS_DUMPER ?
			"dumper context" : "unknown context");
		for (i = 0; i < d->nr_regs; i++) {
			const char *name = nstore_reg_name(d->regs_arch, i);

			if (i && !(i % 4))
				fputs("</tr><tr>", p->f);
			if (name)
				fprintf(p->f, "<th>%s</th>", name);
			else
				fprintf(p->f, "<th>reg%zu</th>", i);
			fprintf(p->f, "<td>%016" PRIx64 "</td>", d->regs[i]);
		}
		fputs("</tr></table>\n", p->f);
	}
	fputs("<h2>Log</h2>\n", p->f);
	if (d->log)
		log_html(p->f, d);
	fprintf(p->f, "<p><a href=\"/api/dump/%lld\">JSON</a></p>\n", id);
	nstore_dump_free(d);
}

/* ---- API ------------------------------------------------------------------ */

/* {"error": "..."} with @status. */
static void api_error(struct page *p, unsigned int status, const char *what,
		      const char *detail)
{
	json_t *o = json_object();
	char *t;

	json_object_set_new(o, "error", json_string(what));
	if (detail)
		json_object_set_new(o, "detail", text_json(detail,
							   strlen(detail)));
	t = json_text(o, false, NULL);
	if (t)
		fputs(t, p->f);
	free(t);
	p->status = status;
	p->type = "application/json";
}

static void api_json(struct page *p, json_t *j, int r)
{
	char *t;

	if (r < 0) {
		api_error(p, MHD_HTTP_INTERNAL_SERVER_ERROR, "store error",
			  strerror(-r));
		return;
	}
	t = json_text(j, true, NULL);
	if (!t) {
		api_error(p, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory",
			  NULL);
		return;
	}
	fputs(t, p->f);
	free(t);
	p->type = "application/json";
}

static void api(struct web *w, struct page *p, struct args *a,
		const char *what)
{
	static const char *const list_extra[] = { "no_log", NULL };
	static const char *const count_extra[] = { "by", "step", NULL };
	struct nstore_filter f;
	json_t *j = NULL;
	int r, by;

	/* The whole response is JSON: drop the HTML frame begun. */
	fclose(p->f);
	free(p->buf);
	p->buf = NULL;
	p->f = open_memstream(&p->buf, &p->len);
	if (!p->f)
		return;
	if (!strcmp(what, "dumps"))
		a->extra = list_extra;
	else if (!strcmp(what, "count"))
		a->extra = count_extra;
	if (parse_args(a, &f) < 0) {
		api_error(p, MHD_HTTP_BAD_REQUEST, a->why, a->bad);
		return;
	}
	if (!strcmp(what, "dumps")) {
		/* the whole answer is built in memory: never unbounded */
		if (!f.limit)
			f.limit = API_DUMPS_LIMIT;
		r = list_json(w->st, &f, tristate(arg(a, "no_log")) != 1, &j);
	} else if (!strcmp(what, "buckets")) {
		r = buckets_json(w->st, &f, &j);
	} else if (!strcmp(what, "stats")) {
		r = stats_json(w->st, NULL, &j);
	} else if (!strcmp(what, "hosts") || !strcmp(what, "kernels") ||
		   !strcmp(what, "count")) {
		int64_t step = 3600 * 1000;
		const char *v;
		char *end;

		by = what[0] == 'h' ? NSTORE_BY_HOST :
		     what[0] == 'k' ? NSTORE_BY_KERNEL :
		     parse_group(arg(a, "by") ?: "host");
		if ((v = arg(a, "step"))) {
			long long s = strtoll(v, &end, 10);

			if (*end || s <= 0 || s > INT64_MAX / 1000)
				by = -EINVAL;
			step = s * 1000;
		}
		if (by < 0) {
			api_error(p, MHD_HTTP_BAD_REQUEST, "bad value",
				  "by or step");
			return;
		}
		r = count_json(w->st, &f, by, step, &j);
	} else if (!strncmp(what, "dump/", 5)) {
		struct nstore_dump *d;
		char *end;
		long long id = strtoll(what + 5, &end, 10);

		if (*end || end == what + 5 || id <= 0) {
			api_error(p, MHD_HTTP_NOT_FOUND, "no such dump", NULL);
			return;
		}
		r = nstore_get(w->st, id, &d);
		if (r == -ENOENT) {
			api_error(p, MHD_HTTP_NOT_FOUND, "no such dump", NULL);
			return;
		}
		if (!r) {
			j = dump_to_json(d, true);
			nstore_dump_free(d);
		}
	} else {
		api_error(p, MHD_HTTP_NOT_FOUND, "not found", what);
		return;
	}
	api_json(p, j, r);
}

/* ---- access ------------------------------------------------------------- */

static void sha256(const char *s, size_t len, unsigned char md[32])
{
	unsigned int n = 32;

	if (!EVP_Digest(s, len, md, &n, EVP_sha256(), NULL))
		memset(md, 0, 32);
}

/* Constant time: both sides hashed, the digests compared whole. */
static bool token_ok(const struct web *w, const char *s)
{
	unsigned char md[32];

	if (!s)
		return false;
	sha256(s, strlen(s), md);
	return !CRYPTO_memcmp(md, w->token_md, 32);
}

struct requery {
	FILE *f;
	char sep;
};

static enum MHD_Result requery_cb(void *cls, enum MHD_ValueKind kind,
				  const char *key, const char *value)
{
	struct requery *q = cls;

	(void)kind;
	if (!strcmp(key, "token"))
		return MHD_YES;
	fputc(q->sep, q->f);
	q->sep = '&';
	url_value(q->f, key, false);
	if (value) {
		fputc('=', q->f);
		url_value(q->f, value, false);
	}
	return MHD_YES;
}

static enum MHD_Result send_page(struct MHD_Connection *c, struct page *p,
				 const char *location, const char *cookie)
{
	struct MHD_Response *resp;
	enum MHD_Result ret;

	if (p->f)
		fclose(p->f);
	p->f = NULL;
	if (!p->buf)
		return MHD_NO;
	resp = MHD_create_response_from_buffer(p->len, p->buf,
					       MHD_RESPMEM_MUST_FREE);
	if (!resp) {
		free(p->buf);
		return MHD_NO;
	}
	MHD_add_response_header(resp, "Content-Type", p->type);
	MHD_add_response_header(resp, "Content-Security-Policy",
				"default-src 'none'; style-src 'self';"
				" img-src 'self'; form-action 'self';"
				" frame-ancestors 'none'; base-uri 'none'");
	MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(resp, "X-Frame-Options", "DENY");
	MHD_add_response_header(resp, "Referrer-Policy", "no-referrer");
	MHD_add_response_header(resp, "Cache-Control", "no-store");
	if (location)
		MHD_add_response_header(resp, "Location", location);
	if (cookie)
		MHD_add_response_header(resp, "Set-Cookie", cookie);
	if (p->status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(resp, "Allow", "GET, HEAD");
	if (p->status == MHD_HTTP_UNAUTHORIZED)
		MHD_add_response_header(resp, "WWW-Authenticate",
					"Bearer realm=\"netoops\"");
	ret = MHD_queue_response(c, p->status, resp);
	MHD_destroy_response(resp);
	return ret;
}

/*
 * A token in the query string: a cookie set and a redirect to the same
 * address without it, so that it stays out of the history and of links.
 */
static enum MHD_Result token_redirect(struct MHD_Connection *c,
				      const char *url, const char *token)
{
	struct page p = { .type = "text/plain" };
	struct requery q;
	char *loc = NULL, cookie[TOKEN_MAX + 80];
	size_t loclen;
	enum MHD_Result ret;

	q.f = open_memstream(&loc, &loclen);
	if (!q.f)
		return MHD_NO;
	q.sep = '?';
	/* one leading '/': "//host" would leave this site */
	while (*url == '/')
		url++;
	fputc('/', q.f);
	for (; *url; url++) {
		if (*url == '/' || *url == '.' || *url == '-' || *url == '_' ||
		    (*url >= 'a' && *url <= 'z') ||
		    (*url >= 'A' && *url <= 'Z') ||
		    (*url >= '0' && *url <= '9'))
			fputc(*url, q.f);
		else
			fprintf(q.f, "%%%02X", (unsigned char)*url);
	}
	MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, requery_cb, &q);
	fclose(q.f);
	snprintf(cookie, sizeof(cookie), COOKIE "=%s; Path=/; HttpOnly;"
		 " SameSite=Strict", token);
	p.f = open_memstream(&p.buf, &p.len);
	p.status = MHD_HTTP_SEE_OTHER;
	if (p.f)
		fputs("see other\n", p.f);
	ret = send_page(c, &p, loc, cookie);
	free(loc);
	return ret;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c,
			      const char *url, const char *method,
			      const char *version, const char *upload_data,
			      size_t *upload_data_size, void **con_cls)
{
	struct web *w = cls;
	struct args a = { .c = c };
	struct page p = { 0 };
	const char *v;

	(void)version;
	(void)upload_data;
	(void)upload_data_size;
	(void)con_cls;
	if (strcmp(method, "GET") && strcmp(method, "HEAD")) {
		page_error(&p, MHD_HTTP_METHOD_NOT_ALLOWED, "method not allowed",
			   "this dashboard only reads");
		page_end(&p);
		return send_page(c, &p, NULL, NULL);
	}
	if (w->have_token) {
		bool ok = false;

		v = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
						"Authorization");
		if (v && !strncasecmp(v, "Bearer ", 7))
			ok = token_ok(w, v + 7);
		if (!ok)
			ok = token_ok(w, MHD_lookup_connection_value(c,
					MHD_COOKIE_KIND, COOKIE));
		v = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND,
						"token");
		if (v && token_ok(w, v))
			return token_redirect(c, url, v);
		if (!ok) {
			page_error(&p, MHD_HTTP_UNAUTHORIZED, "unauthorized",
				   "a token is needed: ?token=, or"
				   " Authorization: Bearer");
			page_end(&p);
			return send_page(c, &p, NULL, NULL);
		}
	}
	if (!strcmp(url, "/style.css")) {
		p.f = open_memstream(&p.buf, &p.len);
		p.status = MHD_HTTP_OK;
		p.type = "text/css; charset=utf-8";
		if (p.f)
			fputs(style_css, p.f);
		return send_page(c, &p, NULL, NULL);
	}
	page_begin(&p, url);
	if (!p.f)
		return MHD_NO;
	if (!strcmp(url, "/"))
		page_overview(w, &p, &a);
	else if (!strcmp(url, "/buckets"))
		page_buckets(w, &p, &a);
	else if (!strncmp(url, "/bucket/", 8) && url[8])
		page_bucket(w, &p, &a, url + 8);
	else if (!strcmp(url, "/dumps"))
		page_dumps(w, &p, &a);
	else if (!strncmp(url, "/dump/", 6))
		page_dump(w, &p, &a, url + 6);
	else if (!strcmp(url, "/kernels"))
		page_keys(w, &p, &a, NSTORE_BY_KERNEL);
	else if (!strcmp(url, "/hosts"))
		page_keys(w, &p, &a, NSTORE_BY_HOST);
	else if (!strncmp(url, "/api/", 5))
		api(w, &p, &a, url + 5);
	else
		page_error(&p, MHD_HTTP_NOT_FOUND, "not found", url);
	page_end(&p);
	return send_page(c, &p, NULL, NULL);
}

/* ---- setup -------------------------------------------------------------- */

/* "ADDR:PORT" or "[V6ADDR]:PORT", numeric: a bound, listening socket. */
static int listen_on(const char *spec, int *ret_fd, int *ret_port)
{
	struct addrinfo hints = { .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV,
				  .ai_socktype = SOCK_STREAM };
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char host[128];
	const char *port;
	struct addrinfo *ai;
	int fd, one = 1, r;

	if (spec[0] == '[') {
		const char *e = strchr(spec, ']');

		if (!e || e[1] != ':' || (size_t)(e - spec - 1) >= sizeof(host))
			return -EINVAL;
		memcpy(host, spec + 1, e - spec - 1);
		host[e - spec - 1] = 0;
		port = e + 2;
	} else {
		const char *e = strrchr(spec, ':');

		if (!e || (size_t)(e - spec) >= sizeof(host))
			return -EINVAL;
		memcpy(host, spec, e - spec);
		host[e - spec] = 0;
		port = e + 1;
	}
	if (strspn(port, "0123456789") != strlen(port) || !*port ||
	    strlen(port) > 5 || atoi(port) > 65535 ||
	    getaddrinfo(host, port, &hints, &ai))
		return -EINVAL;
	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		r = -errno;
		freeaddrinfo(ai);
		return r;
	}
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(fd, ai->ai_addr, ai->ai_addrlen) < 0 || listen(fd, 64) < 0 ||
	    getsockname(fd, (struct sockaddr *)&ss, &sl) < 0) {
		r = -errno;
		close(fd);
		freeaddrinfo(ai);
		return r;
	}
	freeaddrinfo(ai);
	*ret_port = ntohs(ss.ss_family == AF_INET6 ?
			  ((struct sockaddr_in6 *)&ss)->sin6_port :
			  ((struct sockaddr_in *)&ss)->sin_port);
	*ret_fd = fd;
	return 0;
}

/*
 * The token: the file's first line, 16 to TOKEN_MAX characters that may
 * stand in a cookie and a URL unescaped.
 */
static int read_token(struct web *w, const char *path)
{
	char *buf, *nl;
	size_t len, i;
	int r;

	r = read_file(path, &buf, &len);
	if (r < 0)
		return r;
	nl = memchr(buf, '\n', len);
	if (nl)
		len = nl - buf;
	if (len && buf[len - 1] == '\r')
		len--;
	r = len < 16 || len > TOKEN_MAX ? -EINVAL : 0;
	for (i = 0; !r && i < len; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "0123456789-._~", buf[i]) || !buf[i])
			r = -EINVAL;
	if (!r)
		sha256(buf, len, w->token_md);
	explicit_bzero(buf, len);
	free(buf);
	w->have_token = !r;
	return r;
}

static int write_ready(const char *path, int port)
{
	char tmp[4096];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "we");
	if (!f)
		return -errno;
	fprintf(f, "port=%d\npid=%d\n", port, (int)getpid());
	if (fclose(f) || rename(tmp, path))
		return -errno;
	return 0;
}

int cmd_web(struct cli *c, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "listen", required_argument, NULL, 'l' },
		{ "token-file", required_argument, NULL, 't' },
		{ "ready-file", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *listen_spec = DEFAULT_LISTEN, *ready = NULL;
	const char *token_file = NULL;
	struct web w = { .db = c->db };
	struct MHD_Daemon *h;
	sigset_t set;
	int o, r, fd = -1, port = 0, sig;

	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (o) {
		case 'l':
			listen_spec = optarg;
			break;
		case 't':
			token_file = optarg;
			break;
		case 'r':
			ready = optarg;
			break;
		case 'h':
			printf("Usage: netoops web [--listen ADDR:PORT]"
			       " [--token-file FILE] [--ready-file FILE]\n");
			return 0;
		default:
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "netoops web: unexpected argument '%s'\n",
			argv[optind]);
		return 2;
	}
	if (token_file) {
		r = read_token(&w, token_file);
		if (r < 0) {
			fprintf(stderr, "netoops web: %s: %s\n", token_file,
				r == -EINVAL ? "the first line must be 16 to"
				" 256 characters of A-Z a-z 0-9 - . _ ~" :
				strerror(-r));
			return 2;
		}
	}
	r = listen_on(listen_spec, &fd, &port);
	if (r < 0) {
		fprintf(stderr, "netoops web: cannot listen on %s: %s\n",
			listen_spec, r == -EINVAL ? "not ADDR:PORT (numeric)" :
			strerror(-r));
		return r == -EINVAL ? 2 : 1;
	}
	if (open_store(c, &w.st) < 0) {
		close(fd);
		return 1;
	}
	/* SIGINT and SIGTERM for sigwait() here, in no other thread. */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	h = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL,
			     0, NULL, NULL, handle, &w,
			     MHD_OPTION_LISTEN_SOCKET, fd,
			     MHD_OPTION_CONNECTION_LIMIT, CONN_LIMIT,
			     MHD_OPTION_PER_IP_CONNECTION_LIMIT, CONN_PER_IP,
			     MHD_OPTION_CONNECTION_TIMEOUT, CONN_TIMEOUT_S,
			     MHD_OPTION_END);
	if (!h) {
		fprintf(stderr, "netoops web: cannot start the HTTP server\n");
		close(fd);
		nstore_close(w.st);
		return 1;
	}
	fprintf(stderr, "netoops web: listening on %s, port %d, store %s%s\n",
		listen_spec, port, c->db, w.have_token ?
		", token required" : "");
	if (ready && (r = write_ready(ready, port)) < 0)
		fprintf(stderr, "netoops web: %s: %s\n", ready, strerror(-r));
	while (sigwait(&set, &sig) == 0 && sig != SIGINT && sig != SIGTERM)
		;
	MHD_stop_daemon(h);
	nstore_close(w.st);
	return 0;
}
