// SPDX-License-Identifier: GPL-2.0
/*
 * netoops_escape(): what a sender's bytes look like on a terminal.  A table
 * of exact outputs (each class of control byte, C1 in UTF-8, invalid and
 * overlong UTF-8, what passes), cuts at every column count (never inside
 * an escape or a UTF-8 sequence), and random bytes checked by a validator
 * written here independently: the output is valid UTF-8 with no C0 byte
 * but the kept '\n'/'\t', no DEL, no C1 code, no bidirectional control
 * or invisible character.  netoops_utf8_clean() and netoops_json_hidden()
 * (what JSON output goes through) against tables and random bytes.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib_test_util.h"
#include "netoops_escape.h"

struct esc_case {
	const char *in;
	size_t len;		/* 0: strlen(in) */
	unsigned int flags;
	size_t max_cols;
	const char *want;
	size_t want_cols;
};

#define S(x) x, sizeof(x) - 1

static const struct esc_case cases[] = {
	{ S("plain host-1.example"), 0, 0, "plain host-1.example", 20 },
	{ S(""), 0, 0, "", 0 },
	/* OSC 52 (clipboard), OSC 0 (title), clear screen, CR */
	{ S("\x1b]52;c;cHduZWQ=\x07"), 0, 0, "\\x1b]52;c;cHduZWQ=\\a", 20 },
	{ S("a\x1b]0;t\x1b\\b"), 0, 0, "a\\x1b]0;t\\x1b\\b", 15 },
	{ S("\x1b[2J\x1b[H"), 0, 0, "\\x1b[2J\\x1b[H", 13 },
	{ S("ok\rfake"), 0, 0, "ok\\rfake", 8 },
	/* NUL and the other named C0 escapes; DEL */
	{ S("a\0b"), 0, 0, "a\\0b", 4 },
	{ S("\b\t\n\v\f\x01\x1f\x7f"), 0, 0,
	  "\\b\\t\\n\\v\\f\\x01\\x1f\\x7f", 22 },
	/* a log body keeps its lines and tabs, nothing else */
	{ S("l1\n\tl2\r\n"), NETOOPS_ESC_LOG, 0, "l1\n\tl2\\r\n", 9 },
	{ S("a\tb\nc"), NETOOPS_ESC_KEEP_NL, 0, "a\\tb\nc", 6 },
	/* C1 controls as UTF-8 (CSI, NEL, OSC), raw C1 bytes (invalid) */
	{ S("\xc2\x9b" "31m"), 0, 0, "\\xc2\\x9b31m", 11 },
	{ S("\xc2\x80\xc2\x85\xc2\x9d"), 0, 0,
	  "\\xc2\\x80\\xc2\\x85\\xc2\\x9d", 24 },
	{ S("\x9b" "2J"), 0, 0, "\\x9b2J", 6 },
	/* valid UTF-8 passes: U+00A0 (first after C1), é, €, U+10FFFF */
	{ S("\xc2\xa0\xc3\xa9\xe2\x82\xac\xf4\x8f\xbf\xbf"), 0, 0,
	  "\xc2\xa0\xc3\xa9\xe2\x82\xac\xf4\x8f\xbf\xbf", 4 },
	/* invalid: overlong ESC and '/', surrogate, > U+10FFFF, stray
	 * continuation, cut sequence at the end, 0xfe/0xff
	 */
	{ S("\xc0\x9b"), 0, 0, "\\xc0\\x9b", 8 },
	{ S("\xe0\x80\xaf"), 0, 0, "\\xe0\\x80\\xaf", 12 },
	{ S("\xed\xa0\x80"), 0, 0, "\\xed\\xa0\\x80", 12 },
	{ S("\xf4\x90\x80\x80"), 0, 0, "\\xf4\\x90\\x80\\x80", 16 },
	{ S("\x80x"), 0, 0, "\\x80x", 5 },
	{ S("x\xe2\x82"), 0, 0, "x\\xe2\\x82", 9 },
	{ S("\xff\xfe"), 0, 0, "\\xff\\xfe", 8 },
	/* resync: the byte after an invalid one starts again */
	{ S("\xe2\xc3\xa9"), 0, 0, "\\xe2\xc3\xa9", 5 },
	/* cuts: never inside an escape, never inside UTF-8 */
	{ S("host-0123456789\x1b]0;x\x07"), 0, 16, "host-0123456789", 15 },
	{ S("host-0123456789\x1b]0;x\x07"), 0, 19, "host-0123456789\\x1b",
	  19 },
	{ S("ab\xc3\xa9\xc3\xa9"), 0, 3, "ab\xc3\xa9", 3 },
	{ S("ab\xc2\x9b"), 0, 9, "ab", 2 },
	{ S("ab\xc2\x9b"), 0, 10, "ab\\xc2\\x9b", 10 },
	{ S("\r"), 0, 1, "", 0 },
	/* bidirectional controls: "Trojan Source" reordering of a line */
	{ S("adm\xe2\x80\xaenimda"), 0, 0, "adm\\u202enimda", 14 },
	{ S("\xe2\x80\xaa\xe2\x80\xab\xe2\x80\xac\xe2\x80\xad"), 0, 0,
	  "\\u202a\\u202b\\u202c\\u202d", 24 },
	{ S("\xe2\x81\xa6\xe2\x81\xa7\xe2\x81\xa8\xe2\x81\xa9"), 0, 0,
	  "\\u2066\\u2067\\u2068\\u2069", 24 },
	{ S("\xe2\x80\x8e\xe2\x80\x8f\xd8\x9c"), 0, 0,
	  "\\u200e\\u200f\\u061c", 18 },
	/* invisible: zero-width space, joiners, word joiner, BOM, SHY */
	{ S("ro\xe2\x80\x8bot\xe2\x80\x8c\xe2\x80\x8d"), 0, 0,
	  "ro\\u200bot\\u200c\\u200d", 22 },
	{ S("\xe2\x81\xa0\xef\xbb\xbf" "a\xc2\xad"), 0, 0,
	  "\\u2060\\ufeffa\\u00ad", 19 },
	/* in a log body too; the neighbours pass (U+2065, U+2010, U+00AC) */
	{ S("l\xe2\x80\xae\n\xe2\x81\xa5\xe2\x80\x90\xc2\xac"),
	  NETOOPS_ESC_LOG, 0,
	  "l\\u202e\n\xe2\x81\xa5\xe2\x80\x90\xc2\xac", 11 },
	/* a cut never splits one */
	{ S("ab\xe2\x80\xae"), 0, 7, "ab", 2 },
	{ S("ab\xe2\x80\xae"), 0, 8, "ab\\u202e", 8 },
	/* cut short, it is invalid: bytes */
	{ S("\xe2\x80"), 0, 0, "\\xe2\\x80", 8 },
};

