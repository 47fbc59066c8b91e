// SPDX-License-Identifier: GPL-2.0
/*
 * Crash signature tests (cmocka, run under ASan+UBSan).
 *
 *   NETOOPS_SIG_CORPUS=tests/signatures build-san/tests-sig/test_signature
 *
 * - every golden log of the corpus gives the TITLE/KIND/FRAMES of its
 *   header; logs of one BUCKET share a hash, different BUCKETs do not;
 * - logs without a crash give -ENOENT;
 * - presentation changes (CRLF, no timestamps, pstore "<N>" levels, caller
 *   ids, syslog "kernel: " tags) do not change a signature;
 * - garbage: truncated, mutated, NUL-ridden and huge-line input never
 *   crashes and always yields well-formed output (bounded random loop).
 */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib_test_util.h"
#include "sig/signature.h"

#define MAX_FILES	256
#define MUTATION_ROUNDS	4000

struct golden {
	char name[256];
	char title[NETOOPS_SIG_TITLE_LEN];
	char kind[NETOOPS_SIG_KIND_LEN];
	char frames[NETOOPS_SIG_TEXT_LEN];
	char bucket[128];
	char *body;		/* the raw log after the header, malloc'd */
	size_t body_len;
};

static struct golden corpus[MAX_FILES];
static size_t ncorpus;

static const char *corpus_dir(void)
{
	const char *d = getenv("NETOOPS_SIG_CORPUS");

	return d && *d ? d : "../../tests/signatures";
}

