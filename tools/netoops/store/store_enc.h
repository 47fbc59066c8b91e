/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How the stores keep the parts of a dump that are not plain columns, the
 * same in every implementation (store_sqlite.c, store_pg.c): registers as
 * a little-endian blob, user fields as a JSON object, gaps as text, the log
 * plain or raw-deflated.  Internal to the store.
 */
#ifndef NETOOPS_STORE_ENC_H
#define NETOOPS_STORE_ENC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store.h"

/* How the log column is kept. */
#define LOG_ENC_PLAIN	0
#define LOG_ENC_DEFLATE	1	/* raw deflate, as the sender compressed it */

/*
 * What a put writes besides plain columns: gaps as "off+len,...", "" for
 * none; user fields as a compact JSON object in arrival order (a value
 * that is not UTF-8 has '?' for each byte not part of valid UTF-8,
 * as nstore_utf8_clean()); registers as
 * d->nr_regs * 8 bytes, little-endian as on the wire, NULL if none.
 */
struct nstore_blobs {
	char *gaps;
	char *user;
	uint8_t *regs;
	size_t regs_len;
};

/* 0 or -ENOMEM; nstore_blobs_free() either way. */
int nstore_blobs_make(const struct nstore_dump *d, struct nstore_blobs *ret);
void nstore_blobs_free(struct nstore_blobs *b);

/* Adds the gaps of @t (NULL or "" for none) to @d. */
int nstore_dec_gaps(struct nstore_dump *d, const char *t);
int nstore_dec_user(struct nstore_dump *d, const char *t);
/* Sets d->regs from @len bytes (a partial register is dropped). */
int nstore_dec_regs(struct nstore_dump *d, const uint8_t *b, size_t len);

/*
 * d->log from the stored log column: @enc LOG_ENC_*, d->log_len already
 * set for LOG_ENC_DEFLATE; NUL-terminated.
 */
int nstore_dec_log(struct nstore_dump *d, int enc, const void *b, size_t len);

/*
 * A copy of @s with every byte that is not part of a valid UTF-8 sequence
 * replaced by '?', for a store that only takes UTF-8 text; NULL for NULL.
 * *@ret_err: -ENOMEM on failure.
 */
char *nstore_utf8_clean(const char *s, int *ret_err);

/*
 * What a put reads of the copy already stored, to decide how @d goes in
 * (store/merge.c): the same in both implementations.
 */
struct nstore_held {
	int64_t id;
	bool complete;
	uint32_t pkt_received;
	bool authenticated;
	uint32_t auth_key_id;
	const uint8_t *pieces;		/* its datagrams, NULL if none kept */
	size_t pieces_len;
	const char *collectors;		/* NULL if none recorded */
	uint32_t conflicts;
	int64_t received_ms;
	const char *src;
};

/*
 * struct nstore_plan - what a put writes for one dump
 * @w:		the record to upsert: the caller's, or one rebuilt from the
 *		union of both copies' datagrams (owned by the plan)
 * @wins:	@w replaces the stored copy (or there is none); the upsert's
 *		own WHERE decides the same, under the same lock
 * @collectors:	the row's collectors if @w wins (owned by the plan)
 * @conflicts:	the row's conflicts after this put
 */
struct nstore_plan {
	struct nstore_dump *w;
	struct nstore_dump *rebuilt;
	bool wins;
	char *collectors;
	uint32_t conflicts;
};

/*
 * nstore_plan_put() - decide what a put of @d does, given the stored copy
 * @h (NULL: none): the rules of struct nstore_ops.  0 or -ENOMEM; a
 * union that cannot be rebuilt (pieces that do not decode) is no error:
 * @d goes in by the plain rules.  nstore_plan_free() either way.
 */
int nstore_plan_put(const struct nstore_held *h, struct nstore_dump *d,
		    struct nstore_plan *ret);
void nstore_plan_free(struct nstore_plan *p);

#endif /* NETOOPS_STORE_ENC_H */