static void test_table(void **state)
{
	size_t i, cols;
	char *out;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct esc_case *c = &cases[i];

		cols = 12345;
		assert_int_equal(netoops_escape(c->in, c->len, c->flags,
						c->max_cols, &out, &cols), 0);
		if (strcmp(out, c->want) || cols != c->want_cols)
			fail_msg("case %zu: got \"%s\" (%zu cols), want \"%s\""
				 " (%zu)", i, out, cols, c->want,
				 c->want_cols);
		free(out);
	}
}

static void test_args(void **state)
{
	char *out = NULL;

	(void)state;
	assert_int_equal(netoops_escape("x", 1, 0, 0, NULL, NULL), -EINVAL);
	assert_int_equal(netoops_escape(NULL, 1, 0, 0, &out, NULL), -EINVAL);
	assert_int_equal(netoops_escape(NULL, 0, 0, 0, &out, NULL), 0);
	assert_string_equal(out, "");
	free(out);
}

/*
 * Every cut of a hostile string is a prefix of the whole escape, within
 * the limit, and as long as possible: the piece after it (a character or
 * a whole escape) would not have fitted.
 */
static void test_cuts(void **state)
{
	static const char in[] = "h\x1b]52;c;QQ==\x07\xc3\xa9\r\xc2\x9b\xff"
				 "\0z\xe2\x80\xae\x7f";
	char *whole, *cut;
	size_t wcols, cols, max;

	(void)state;
	assert_int_equal(netoops_escape(in, sizeof(in) - 1, 0, 0, &whole,
					&wcols), 0);
	for (max = 1; max <= wcols + 2; max++) {
		size_t next;

		assert_int_equal(netoops_escape(in, sizeof(in) - 1, 0, max,
						&cut, &cols), 0);
		assert_true(cols <= max);
		assert_memory_equal(cut, whole, strlen(cut));
		if (cols < wcols) {
			/* what comes next in the whole text */
			const char *p = whole + strlen(cut);

			if (!strncmp(p, "\\xc2\\x9", 7))
				next = 8;	/* a C1 code goes whole */
			else if (*p == '\\')
				next = p[1] == 'x' ? 4 : p[1] == 'u' ? 6 : 2;
			else
				next = 1;
			assert_true(cols + next > max);
		} else {
			assert_string_equal(cut, whole);
		}
		free(cut);
	}
	free(whole);
}

