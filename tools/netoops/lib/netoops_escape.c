// SPDX-License-Identifier: GPL-2.0
/*
 * Terminal-safe text from untrusted bytes (see netoops_escape.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "netoops_escape.h"

size_t netoops_utf8_seq(const void *ptr, size_t n, uint32_t *cp)
{
	const uint8_t *s = ptr;
	uint32_t v, min;
	size_t len, i;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
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

bool netoops_cp_hidden(uint32_t cp)
{
	return cp == 0x00ad ||			/* soft hyphen */
	       cp == 0x061c ||			/* ARABIC LETTER MARK */
	       (cp >= 0x200b && cp <= 0x200f) ||	/* ZWSP ZWNJ ZWJ LRM RLM */
	       (cp >= 0x202a && cp <= 0x202e) ||	/* LRE RLE PDF LRO RLO */
	       cp == 0x2060 ||			/* WORD JOINER */
	       (cp >= 0x2066 && cp <= 0x2069) ||	/* LRI RLI FSI PDI */
	       cp == 0xfeff;			/* ZWNBSP, byte order mark */
}

static const char hex[] = "0123456789abcdef";

/* "\uXXXX" for a BMP code point @cp into @buf (6 bytes). */
static size_t escape_u(uint32_t cp, char *buf)
{
	buf[0] = '\\';
	buf[1] = 'u';
	buf[2] = hex[cp >> 12 & 15];
	buf[3] = hex[cp >> 8 & 15];
	buf[4] = hex[cp >> 4 & 15];
	buf[5] = hex[cp & 15];
	return 6;
}

/* The escape of a C0 byte, DEL or invalid byte @c into @buf (5 bytes). */
static size_t escape_byte(uint8_t c, char *buf)
{
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
	bool keep, hidden;

	while (pos < len) {
		uint8_t c = in[pos];

		hidden = false;
		if (c >= 0x80) {
			n = netoops_utf8_seq(in + pos, len - pos, &cp);
			hidden = n && netoops_cp_hidden(cp);
			keep = n && cp > 0x9f && !hidden;
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
		} else if (hidden) {
			w = cw = escape_u(cp, buf);
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

int netoops_utf8_clean(const void *in, size_t len, char **ret,
		       size_t *ret_len)
{
	const uint8_t *s = in;
	size_t pos = 0, n;
	uint32_t cp;
	char *out;

	if (!ret || (!in && len))
		return -EINVAL;
	if (len == SIZE_MAX)
		return -ENOMEM;
	out = malloc(len + 1);
	if (!out)
		return -ENOMEM;
	while (pos < len) {
		n = netoops_utf8_seq(s + pos, len - pos, &cp);
		if (!n) {
			out[pos++] = '?';
			continue;
		}
		for (; n; n--, pos++)
			out[pos] = (char)s[pos];
	}
	out[len] = '\0';
	*ret = out;
	if (ret_len)
		*ret_len = len;
	return 0;
}

int netoops_json_hidden(const char *json, char **ret)
{
	const uint8_t *s = (const uint8_t *)json;
	size_t len, pos = 0, olen = 0, n;
	uint32_t cp;
	char *out;

	if (!json || !ret)
		return -EINVAL;
	len = strlen(json);
	/* at most "\uXXXX" (6 bytes) for each 2-byte character */
	if (len > (SIZE_MAX - 1) / 3)
		return -ENOMEM;
	out = malloc(len * 3 + 1);
	if (!out)
		return -ENOMEM;
	while (pos < len) {
		n = netoops_utf8_seq(s + pos, len - pos, &cp);
		if (!n) {
			out[olen++] = '?';
			pos++;
		} else if ((cp >= 0x80 && cp <= 0x9f) ||
			   netoops_cp_hidden(cp)) {
			olen += escape_u(cp, out + olen);
			pos += n;
		} else {
			for (; n; n--)
				out[olen++] = (char)s[pos++];
		}
	}
	out[olen] = '\0';
	*ret = out;
	return 0;
}
