/* SPDX-License-Identifier: GPL-2.0 */
/*
 * From a reassembled dump (decoder library) to a store record: payload to
 * text (inflated when compressed), gaps moved from payload offsets to log
 * text offsets, crash signature computed.  Shared by netoopsd and
 * `netoops decode`.
 */
#ifndef NETOOPS_RECORD_H
#define NETOOPS_RECORD_H

#include <stdint.h>

#include "netoops_decode.h"
#include "store.h"

/**
 * nstore_record_from_dump() - build a store record
 * @nd:		a dump handed out by the reassembler
 * @first_wall_ms: unix ms at which its first packet arrived
 * @ret:	the new record (nstore_dump_free() it)
 * @ret_payload_err: set to 0, or to the negative errno of a payload that
 *		could not be (fully) converted although every packet arrived
 *		(corrupt deflate stream, unknown compression, too large)
 *
 * Return: 0 or -ENOMEM.
 */
int nstore_record_from_dump(const struct netoops_dump *nd,
			    int64_t first_wall_ms, struct nstore_dump **ret,
			    int *ret_payload_err);

/**
 * nstore_record_sign() - compute and set the signature of @d from its log
 * @d:	record with its log
 *
 * Return: 0 or -ENOMEM.
 */
int nstore_record_sign(struct nstore_dump *d);

#endif /* NETOOPS_RECORD_H */
