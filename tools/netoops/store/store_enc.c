// SPDX-License-Identifier: GPL-2.0
/*
 * netoops store: the encodings every implementation shares (store_enc.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <zlib.h>

#include "netoops_escape.h"
#include "store_enc.h"

static char *enc_gaps(const struct nstore_dump *d)
{
	size_t cap = d->nr_gaps * 44 + 1, len = 0, i;
	char *t = malloc(cap);

	if (!t)
		return NULL;
	t[0] = 0;
	for (i = 0; i < d->nr_gaps; i++)
		len += snprintf(t + len, cap - len, "%s%llu+%llu",
				i ? "," : "",
				(unsigned long long)d->gaps[i].off,
				(unsigned long long)d->gaps[i].len);
	return t;
}

int nstore_dec_gaps(struct nstore_dump *d, const char *t)
{
	unsigned long long off, len;
	int n, r;

	while (t && *t) {
		if (sscanf(t, "%llu+%llu%n", &off, &len, &n) != 2)
			return -EBADMSG;
		r = nstore_dump_add_gap(d, off, len);
		if (r < 0)
			return r;
		t += n;
		if (*t == ',')
			t++;
	}
	return 0;
}

static char *enc_user(const struct nstore_dump *d)
{
	json_t *o = json_object();
	char *t;
	size_t i;

	if (!o)
		return NULL;
	for (i = 0; i < d->nr_user; i++) {
		json_t *v = json_string(d->user[i].value);

		if (!v) {	/* not UTF-8: keep it, '?' for bad bytes */
			int err;
			char *c = nstore_utf8_clean(d->user[i].value, &err);

			v = c ? json_string(c) : NULL;
			free(c);
		}
		if (v)
			json_object_set_new(o, d->user[i].key, v);
	}
	t = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(o);
	return t;
}

int nstore_dec_user(struct nstore_dump *d, const char *t)
{
	const char *k;
	json_t *o, *v;
	int r = 0;

	if (!t || !*t)
		return 0;
	o = json_loads(t, 0, NULL);
	if (!json_is_object(o)) {
		json_decref(o);
		return -EBADMSG;
	}
	json_object_foreach(o, k, v) {
		const char *s = json_string_value(v);

		r = nstore_dump_add_user(d, k, strlen(k), s ? s : "",
					 s ? strlen(s) : 0);
		if (r < 0)
			break;
	}
	json_decref(o);
	return r;
}

int nstore_blobs_make(const struct nstore_dump *d, struct nstore_blobs *ret)
{
	unsigned int i, j;

	memset(ret, 0, sizeof(*ret));
	ret->gaps = enc_gaps(d);
	ret->user = enc_user(d);
	if (!ret->gaps || !ret->user)
		return -ENOMEM;
	if (!d->nr_regs)
		return 0;
	ret->regs_len = (size_t)d->nr_regs * 8;
	ret->regs = malloc(ret->regs_len);
	if (!ret->regs)
		return -ENOMEM;
	for (i = 0; i < d->nr_regs; i++)
		for (j = 0; j < 8; j++)
			ret->regs[i * 8 + j] = d->regs[i] >> (8 * j);
	return 0;
}

void nstore_blobs_free(struct nstore_blobs *b)
{
	free(b->gaps);
	free(b->user);
	free(b->regs);
}

int nstore_dec_regs(struct nstore_dump *d, const uint8_t *b, size_t len)
{
	size_t n = len / 8, i, j;

	if (!b || !n)
		return 0;
	if (n > UINT16_MAX)
		return -EBADMSG;
	d->regs = calloc(n, sizeof(uint64_t));
	if (!d->regs)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		for (j = 0; j < 8; j++)
			d->regs[i] |= (uint64_t)b[i * 8 + j] << (8 * j);
	d->nr_regs = n;
	return 0;
}

static int inflate_log(struct nstore_dump *d, const void *in, size_t len)
{
	z_stream z;
	int r;

	d->log = malloc(d->log_len + 1);
	if (!d->log)
		return -ENOMEM;
	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, -15) != Z_OK)
		return -ENOMEM;
	z.next_in = (Bytef *)in;
	z.avail_in = len;
	z.next_out = (Bytef *)d->log;
	z.avail_out = d->log_len;
	r = inflate(&z, Z_FINISH);
	inflateEnd(&z);
	if (r != Z_STREAM_END || z.avail_out)
		return -EBADMSG;
	d->log[d->log_len] = 0;
	return 0;
}

int nstore_dec_log(struct nstore_dump *d, int enc, const void *b, size_t len)
{
	if (enc == LOG_ENC_DEFLATE)
		return inflate_log(d, b, len);
	d->log = malloc(len + 1);
	if (!d->log)
		return -ENOMEM;
	if (len)
		memcpy(d->log, b, len);
	d->log[len] = 0;
	d->log_len = len;
	return 0;
}

char *nstore_utf8_clean(const char *s, int *ret_err)
{
	char *c;

	*ret_err = 0;
	if (!s)
		return NULL;
	/* the rule of every printer too (netoops_escape.h) */
	*ret_err = netoops_utf8_clean(s, strlen(s), &c, NULL);
	return *ret_err ? NULL : c;
}