/* Written from the list in the task, not from the library's. */
static bool hidden_cp(uint32_t cp)
{
	static const uint32_t list[] = {
		0x00ad, 0x061c, 0x200b, 0x200c, 0x200d, 0x200e, 0x200f,
		0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2060, 0x2066,
		0x2067, 0x2068, 0x2069, 0xfeff,
	};
	size_t i;

	for (i = 0; i < sizeof(list) / sizeof(list[0]); i++)
		if (cp == list[i])
			return true;
	return false;
}

/* An independent check of the output: what a terminal must never get. */
static bool terminal_safe(const uint8_t *s, size_t len, unsigned int flags)
{
	size_t i = 0, n, k;
	uint32_t cp;

	while (i < len) {
		uint8_t c = s[i];

		if (c < 0x80) {
			if (c == 0x7f)
				return false;
			if (c < 0x20 && !(c == '\n' &&
					  (flags & NETOOPS_ESC_KEEP_NL)) &&
			    !(c == '\t' && (flags & NETOOPS_ESC_KEEP_TAB)))
				return false;
			i++;
			continue;
		}
		if ((c & 0xe0) == 0xc0) {
			n = 2;
			cp = c & 0x1f;
		} else if ((c & 0xf0) == 0xe0) {
			n = 3;
			cp = c & 0x0f;
		} else if ((c & 0xf8) == 0xf0) {
			n = 4;
			cp = c & 0x07;
		} else {
			return false;
		}
		if (i + n > len)
			return false;
		for (k = 1; k < n; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (s[i + k] & 0x3f);
		}
		/* shortest form only; no surrogate, no C1 */
		if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) ||
		    (n == 4 && cp < 0x10000) || cp > 0x10ffff ||
		    (cp >= 0xd800 && cp <= 0xdfff) || cp <= 0x9f)
			return false;
		/* nothing that reorders or hides text */
		if (hidden_cp(cp))
			return false;
		i += n;
	}
	return true;
}

static void test_random(void **state)
{
	static const unsigned int flag_sets[] = { 0, NETOOPS_ESC_LOG };
	uint64_t seed = 0x5eed;
	uint8_t in[256];
	size_t round, i, len, cols;
	char *out;

	(void)state;
	for (round = 0; round < 20000; round++) {
		unsigned int flags = flag_sets[round % 2];

		len = tu_rand(&seed) % sizeof(in);
		for (i = 0; i < len; i++) {
			uint64_t r = tu_rand(&seed);

			/* bias towards the interesting bytes */
			in[i] = r % 4 ? (uint8_t)(r >> 8) :
				(uint8_t)"\x1b\r\n\t\0\x7f\xc2\x9b\xe2\x82"
					 "\xac\xc3\xa9\x80"[(r >> 8) % 14];
			/* and whole hidden characters (RLO, ZWSP, BOM) */
			if (r % 16 == 1 && i + 3 <= len) {
				static const char *const h[] = {
					"\xe2\x80\xae", "\xe2\x80\x8b",
					"\xef\xbb\xbf",
				};

				memcpy(in + i, h[(r >> 16) % 3], 3);
				i += 2;
			}
		}
		assert_int_equal(netoops_escape(in, len, flags,
						round % 3 ? 0 : round % 40,
						&out, &cols), 0);
		if (!terminal_safe((const uint8_t *)out, strlen(out), flags))
			fail_msg("round %zu: unsafe output \"%s\"", round, out);
		free(out);
	}
}

