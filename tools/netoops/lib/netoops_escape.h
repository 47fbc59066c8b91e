/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Text a sender chose (hostname, release, user fields, the log...), made
 * safe to print on a terminal.  Every human-readable printer of the
 * collector goes through netoops_escape(); JSON output does not (jansson
 * escapes, and JSON must stay exact).
 */
#ifndef NETOOPS_ESCAPE_H
#define NETOOPS_ESCAPE_H

#include <stddef.h>

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
 * Valid UTF-8 passes, except control characters.  Those, and each byte
 * that is not part of valid UTF-8, are shown as visible escapes, as
 * journalctl does: \0 \a \b \t \n \v \f \r by name, \xHH for the other C0
 * bytes, DEL, each byte of a C1 control (U+0080..U+009F, e.g. \xc2\x9b)
 * and each invalid byte (overlong forms, surrogates, stray continuation
 * bytes, a sequence cut short).  A backslash passes as it is: the text is
 * for reading, not for parsing back.
 *
 * Return: 0; -EINVAL if @ret is NULL or @in is NULL with a non-zero @len;
 * -ENOMEM.
 */
int netoops_escape(const void *in, size_t len, unsigned int flags,
		   size_t max_cols, char **ret, size_t *ret_cols);

#endif /* NETOOPS_ESCAPE_H */