/* Copy the value of "KEY: value\n" from the header into out. */
static int header_field(const char *text, const char *key, char *out,
			size_t size)
{
	size_t klen = strlen(key);
	const char *p = text;

	while (*p && *p != '\n') {
		const char *eol = strchr(p, '\n');

		if (!eol)
			return -EINVAL;
		if (strncmp(p, key, klen) == 0 && p[klen] == ':' &&
		    p[klen + 1] == ' ') {
			size_t n = (size_t)(eol - (p + klen + 2));

			if (n >= size)
				return -E2BIG;
			memcpy(out, p + klen + 2, n);
			out[n] = '\0';
			return 0;
		}
		p = eol + 1;
	}
	return -ENOENT;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int is_txt(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return n > 4 && strcmp(d->d_name + n - 4, ".txt") == 0;
}

static int load_corpus(void **state)
{
	struct dirent **names;
	int n;

	(void)state;
	n = scandir(corpus_dir(), &names, is_txt, by_name);
	if (n < 0) {
		fprintf(stderr, "cannot read corpus %s (set NETOOPS_SIG_CORPUS)\n",
			corpus_dir());
		return -1;
	}
	for (int i = 0; i < n; i++) {
		struct golden *g = &corpus[ncorpus];
		char path[4096];
		size_t len;
		char *text, *body;

		snprintf(path, sizeof(path), "%s/%s", corpus_dir(),
			 names[i]->d_name);
		snprintf(g->name, sizeof(g->name), "%.200s", names[i]->d_name);
		free(names[i]);
		if (ncorpus == MAX_FILES)
			continue;
		text = tu_read_text(path, &len);
		if (!text)
			return -1;
		body = strstr(text, "\n\n");
		if (!body || header_field(text, "TITLE", g->title,
					  sizeof(g->title)) ||
		    header_field(text, "KIND", g->kind, sizeof(g->kind)) ||
		    header_field(text, "FRAMES", g->frames,
				 sizeof(g->frames)) ||
		    header_field(text, "BUCKET", g->bucket,
				 sizeof(g->bucket))) {
			fprintf(stderr, "%s: bad header\n", path);
			free(text);
			return -1;
		}
		body += 2;
		g->body_len = len - (size_t)(body - text);
		g->body = malloc(g->body_len ? g->body_len : 1);
		if (!g->body)
			return -1;
		memcpy(g->body, body, g->body_len);
		free(text);
		ncorpus++;
	}
	free(names);
	return 0;
}

static int free_corpus(void **state)
{
	(void)state;
	for (size_t i = 0; i < ncorpus; i++)
		free(corpus[i].body);
	ncorpus = 0;
	return 0;
}

/* Signature of an exact-size heap copy, so ASan sees any over-read. */
static int sig_of(const char *buf, size_t len, struct netoops_sig *sig)
{
	char *copy = malloc(len ? len : 1);
	int err;

	assert_non_null(copy);
	if (len)
		memcpy(copy, buf, len);
	err = netoops_signature(len ? copy : NULL, len, sig);
	free(copy);
	return err;
}

static void assert_well_formed(const struct netoops_sig *sig)
{
	size_t tl;

	assert_true(memchr(sig->title, 0, sizeof(sig->title)) != NULL);
	assert_true(memchr(sig->text, 0, sizeof(sig->text)) != NULL);
	assert_true(memchr(sig->kind, 0, sizeof(sig->kind)) != NULL);
	assert_true(sig->title[0] != '\0');
	assert_true(sig->kind[0] != '\0');
	assert_true(sig->nframes <= NETOOPS_SIG_MAX_FRAMES);
	for (unsigned int i = 0; i < sig->nframes; i++) {
		assert_true(memchr(sig->frames[i], 0, NETOOPS_SIG_FRAME_LEN));
		assert_true(sig->frames[i][0] != '\0');
		assert_null(strpbrk(sig->frames[i], " +[]?"));
	}
	assert_int_equal(strlen(sig->hash), 16);
	assert_int_equal(strspn(sig->hash, "0123456789abcdef"), 16);
	tl = strlen(sig->title);
	assert_true(strncmp(sig->text, sig->title, tl) == 0 ||
		    tl >= sizeof(sig->text) - 1);
}

static void frames_joined(const struct netoops_sig *sig, char *out,
			  size_t size)
{
	out[0] = '\0';
	for (unsigned int i = 0; i < sig->nframes; i++) {
		if (i)
			strncat(out, " ", size - strlen(out) - 1);
		strncat(out, sig->frames[i], size - strlen(out) - 1);
	}
}

static void test_corpus_size(void **state)
{
	size_t buckets = 0;

	(void)state;
	/* an empty or shrunken corpus must not pass silently */
	assert_true(ncorpus >= 24);
	for (size_t i = 0; i < ncorpus; i++) {
		size_t j;

		for (j = 0; j < i; j++)
			if (!strcmp(corpus[i].bucket, corpus[j].bucket))
				break;
		buckets += j == i;
	}
	assert_true(buckets >= 18);
	assert_true(buckets < ncorpus);	/* there are duplicates */
}

static void test_corpus_golden(void **state)
{
	int failed = 0;

	(void)state;
	for (size_t i = 0; i < ncorpus; i++) {
		const struct golden *g = &corpus[i];
		struct netoops_sig sig;
		char frames[NETOOPS_SIG_TEXT_LEN];
		int err = sig_of(g->body, g->body_len, &sig);

		assert_well_formed(&sig);
		frames_joined(&sig, frames, sizeof(frames));
		if (err || strcmp(sig.title, g->title) ||
		    strcmp(sig.kind, g->kind) || strcmp(frames, g->frames)) {
			fprintf(stderr,
				"%s:\n  want [%d] %s | %s | %s\n  got  [%d] %s | %s | %s\n",
				g->name, 0, g->title, g->kind, g->frames, err,
				sig.title, sig.kind, frames);
			failed++;
		}
	}
	assert_int_equal(failed, 0);
}

static void test_corpus_buckets(void **state)
{
	static struct netoops_sig sigs[MAX_FILES];

	(void)state;
	for (size_t i = 0; i < ncorpus; i++)
		assert_int_equal(sig_of(corpus[i].body, corpus[i].body_len,
					&sigs[i]), 0);
	for (size_t i = 0; i < ncorpus; i++) {
		for (size_t j = i + 1; j < ncorpus; j++) {
			bool same_bucket = !strcmp(corpus[i].bucket,
						   corpus[j].bucket);
			bool same_hash = !strcmp(sigs[i].hash, sigs[j].hash);

			if (same_bucket != same_hash)
				fprintf(stderr, "%s vs %s: buckets %s/%s hashes %s/%s\n",
					corpus[i].name, corpus[j].name,
					corpus[i].bucket, corpus[j].bucket,
					sigs[i].hash, sigs[j].hash);
			assert_int_equal(same_bucket, same_hash);
			assert_int_equal(same_bucket,
					 !strcmp(sigs[i].text, sigs[j].text));
		}
	}
}

static void test_nocrash(void **state)
{
	char dir[4096];
	struct dirent **names;
	int n;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/nocrash", corpus_dir());
	n = scandir(dir, &names, is_txt, by_name);
	assert_true(n >= 2);
	for (int i = 0; i < n; i++) {
		struct netoops_sig sig;
		char path[8192];
		size_t len;
		char *text;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
		free(names[i]);
		text = tu_read_text(path, &len);
		assert_non_null(text);
		assert_int_equal(sig_of(text, len, &sig), -ENOENT);
		assert_string_equal(sig.kind, "unknown");
		assert_int_equal(sig.nframes, 0);
		assert_well_formed(&sig);
		free(text);
	}
	free(names);
}

static void test_args(void **state)
{
	struct netoops_sig sig;

	(void)state;
	assert_int_equal(netoops_signature("x", 1, NULL), -EINVAL);
	assert_int_equal(netoops_signature(NULL, 5, &sig), -EINVAL);
	assert_int_equal(netoops_signature(NULL, 0, &sig), -ENOENT);
	assert_string_equal(sig.title, "unknown");
	assert_string_equal(sig.kind, "unknown");
	assert_int_equal(netoops_signature("\n\n  \r\n", 5, &sig), -ENOENT);
	assert_string_equal(sig.title, "unknown");
}

/* Known FNV-1a 64 vector: "a" -> af63dc4c8601ec8c. */
static void test_hash_vector(void **state)
{
	struct netoops_sig sig;

	(void)state;
	assert_int_equal(netoops_signature("a", 1, &sig), -ENOENT);
	assert_string_equal(sig.text, "a");
	assert_string_equal(sig.hash, "af63dc4c8601ec8c");
}

/* Rewrite each line of src with fn into a new buffer. */
typedef void (*line_fn)(const char *line, size_t n, char *out, size_t *o,
			size_t idx);

static char *rewrite(const char *src, size_t len, line_fn fn, size_t *ret_len)
{
	char *out = malloc(len * 3 + 64);
	size_t o = 0, idx = 0;
	const char *p = src, *end = src + len;

	assert_non_null(out);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		fn(p, n, out, &o, idx++);
		p += n + (nl ? 1 : 0);
	}
	*ret_len = o;
	return out;
}