/*
 * netoops_utf8_clean(): '?' for each byte that is not valid UTF-8, the
 * same bytes where netoops_escape() shows \xHH; valid text unchanged.
 */
static void test_clean(void **state)
{
	static const struct {
		const char *in;
		size_t len;
		const char *want;
	} c[] = {
		{ S("plain"), "plain" },
		{ S("h\xffst-\xc3\xa9"), "h?st-\xc3\xa9" },
		{ S("\xe2\x80\xae ok"), "\xe2\x80\xae ok" },
		{ S("\xc0\xaf\xed\xa0\x80\xf4\x90\x80\x80"), "?????????" },
		{ S("x\xe2\x82"), "x??" },
		{ S("\xe2\xc3\xa9"), "?\xc3\xa9" },
	};
	size_t i, len;
	char *out;

	(void)state;
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		assert_int_equal(netoops_utf8_clean(c[i].in, c[i].len, &out,
						    &len), 0);
		assert_int_equal(len, c[i].len);
		if (strcmp(out, c[i].want))
			fail_msg("clean %zu: \"%s\"", i, out);
		free(out);
	}
	/* a NUL inside stays: the length is the input's */
	assert_int_equal(netoops_utf8_clean("a\0\xff", 3, &out, &len), 0);
	assert_memory_equal(out, "a\0?", 4);
	free(out);
	assert_int_equal(netoops_utf8_clean(NULL, 1, &out, NULL), -EINVAL);
}

/*
 * netoops_json_hidden(): C1 and hidden characters as JSON \uXXXX escapes,
 * everything else (other non-ASCII, jansson's own escapes) as it was.
 */
static void test_json_hidden(void **state)
{
	static const struct {
		const char *in, *want;
	} c[] = {
		{ "{\"host\":\"adm\xe2\x80\xaenimda\"}",
		  "{\"host\":\"adm\\u202enimda\"}" },
		{ "[\"\xe2\x80\x8b\xe2\x81\xa0\xef\xbb\xbf\xc2\xad\xd8\x9c\"]",
		  "[\"\\u200b\\u2060\\ufeff\\u00ad\\u061c\"]" },
		{ "[\"\xe2\x81\xa6x\xe2\x81\xa9\xe2\x80\x8e\xe2\x80\x8f\"]",
		  "[\"\\u2066x\\u2069\\u200e\\u200f\"]" },
		/* C1 (CSI) as well; jansson escaped the C0 byte already */
		{ "[\"\xc2\x9b" "31m\\u001b\"]", "[\"\\u009b31m\\u001b\"]" },
		{ "[\"\xc3\xa9\xe2\x82\xac \xc2\xa0\"]",
		  "[\"\xc3\xa9\xe2\x82\xac \xc2\xa0\"]" },
		{ "[\"\xff\"]", "[\"?\"]" },
	};
	size_t i;
	char *out;

	(void)state;
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		assert_int_equal(netoops_json_hidden(c[i].in, &out), 0);
		if (strcmp(out, c[i].want))
			fail_msg("json %zu: \"%s\", want \"%s\"", i, out,
				 c[i].want);
		free(out);
	}
	assert_int_equal(netoops_json_hidden(NULL, &out), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_args),
		cmocka_unit_test(test_cuts),
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_clean),
		cmocka_unit_test(test_json_hidden),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
