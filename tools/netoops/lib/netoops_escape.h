/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Text a sender chose (hostname, release, user fields, the log...), made
 * safe to print on a terminal or a page.  Every human-readable printer of
 * the collector (CLI text, `netoops web`'s HTML) goes through
 * netoops_escape(); JSON output is built by jansson from text made UTF-8
 * by netoops_utf8_clean(), then passed through netoops_json_hidden(), so
 * that its values stay exact but no character that hides or reorders text
 * is in it raw.
 */
#ifndef NETOOPS_ESCAPE_H
#define NETOOPS_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* netoops_escape() flags */
#define NETOOPS_ESC_KEEP_NL	0x1	/* '\n' passes: multi-line log text */
#define NETOOPS_ESC_KEEP_TAB	0x2	/* '\t' passes */
#define NETOOPS_ESC_LOG		(NETOOPS_ESC_KEEP_NL | NETOOPS_ESC_KEEP_TAB)

/**
 * netoops_escape() - untrusted bytes as text that cannot drive a terminal
 * @in:		the bytes; need not be NUL-terminated, may hold NULs
 * @len:	their number
 * @flags:	NETOOPS_ESC_*
 * @max_cols:	most characters of output, 0 for no limit.  The output ends
 *		before the first character or escape that would not fit
 *		whole: a cut never splits an escape or a UTF-8 sequence.
 * @ret:	malloc'ed, NUL-terminated result
 * @ret_cols:	if not NULL, the characters in *@ret (a UTF-8 sequence counts
 *		one), to pad a column
 *
 * Valid UTF-8 passes, except control characters and the characters of
 * netoops_cp_hidden().  Control characters, and each byte that is not part
 * of valid UTF-8, are shown as visible escapes, as journalctl does: \0 \a
 * \b \t \n \v \f \r by name, \xHH for the other C0 bytes, DEL, each byte of
 * a C1 control (U+0080..U+009F, e.g. \xc2\x9b) and each invalid byte
 * (overlong forms, surrogates, stray continuation bytes, a sequence cut
 * short).  A character of netoops_cp_hidden() is shown as \uXXXX (lower
 * case hex, e.g. \u202e for RIGHT-TO-LEFT OVERRIDE).  A backslash passes as
 * it is: the text is for reading, not for parsing back.
 *
 * Return: 0; -EINVAL if @ret is NULL or @in is NULL with a non-zero @len;
 * -ENOMEM.
 */
int netoops_escape(const void *in, size_t len, unsigned int flags,
		   size_t max_cols, char **ret, size_t *ret_cols);

/**
 * netoops_utf8_seq() - the UTF-8 character at @s
 * @s:		bytes, at least one
 * @n:		how many there are from @s on (> 0)
 * @cp:		its code point, when valid
 *
 * RFC 3629: no overlong form, no surrogate, nothing above U+10FFFF, no
 * sequence cut short.  One rule for every place that asks (escaping,
 * cleaning for JSON and the stores).
 *
 * Return: the character's length (1 for ASCII, 2..4), 0 if @s does not
 * start a valid one.
 */
size_t netoops_utf8_seq(const void *s, size_t n, uint32_t *cp);

/**
 * netoops_cp_hidden() - a character that hides or reorders text
 *
 * Unicode bidirectional controls (U+061C, U+200E, U+200F, U+202A..U+202E,
 * U+2066..U+2069) and invisible characters (soft hyphen U+00AD, zero-width
 * U+200B..U+200D, word joiner U+2060, byte order mark U+FEFF).  Raw on a
 * terminal or a page, they make a hostname or a log line read as other
 * text than it is ("Trojan Source").
 */
bool netoops_cp_hidden(uint32_t cp);

/**
 * netoops_utf8_clean() - @len bytes as valid UTF-8, NUL-terminated
 *
 * Each byte that is not part of a valid UTF-8 character (as
 * netoops_utf8_seq() tells) becomes '?'; every valid character, ASCII
 * controls and NULs included, stays as it is: the same as the stores do to
 * the text they keep, so that a value reads the same whichever store it
 * came from.  *@ret_len, if not NULL, is @len.
 *
 * Return: 0, -EINVAL, -ENOMEM.
 */
int netoops_utf8_clean(const void *in, size_t len, char **ret,
		       size_t *ret_len);

/**
 * netoops_json_hidden() - JSON text with no hidden character raw
 * @json:	JSON text as jansson writes it (NUL-terminated, UTF-8)
 * @ret:	malloc'ed copy in which each C1 control (U+0080..U+009F) and
 *		each character of netoops_cp_hidden() is the JSON escape
 *		"\uXXXX" (lower case hex): the same JSON values, but text
 *		that a terminal or a browser shows as it is
 *
 * Such characters can only stand inside JSON strings, where "\uXXXX" is
 * their other spelling.  A byte that is not valid UTF-8 (never in
 * jansson's output) becomes '?'.
 *
 * Return: 0, -EINVAL, -ENOMEM.
 */
int netoops_json_hidden(const char *json, char **ret);

#endif /* NETOOPS_ESCAPE_H */
