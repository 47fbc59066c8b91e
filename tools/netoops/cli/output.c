// SPDX-License-Identifier: GPL-2.0
/*
 * netoops CLI: how a dump looks, as text and as JSON.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <linux/netoops.h>

#include "cli.h"
#include "netoops_escape.h"

void put_esc(FILE *f, const char *s, size_t len, unsigned int flags,
	     size_t width)
{
	size_t cols = 1;
	char *t;

	if (netoops_escape(s, len, flags, width, &t, &cols) < 0) {
		fputc('?', f);	/* out of memory: nothing raw, ever */
	} else {
		fputs(t, f);
		free(t);
	}
	for (; cols < width; cols++)
		fputc(' ', f);
}

void put_esc_str(FILE *f, const char *s)
{
	put_esc(f, s, strlen(s), 0, 0);
}

void format_ms(int64_t ms, char *buf, size_t len)
{
	time_t t = ms / 1000;
	struct tm tm;

	if (!ms || !gmtime_r(&t, &tm)) {
		snprintf(buf, len, "-");
		return;
	}
	strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm);
}

/*
 * How long before @now_ms @ms was: "42 s ago", "3 min ago", "5 h ago",
 * "12 d ago" (whole units, rounded down; hours up to 2 days), "-" for no
 * time, "in 3 min" for a time ahead of this clock.
 */
void format_age(int64_t now_ms, int64_t ms, char *buf, size_t len)
{
	const char *ago = " ago", *in = "";
	unsigned long long s;

	if (!ms) {
		snprintf(buf, len, "-");
		return;
	}
	/*
	 * The distance in unsigned 64 bits, larger minus smaller: a stored
	 * received_ms may be anything from INT64_MIN to INT64_MAX, and
	 * now_ms - ms in int64_t overflowed for those.
	 */
	if (ms <= now_ms) {
		s = ((uint64_t)now_ms - (uint64_t)ms) / 1000;
	} else {
		s = ((uint64_t)ms - (uint64_t)now_ms) / 1000;
		ago = "";
		in = "in ";
	}
	if (s < 60)
		snprintf(buf, len, "%s%llu s%s", in, s, ago);
	else if (s < 3600)
		snprintf(buf, len, "%s%llu min%s", in, s / 60, ago);
	else if (s < 2 * 86400)
		snprintf(buf, len, "%s%llu h%s", in, s / 3600, ago);
	else
		snprintf(buf, len, "%s%llu d%s", in, s / 86400, ago);
}

static void format_iso(int64_t ms, char *buf, size_t len)
{
	time_t t = ms / 1000;
	struct tm tm;
	size_t n;

	if (!gmtime_r(&t, &tm)) {
		snprintf(buf, len, "?");
		return;
	}
	n = strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + n, len - n, ".%03dZ", (int)(ms % 1000 + 1000) % 1000);
}

