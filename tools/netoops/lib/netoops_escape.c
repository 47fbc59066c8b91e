// SPDX-License-Identifier: GPL-2.0
/*
 * Terminal-safe text from untrusted bytes (see netoops_escape.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "netoops_escape.h"

/*
 * Length (2..4) of the valid UTF-8 sequence of a non-ASCII code point at
 * @s, its code point in *@cp; 0 if @s does not start one (RFC 3629: no
 * overlong form, no surrogate, nothing above U+10FFFF).
 */
static size_t utf8_seq(const uint8_t *s, size_t n, uint32_t *cp)
{
	uint32_t v, min;
	size_t len, i;

	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2;
		v = s[0] & 0x1f;
		min = 0x80;
	} else if ((s[0] & 0xf0) == 0xe0) {
		len = 3;
		v = s[0] & 0x0f;
		min = 0x800;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		v = s[0] & 0x07;
		min = 0x10000;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		v = v << 6 | (s[i] & 0x3f);
	}
	if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		return 0;
	*cp = v;
	return len;
}

/* The escape of a C0 byte, DEL or invalid byte @c into @buf (5 bytes). */
static size_t escape_byte(uint8_t c, char *buf)
{
	static const char hex[] = "0123456789abcdef";
	static const char named[] = {
		['\0'] = '0', ['\a'] = 'a', ['\b'] = 'b', ['\t'] = 't',
		['\n'] = 'n', ['\v'] = 'v', ['\f'] = 'f', ['\r'] = 'r',
	};

	buf[0] = '\\';
	if (c < sizeof(named) && named[c]) {
		buf[1] = named[c];
		return 2;
	}
	buf[1] = 'x';
	buf[2] = hex[c >> 4];
	buf[3] = hex[c & 15];
	return 4;
}

/*
 * One pass over @in: writes to @out when it is not NULL, returns the
 * length of the output, its characters in *@ret_cols.
 */
static size_t escape_pass(const uint8_t *in, size_t len, unsigned int flags,
			  size_t max_cols, char *out, size_t *ret_cols)
{
	size_t pos = 0, olen = 0, cols = 0, n, w, cw, i;
	char buf[8];	/* one character, or the escapes of one C1 code */
	uint32_t cp;
	bool keep;

	while (pos < len) {
		uint8_t c = in[pos];

		if (c >= 0x80) {
			n = utf8_seq(in + pos, len - pos, &cp);
			keep = n && cp > 0x9f;
			if (!n)		/* escape this byte, resync after it */
				n = 1;
		} else {
			n = 1;
			keep = (c >= 0x20 && c != 0x7f) ||
			       (c == '\n' && (flags & NETOOPS_ESC_KEEP_NL)) ||
			       (c == '\t' && (flags & NETOOPS_ESC_KEEP_TAB));
		}
		if (keep) {
			for (w = 0; w < n; w++)
				buf[w] = (char)in[pos + w];
			/* one column; a wide character takes two, not
			 * counted here: a pure library has no locale
			 */
			cw = 1;
		} else {
			for (w = 0, i = 0; i < n; i++)
				w += escape_byte(in[pos + i], buf + w);
			cw = w;
		}
		if (max_cols && cols + cw > max_cols)
			break;
		cols += cw;
		if (out)
			for (i = 0; i < w; i++)
				out[olen + i] = buf[i];
		olen += w;
		pos += n;
	}
	if (ret_cols)
		*ret_cols = cols;
	return olen;
}

int netoops_escape(const void *in, size_t len, unsigned int flags,
		   size_t max_cols, char **ret, size_t *ret_cols)
{
	size_t olen;
	char *out;

	if (!ret || (!in && len))
		return -EINVAL;
	/* at most 4 output bytes per input byte ("\xHH") */
	if (len > (SIZE_MAX - 1) / 4)
		return -ENOMEM;
	olen = escape_pass(in, len, flags, max_cols, NULL, NULL);
	out = malloc(olen + 1);
	if (!out)
		return -ENOMEM;
	escape_pass(in, len, flags, max_cols, out, ret_cols);
	out[olen] = '\0';
	*ret = out;
	return 0;
}