static void put(char *out, size_t *o, const char *s, size_t n)
{
	memcpy(out + *o, s, n);
	*o += n;
}

static size_t ts_len(const char *line, size_t n)
{
	const char *e = memchr(line, ']', n);

	return line[0] == '[' && e ? (size_t)(e - line) + 1 : 0;
}

static void to_crlf(const char *l, size_t n, char *out, size_t *o, size_t i)
{
	(void)i;
	put(out, o, l, n);
	put(out, o, "\r\n", 2);
}

static void no_timestamp(const char *l, size_t n, char *out, size_t *o,
			 size_t i)
{
	size_t t = ts_len(l, n);

	(void)i;
	if (t && t < n && l[t] == ' ')
		t++;
	put(out, o, l + t, n - t);
	put(out, o, "\n", 1);
}

static void pstore_level(const char *l, size_t n, char *out, size_t *o,
			 size_t i)
{
	if (ts_len(l, n))	/* lines that have no level yet */
		put(out, o, i % 2 ? "<4>" : "<0>", 3);
	put(out, o, l, n);
	put(out, o, "\n", 1);
}

static void caller_id(const char *l, size_t n, char *out, size_t *o,
		      size_t i)
{
	size_t t = ts_len(l, n);
	char id[16];

	put(out, o, l, t);
	snprintf(id, sizeof(id), "[%5c%zu]", i % 3 ? 'T' : 'C', i % 700);
	if (t)
		put(out, o, id, strlen(id));
	put(out, o, l + t, n - t);
	put(out, o, "\n", 1);
}