char *json_text(json_t *j, bool pretty, size_t *ret_len)
{
	char *t, *nt;
	size_t n;

	if (!j)
		return NULL;
	nt = json_dumps(j, pretty ? JSON_INDENT(2) | JSON_PRESERVE_ORDER
				  : JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(j);
	if (!nt)
		return NULL;
	/* bidirectional controls, invisible characters and C1 as \uXXXX:
	 * the same values, nothing that reorders or hides text raw
	 */
	if (netoops_json_hidden(nt, &t) < 0)
		t = NULL;
	free(nt);
	if (!t)
		return NULL;
	n = strlen(t);
	nt = realloc(t, n + 2);
	if (!nt) {
		free(t);
		return NULL;
	}
	nt[n] = '\n';
	nt[n + 1] = 0;
	if (ret_len)
		*ret_len = n + 1;
	return nt;
}

int print_json(json_t *j, bool pretty)
{
	size_t len;
	char *t = json_text(j, pretty, &len);
	int r;

	if (!t)
		return -1;
	r = fwrite(t, 1, len, stdout) == len ? 0 : -1;
	free(t);
	return r;
}

/*
 * Strings from the network need not be UTF-8: jansson refuses those.  Each
 * byte that is not valid UTF-8 becomes '?', as the stores clean what they
 * keep (netoops_utf8_clean()), and the valid characters around it stay.
 */
json_t *text_json(const char *s, size_t len)
{
	json_t *j = json_stringn(s, len);
	char *copy;

	if (j)
		return j;
	if (netoops_utf8_clean(s, len, &copy, NULL) < 0)
		return json_null();
	j = json_stringn(copy, len);
	free(copy);
	return j ? j : json_null();
}

static json_t *str_or_null(const char *s)
{
	return s ? text_json(s, strlen(s)) : json_null();
}

/* "A,B" as ["A", "B"]; [] for none recorded. */
static json_t *collectors_json(const char *list)
{
	json_t *a = json_array();
	const char *p, *e;

	for (p = list; p && *p; p = *e ? e + 1 : e) {
		e = strchrnul(p, ',');
		json_array_append_new(a, json_stringn(p, e - p));
	}
	return a;
}

json_t *dump_to_json(const struct nstore_dump *d, bool with_log)
{
	json_t *o = json_object(), *a, *u, *r;
	char boot[33], buf[64];
	uint64_t missing = 0;
	size_t i;

	nstore_boot_id_hex(d->boot_id, boot);
	json_object_set_new(o, "id", json_integer(d->id));
	json_object_set_new(o, "boot_id", json_string(boot));
	json_object_set_new(o, "dump_id", json_integer((json_int_t)d->dump_id));
	json_object_set_new(o, "host", str_or_null(d->hostname));
	json_object_set_new(o, "hostname", str_or_null(d->hostname));
	json_object_set_new(o, "release", str_or_null(d->release));
	json_object_set_new(o, "version", str_or_null(d->version));
	json_object_set_new(o, "arch", str_or_null(d->arch));
	json_object_set_new(o, "reason",
			    json_string(nstore_reason_name(d->reason)));
	json_object_set_new(o, "reason_code", json_integer(d->reason));
	json_object_set_new(o, "oops_count", json_integer(d->oops_count));
	json_object_set_new(o, "part", json_integer(d->part));
	json_object_set_new(o, "cpu", json_integer(d->cpu));
	/* a stored time out of range (store.h) is no time */
	if (d->have_time && nstore_wall_sec_ok(d->wall_sec)) {
		format_iso(d->wall_sec * 1000 + d->wall_nsec / 1000000, buf,
			   sizeof(buf));
		json_object_set_new(o, "crash_time", json_string(buf));
		json_object_set_new(o, "wall_sec", json_integer(d->wall_sec));
		json_object_set_new(o, "wall_nsec", json_integer(d->wall_nsec));
		json_object_set_new(o, "uptime_ns",
				    json_integer((json_int_t)d->uptime_ns));
	}
	if (d->have_taint)
		json_object_set_new(o, "taint",
				    json_integer((json_int_t)d->taint));
	json_object_set_new(o, "cpu_desc", str_or_null(d->cpu_desc));
	json_object_set_new(o, "complete", json_boolean(d->complete));
	json_object_set_new(o, "pkt_count", json_integer(d->pkt_count));
	json_object_set_new(o, "pkt_received", json_integer(d->pkt_received));
	json_object_set_new(o, "compression",
			    json_string(d->compression ==
					NETOOPS_COMPRESS_DEFLATE ? "deflate" :
					"none"));
	json_object_set_new(o, "payload_total", json_integer(d->payload_total));
	json_object_set_new(o, "authenticated", json_boolean(d->authenticated));
	json_object_set_new(o, "auth_key_id", d->authenticated ?
			    json_integer(d->auth_key_id) : json_null());
	a = json_array();
	for (i = 0; i < d->nr_gaps; i++) {
		json_t *g = json_object();

		json_object_set_new(g, "off",
				    json_integer((json_int_t)d->gaps[i].off));
		json_object_set_new(g, "len",
				    json_integer((json_int_t)d->gaps[i].len));
		json_array_append_new(a, g);
		missing += d->gaps[i].len;
	}
	json_object_set_new(o, "gaps", a);
	json_object_set_new(o, "missing_bytes", json_integer(missing));
	json_object_set_new(o, "src", str_or_null(d->src));
	json_object_set_new(o, "collectors", collectors_json(d->collectors));
	json_object_set_new(o, "conflicts", json_integer(d->conflicts));
	format_iso(d->received_ms, buf, sizeof(buf));
	json_object_set_new(o, "received", json_string(buf));
	json_object_set_new(o, "received_ms", json_integer(d->received_ms));
	json_object_set_new(o, "bucket", str_or_null(d->sig_hash));
	json_object_set_new(o, "title", str_or_null(d->sig_title));
	a = json_array();
	if (d->sig_frames && *d->sig_frames) {
		const char *p = d->sig_frames, *nl;

		for (;;) {
			nl = strchr(p, '\n');
			json_array_append_new(a, text_json(p, nl ? (size_t)
							     (nl - p) :
							     strlen(p)));
			if (!nl)
				break;
			p = nl + 1;
		}
	}
	json_object_set_new(o, "frames", a);
	u = json_object();
	for (i = 0; i < d->nr_user; i++)
		json_object_set_new(u, d->user[i].key,
				    text_json(d->user[i].value,
					      strlen(d->user[i].value)));
	json_object_set_new(o, "user", u);
	r = json_object();
	for (i = 0; i < d->nr_regs; i++) {
		const char *name = nstore_reg_name(d->regs_arch, i);
		char nb[16];

		if (!name) {
			snprintf(nb, sizeof(nb), "reg%zu", i);
			name = nb;
		}
		snprintf(buf, sizeof(buf), "0x%016" PRIx64, d->regs[i]);
		json_object_set_new(r, name, json_string(buf));
	}
	json_object_set_new(o, "regs", r);
	json_object_set_new(o, "log_len", json_integer(d->log_len));
	if (with_log && d->log) {
		char *text;
		size_t len;

		if (!nstore_render_log(d, &text, &len)) {
			json_object_set_new(o, "log", text_json(text, len));
			free(text);
		}
	}
	return o;
}

/* "key N" or "no": whether every datagram was verified with one key. */
static void format_auth(const struct nstore_dump *d, char *buf, size_t len)
{
	if (d->authenticated)
		snprintf(buf, len, "key %u", d->auth_key_id);
	else
		snprintf(buf, len, "no");
}

void dump_print_header(FILE *f)
{
	fprintf(f, "%6s  %-19s  %-11s  %-16s  %-22s  %-8s  %-8s  %-8s  %s\n",
		"ID", "RECEIVED (UTC)", "AGE", "HOST", "KERNEL", "REASON",
		"STATE", "AUTH", "TITLE");
}

/* Sender text is cut and padded as escaped: an escape is never split. */
void dump_print_line(FILE *f, const struct nstore_dump *d, int64_t now_ms)
{
	char t[32], auth[24], age[32];

	format_ms(d->received_ms, t, sizeof(t));
	format_age(now_ms, d->received_ms, age, sizeof(age));
	format_auth(d, auth, sizeof(auth));
	fprintf(f, "%6lld  %-19s  %-11s  ", (long long)d->id, t, age);
	put_esc(f, d->hostname ?: "?", strlen(d->hostname ?: "?"), 0, 16);
	fputs("  ", f);
	put_esc(f, d->release ?: "?", strlen(d->release ?: "?"), 0, 22);
	fprintf(f, "  %-8s  %-8s  %-8s  ", nstore_reason_name(d->reason),
		d->complete ? "complete" : "partial", auth);
	put_esc_str(f, d->sig_title ?: "");
	fputc('\n', f);
}

static void print_regs(FILE *f, const struct nstore_dump *d)
{
	size_t i;
	int col = 0;

	fprintf(f, "Registers (%s, %s):\n",
		d->regs_arch == NETOOPS_ARCH_X86_64 ? "x86_64" :
		d->regs_arch == NETOOPS_ARCH_ARM64 ? "arm64" : "unknown arch",
		d->regs_context == NETOOPS_REGS_OOPS ? "oops context" :
		d->regs_context == NETOOPS_REGS_DUMPER ? "dumper context" :
		"unknown context");
	for (i = 0; i < d->nr_regs; i++) {
		const char *name = nstore_reg_name(d->regs_arch, i);
		char nb[16];

		if (!name) {
			snprintf(nb, sizeof(nb), "reg%zu", i);
			name = nb;
		}
		fprintf(f, "  %8s: %016" PRIx64, name, d->regs[i]);
		if (++col == 3) {
			fputc('\n', f);
			col = 0;
		}
	}
	if (col)
		fputc('\n', f);
}

/* "  label: value\n" with the value escaped. */
static void field(FILE *f, const char *label, const char *value)
{
	fputs(label, f);
	put_esc_str(f, value);
	fputc('\n', f);
}

void dump_print_text(FILE *f, const struct nstore_dump *d, bool auth_checked)
{
	char boot[33], t[32], auth[24], age[32];
	uint64_t missing = 0;
	size_t i, len;
	char *text;

	nstore_boot_id_hex(d->boot_id, boot);
	format_ms(d->received_ms, t, sizeof(t));
	fprintf(f, "Dump %lld\n", (long long)d->id);
	fprintf(f, "  boot_id:   %s\n  dump_id:   %llu\n", boot,
		(unsigned long long)d->dump_id);
	field(f, "  host:      ", d->hostname ?: "?");
	fputs("  kernel:    ", f);
	put_esc_str(f, d->release ?: "?");
	fputc(' ', f);
	put_esc_str(f, d->version ?: "");
	fputc(' ', f);
	field(f, "", d->arch ?: "");
	fprintf(f, "  reason:    %s (oops count %u, part %u, cpu %u)\n",
		nstore_reason_name(d->reason), d->oops_count, d->part, d->cpu);
	if (d->have_time && nstore_wall_sec_ok(d->wall_sec)) {
		format_ms(d->wall_sec * 1000, t, sizeof(t));
		fprintf(f, "  crashed:   %s.%09u UTC, uptime %.3f s\n", t,
			d->wall_nsec, d->uptime_ns / 1e9);
	}
	format_ms(d->received_ms, t, sizeof(t));
	format_age(now_wall_ms(), d->received_ms, age, sizeof(age));
	fprintf(f, "  received:  %s UTC (%s) from ", t, age);
	field(f, "", d->src ?: "?");
	if (d->have_taint)
		fprintf(f, "  taint:     0x%llx\n",
			(unsigned long long)d->taint);
	if (d->cpu_desc)
		field(f, "  cpu:       ", d->cpu_desc);
	for (i = 0; i < d->nr_gaps; i++)
		missing += d->gaps[i].len;
	fprintf(f, "  state:     %s, %u of %u packets, %zu gap(s), %llu bytes"
		" missing\n", d->complete ? "complete" : "PARTIAL",
		d->pkt_received, d->pkt_count, d->nr_gaps,
		(unsigned long long)missing);
	fprintf(f, "  payload:   %u bytes %s, log %zu bytes\n",
		d->payload_total,
		d->compression == NETOOPS_COMPRESS_DEFLATE ? "deflate" : "plain",
		d->log_len);
	/* which collectors' copies it was built from (a merge: several) */
	if (d->collectors)
		field(f, "  collectors: ", d->collectors);
	if (d->conflicts)
		fprintf(f, "  conflicts: %u datagram(s) of other copies"
			" contradicted this one and were left out\n",
			d->conflicts);
	format_auth(d, auth, sizeof(auth));
	fprintf(f, "  authenticated: %s\n", auth_checked ? auth :
		"not checked (no MAC key here)");
	field(f, "  title:     ", d->sig_title ?: "-");
	field(f, "  bucket:    ", d->sig_hash ?: "-");
	if (d->sig_frames && *d->sig_frames) {
		const char *p = d->sig_frames, *nl;

		fprintf(f, "  frames:    ");
		for (;;) {
			nl = strchr(p, '\n');
			put_esc(f, p, nl ? (size_t)(nl - p) : strlen(p), 0, 0);
			if (!nl)
				break;
			fputs(", ", f);
			p = nl + 1;
		}
		fputc('\n', f);
	}
	if (d->nr_user) {
		fprintf(f, "User fields:\n");
		for (i = 0; i < d->nr_user; i++) {
			fputs("  ", f);
			put_esc_str(f, d->user[i].key);
			field(f, " = ", d->user[i].value);
		}
	}
	if (d->nr_regs)
		print_regs(f, d);
	if (d->log && !nstore_render_log(d, &text, &len)) {
		fprintf(f, "Log:\n");
		put_esc(f, text, len, NETOOPS_ESC_LOG, 0);
		if (len && text[len - 1] != '\n')
			fputc('\n', f);
		free(text);
	}
}

json_t *bucket_to_json(const struct nstore_bucket *b)
{
	json_t *o = json_object(), *k = json_array();
	const char *p = b->kernels;
	char first[32], last[32];

	format_ms(b->first_ms, first, sizeof(first));
	format_ms(b->last_ms, last, sizeof(last));
	json_object_set_new(o, "bucket", text_json(b->sig_hash,
						   strlen(b->sig_hash)));
	json_object_set_new(o, "title", str_or_null(b->sig_title));
	json_object_set_new(o, "count", json_integer(b->count));
	json_object_set_new(o, "hosts", json_integer(b->hosts));
	while (p && *p) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);

		json_array_append_new(k, text_json(p, n));
		p += n + !!comma;
	}
	json_object_set_new(o, "kernels", k);
	json_object_set_new(o, "first_seen_ms", json_integer(b->first_ms));
	json_object_set_new(o, "last_seen_ms", json_integer(b->last_ms));
	json_object_set_new(o, "first_seen", json_string(first));
	json_object_set_new(o, "last_seen", json_string(last));
	json_object_set_new(o, "example_id", json_integer(b->example_id));
	return o;
}

