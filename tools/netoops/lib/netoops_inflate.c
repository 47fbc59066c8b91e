// SPDX-License-Identifier: GPL-2.0
/*
 * netoops payload helpers: bounded raw-deflate inflation with zlib.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <zlib.h>

#include "netoops_decode.h"

static int zerr(int z)
{
	switch (z) {
	case Z_MEM_ERROR:
		return -ENOMEM;
	case Z_NEED_DICT:
	case Z_DATA_ERROR:
	case Z_STREAM_ERROR:
	default:
		return -EBADMSG;
	}
}

int netoops_inflate(const void *in, size_t in_len, void *out, size_t out_cap,
		    size_t *ret_len)
{
	z_stream zs;
	uint8_t probe;
	int z, err;

	if (ret_len)
		*ret_len = 0;
	if (!ret_len || (in_len && !in) || (out_cap && !out))
		return -EINVAL;
	if (in_len > UINT_MAX || out_cap > UINT_MAX)
		return -EMSGSIZE;
	memset(&zs, 0, sizeof(zs));
	z = inflateInit2(&zs, -MAX_WBITS);
	if (z != Z_OK)
		return zerr(z);
	zs.next_in = (Bytef *)(uintptr_t)in;
	zs.avail_in = (uInt)in_len;
	zs.next_out = out;
	zs.avail_out = (uInt)out_cap;

	/* One call consumes all input or fills all output.  Z_FINISH: a
	 * stream that ends in this call is not copied into a 32 KiB window
	 * (allocated for it) in case more calls follow.
	 */
	z = inflate(&zs, Z_FINISH);
	*ret_len = zs.total_out;
	if (z == Z_STREAM_END) {
		err = 0;
	} else if (z != Z_OK && z != Z_BUF_ERROR) {
		err = zerr(z);
	} else if (zs.avail_out) {
		/* room left and no end: the input ran out */
		err = -ENODATA;
	} else {
		/* output full: does the stream end here or want more? */
		zs.next_out = &probe;
		zs.avail_out = 1;
		z = inflate(&zs, Z_NO_FLUSH);
		if (z == Z_STREAM_END && zs.avail_out == 1)
			err = 0;
		else if (zs.avail_out == 0)
			err = -EMSGSIZE;
		else if (z == Z_OK || z == Z_BUF_ERROR)
			err = -ENODATA;
		else
			err = zerr(z);
	}
	inflateEnd(&zs);
	return err;
}

int netoops_dump_text(const struct netoops_dump *d, void *out, size_t out_cap,
		      size_t *ret_len)
{
	uint32_t comp = NETOOPS_COMPRESS_NONE;
	size_t prefix;
	int err;

	if (ret_len)
		*ret_len = 0;
	if (!d || !ret_len || (out_cap && !out))
		return -EINVAL;
	prefix = d->nr_gaps ? d->gaps[0].off : d->payload_len;
	if (d->has_meta &&
	    (d->meta.present & NETOOPS_META_HAS(NETOOPS_TLV_PAYLOAD_INFO)))
		comp = d->meta.compression;

	switch (comp) {
	case NETOOPS_COMPRESS_NONE:
		if (prefix > out_cap) {
			if (out_cap)
				memcpy(out, d->payload, out_cap);
			*ret_len = out_cap;
			return -EMSGSIZE;
		}
		if (prefix)
			memcpy(out, d->payload, prefix);
		*ret_len = prefix;
		return d->nr_gaps ? -ENODATA : 0;
	case NETOOPS_COMPRESS_DEFLATE:
		err = netoops_inflate(d->payload, prefix, out, out_cap,
				      ret_len);
		return err;
	default:
		return -EOPNOTSUPP;
	}
}