static void syslog_tag(const char *l, size_t n, char *out, size_t *o,
		       size_t i)
{
	size_t t = ts_len(l, n);

	(void)i;
	if (t && t < n && l[t] == ' ')
		t++;
	if (t)
		put(out, o, "kernel: ", 8);
	put(out, o, l + t, n - t);
	put(out, o, "\n", 1);
}

/* dmesg -T: "[Thu Dec  3 10:28:57 2026] msg" */
static void human_time(const char *l, size_t n, char *out, size_t *o,
		       size_t i)
{
	size_t t = ts_len(l, n);
	char stamp[40];

	if (t) {
		snprintf(stamp, sizeof(stamp), "[Thu Dec  3 10:%02zu:%02zu 2026]",
			 i / 60 % 60, i % 60);
		put(out, o, stamp, strlen(stamp));
	}
	put(out, o, l + t, n - t);
	put(out, o, "\n", 1);
}

/* journalctl / syslog: "Dec 03 10:28:57 vm1 kernel: msg" */
static void journal(const char *l, size_t n, char *out, size_t *o, size_t i)
{
	size_t t = ts_len(l, n);
	char stamp[64];

	if (t && t < n && l[t] == ' ')
		t++;
	if (t) {
		snprintf(stamp, sizeof(stamp),
			 i % 2 ? "Dec 03 10:%02zu:%02zu vm-%zu kernel: "
			       : "2026-12-03T10:%02zu:%02zu.123456+00:00 vm-%zu kernel: ",
			 i / 60 % 60, i % 60, i % 7);
		put(out, o, stamp, strlen(stamp));
	}
	put(out, o, l + t, n - t);
	put(out, o, "\n", 1);
}

/* /dev/kmsg, extended netconsole: "4,338,8483953,-;msg" */
static void kmsg_ext(const char *l, size_t n, char *out, size_t *o, size_t i)
{
	size_t t = ts_len(l, n);
	char hdr[48];

	if (t && t < n && l[t] == ' ')
		t++;
	if (t) {
		snprintf(hdr, sizeof(hdr), "%zu,%zu,%zu,%s;", i % 8, 300 + i,
			 8483953 + i * 17, i % 5 ? "-" : "c,ncfrag=0/1024");
		put(out, o, hdr, strlen(hdr));
	}
	put(out, o, l + t, n - t);
	put(out, o, "\n", 1);
}

static void test_presentation_invariance(void **state)
{
	static const line_fn fns[] = {
		to_crlf, no_timestamp, pstore_level, caller_id, syslog_tag,
		human_time, journal, kmsg_ext,
	};

	(void)state;
	for (size_t i = 0; i < ncorpus; i++) {
		struct netoops_sig ref, sig;
		int err;

		assert_int_equal(sig_of(corpus[i].body, corpus[i].body_len,
					&ref), 0);
		for (size_t f = 0; f < sizeof(fns) / sizeof(*fns); f++) {
			size_t len;
			char *v = rewrite(corpus[i].body, corpus[i].body_len,
					  fns[f], &len);

			err = sig_of(v, len, &sig);
			free(v);
			if (err || strcmp(sig.hash, ref.hash))
				fprintf(stderr, "%s variant %zu: %s\n  vs %s\n",
					corpus[i].name, f, sig.text, ref.text);
			assert_int_equal(err, 0);
			assert_string_equal(sig.hash, ref.hash);
		}
	}
}