json_t *count_row_to_json(const struct nstore_count_row *r,
			  enum nstore_group by)
{
	json_t *o = json_object();
	char buf[64];

	if (by == NSTORE_BY_TIME) {
		json_object_set_new(o, "slot_ms", json_integer(r->slot_ms));
		format_iso(r->slot_ms, buf, sizeof(buf));
		json_object_set_new(o, "slot", json_string(buf));
	} else {
		json_object_set_new(o, by == NSTORE_BY_HOST ? "host" : "kernel",
				    str_or_null(r->key));
	}
	json_object_set_new(o, "count", json_integer(r->count));
	json_object_set_new(o, "buckets", json_integer(r->buckets));
	json_object_set_new(o, "last_ms", json_integer(r->last_ms));
	format_iso(r->last_ms, buf, sizeof(buf));
	json_object_set_new(o, "last", json_string(buf));
	return o;
}

json_t *stats_to_json(const struct nstore_stats *s, json_t *daemon)
{
	json_t *o = json_object();

	json_object_set_new(o, "dumps", json_integer(s->dumps));
	json_object_set_new(o, "complete", json_integer(s->complete));
	json_object_set_new(o, "partial", json_integer(s->partial));
	json_object_set_new(o, "buckets", json_integer(s->buckets));
	json_object_set_new(o, "hosts", json_integer(s->hosts));
	json_object_set_new(o, "log_bytes", json_integer(s->log_bytes));
	json_object_set_new(o, "file_bytes", json_integer(s->file_bytes));
	json_object_set_new(o, "daemon", daemon ? daemon : json_null());
	return o;
}