/* Only the first report counts: a log followed by another report. */
static void test_first_report_wins(void **state)
{
	(void)state;
	for (size_t i = 0; i + 1 < ncorpus; i++) {
		const struct golden *a = &corpus[i], *b = &corpus[i + 1];
		struct netoops_sig ref, sig;
		size_t len = a->body_len + b->body_len;
		char *cat = malloc(len);

		assert_non_null(cat);
		memcpy(cat, a->body, a->body_len);
		memcpy(cat + a->body_len, b->body, b->body_len);
		assert_int_equal(sig_of(a->body, a->body_len, &ref), 0);
		assert_int_equal(sig_of(cat, len, &sig), 0);
		assert_string_equal(sig.title, ref.title);
		/*
		 * Reports that end only at the next report (no end marker)
		 * may pick up its frames; the title must still be the first.
		 */
		free(cat);
	}
}

#define REPEAT_4(s)	s s s s
#define REPEAT_20(s)	REPEAT_4(s) REPEAT_4(s) REPEAT_4(s) REPEAT_4(s) REPEAT_4(s)
#define REPEAT_400(s)	REPEAT_20(REPEAT_20(s))

static void test_normalization_rules(void **state)
{
	static const struct {
		const char *log, *title, *kind, *frames;
	} cases[] = {
		{ "[ 1.0] WARNING: CPU: 3 PID: 9 at foo_fn.isra.0+0x1/0x2 [m]\n",
		  "WARNING in foo_fn", "warn", "" },
		{ "kernel BUG at fs/foo/bar.c:12!\n", "kernel BUG at fs/foo/bar.c",
		  "bug", "" },
		/* the WARNING format of newer kernels */
		{ "WARNING: drivers/foo.c:42 at foo_fn+0x1a/0x30 [foo], CPU#0: insmod/345\n",
		  "WARNING in foo_fn", "warn", "" },
		{ "INFO: task kworker/u4:1:57 blocked for more than 122 seconds.\nCall Trace:\n <TASK>\n __schedule+0x1/0x2\n io_schedule+0x1/0x2\n folio_wait_bit_common+0x1/0x2\n </TASK>\n",
		  "INFO: task hung in folio_wait_bit_common", "hung-task",
		  "folio_wait_bit_common" },
		{ "kernel BUG at /build/out/src/mod/x.c:7!\n",
		  "kernel BUG at x.c", "bug", "" },
		{ "kernel BUG at lib/list_debug.c:29!\nRIP: 0010:__list_del_entry_valid.cold+0x1/0x2\nCall Trace:\n <TASK>\n foo_del.constprop.0+0x1/0x2 [x]\n </TASK>\n",
		  "list corruption in foo_del", "list-corruption", "foo_del" },
		{ "Kernel panic - not syncing: Attempted to kill init! exitcode=0x0000000b\n",
		  "Kernel panic: Attempted to kill init! exitcode=N", "panic", "" },
		{ "Kernel panic - not syncing: VFS: Unable to mount root fs on unknown-block(0,0)\n",
		  "Kernel panic: VFS: Unable to mount root fs on unknown-block(N,N)",
		  "panic", "" },
		{ "BUG: unable to handle page fault for address: ffffc90000010000\nRIP: 0010:kmalloc_noprof+0x1/0x2\nCall Trace:\n <TASK>\n bar.part.0+0x3/0x4\n ? junk+0x1/0x2\n [<ffffffff81000000>] baz+0x5/0x6 [mod 0123abcd]\n qux.cold+0x1/0x2\n </TASK>\n",
		  "BUG: unable to handle page fault in bar", "page-fault",
		  "bar baz qux" },
		{ "rcu: INFO: rcu_sched detected expedited stalls on CPUs/tasks: { 1-... }\n",
		  "INFO: rcu detected stall", "rcu-stall", "" },
		{ "BUG: Bad page state in process swapper/0  pfn:04a3c\n",
		  "BUG: Bad page state in process swapper/N pfn", "bug", "" },
		{ "invalid opcode: 0000 [#1] SMP NOPTI\nRIP: 0010:f1+0x1/0x2\n",
		  "Oops: invalid opcode in f1", "oops", "f1" },
		/* a trace far below the report belongs to something else */
		{ "BUG: Bad rss-counter state mm:0000000012345678 type:MM_ANONPAGES val:1\n"
		  REPEAT_400("noise\n")
		  "Call Trace:\n <TASK>\n other_fn+0x1/0x2\n </TASK>\n",
		  "BUG: Bad rss-counter state mm", "bug", "" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		struct netoops_sig sig;
		char frames[NETOOPS_SIG_TEXT_LEN];

		assert_int_equal(sig_of(cases[i].log, strlen(cases[i].log),
					&sig), 0);
		frames_joined(&sig, frames, sizeof(frames));
		assert_string_equal(sig.title, cases[i].title);
		assert_string_equal(sig.kind, cases[i].kind);
		assert_string_equal(frames, cases[i].frames);
		assert_well_formed(&sig);
	}
}

/* xorshift64*: a fixed seed keeps failures reproducible */
static uint64_t rnd_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state >> 12;
	rnd_state ^= rnd_state << 25;
	rnd_state ^= rnd_state >> 27;
	return rnd_state * 0x2545f4914f6cdd1dULL;
}

static void mutate(char *buf, size_t *len, size_t cap)
{
	size_t n = *len;

	switch (rnd() % 6) {
	case 0:	/* truncate anywhere */
		*len = n ? rnd() % n : 0;
		break;
	case 1:	/* flip random bytes */
		for (int k = 0; k < 8 && n; k++)
			buf[rnd() % n] = (char)rnd();
		break;
	case 2:	/* NULs and newlines */
		for (int k = 0; k < 8 && n; k++)
			buf[rnd() % n] = rnd() % 2 ? '\0' : '\n';
		break;
	case 3: {	/* a huge line in the middle */
		size_t at = n ? rnd() % n : 0, add = cap - n;

		memmove(buf + at + add, buf + at, n - at);
		memset(buf + at, rnd() % 2 ? 'A' : '+', add);
		*len = cap;
		break;
	}
	case 4:	/* drop a chunk */
		if (n > 2) {
			size_t at = rnd() % n, k = rnd() % (n - at);

			memmove(buf + at, buf + at + k, n - at - k);
			*len = n - k;
		}
		break;
	default:	/* the start of a log only: a lone start line */
		*len = n < 200 ? n : 200 + rnd() % 200;
		if (*len > n)
			*len = n;
		break;
	}
}

static void test_mutations(void **state)
{
	const size_t extra = 70000;	/* longer than any line window */

	(void)state;
	assert_true(ncorpus > 0);
	for (int round = 0; round < MUTATION_ROUNDS; round++) {
		const struct golden *g = &corpus[rnd() % ncorpus];
		size_t cap = g->body_len + extra, len = g->body_len;
		char *buf = malloc(cap);
		struct netoops_sig sig;
		int err;

		assert_non_null(buf);
		memcpy(buf, g->body, len);
		for (int k = 1 + (int)(rnd() % 3); k > 0; k--) {
			size_t room = len + (rnd() % 2 ? extra : 100);

			mutate(buf, &len, room < cap ? room : cap);
		}
		err = sig_of(buf, len, &sig);
		assert_true(err == 0 || err == -ENOENT);
		assert_well_formed(&sig);
		free(buf);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_corpus_size),
		cmocka_unit_test(test_corpus_golden),
		cmocka_unit_test(test_corpus_buckets),
		cmocka_unit_test(test_nocrash),
		cmocka_unit_test(test_args),
		cmocka_unit_test(test_hash_vector),
		cmocka_unit_test(test_presentation_invariance),
		cmocka_unit_test(test_first_report_wins),
		cmocka_unit_test(test_normalization_rules),
		cmocka_unit_test(test_mutations),
	};

	return cmocka_run_group_tests_name("signature", tests, load_corpus,
					   free_corpus);
}
