/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the wire-format library tests and the golden-vector
 * generator: deterministic inputs, whole-dump encoding, deflate.
 */
#ifndef LIB_TEST_UTIL_H
#define LIB_TEST_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "netoops_decode.h"
#include "netoops_enc.h"

/* All the datagrams of one dump. */
struct tu_dump {
	size_t		n;
	uint8_t		**pkt;
	size_t		*len;
};

/* Encode a dump; returns 0 or the negative errno of the encoder. */
int tu_encode(const uint8_t boot_id[16], uint64_t dump_id, const void *meta,
	      size_t meta_len, const void *payload, size_t payload_len,
	      size_t max_pkt, struct tu_dump *out);
void tu_dump_clear(struct tu_dump *d);
/* Same with options; allocates the FEC scratch if o->scratch is NULL. */
int tu_encode_opts(const uint8_t boot_id[16], uint64_t dump_id,
		   const void *meta, size_t meta_len, const void *payload,
		   size_t payload_len, const struct netoops_enc_opts *o,
		   struct tu_dump *out);

/* xorshift64*: deterministic pseudo-random numbers for a fixed seed. */
uint64_t tu_rand(uint64_t *state);
void tu_shuffle(size_t *idx, size_t n, uint64_t seed);

/* Log-like ASCII text, deterministic for a seed. */
void tu_text(uint8_t *buf, size_t len, uint64_t seed);

/* Raw deflate (windowBits -15, level 6) as pstore does; returns the length
 * or 0 if it did not fit. */
size_t tu_deflate(const void *in, size_t len, uint8_t *out, size_t cap);

/* The fixed inputs of the golden vectors and the "every TLV" tests. */
extern const uint8_t tu_boot_id[16];
/* Key of the authenticated golden vectors. */
extern const uint8_t tu_key[32];
extern const uint32_t tu_key_id;
extern const __u64 tu_x86_regs[NETOOPS_X86_64_NR_REGS];

/* Metadata with every metadata TLV (x86), two user fields; returns length
 * (negative errno if cap is too small). */
int tu_meta_full(uint8_t *buf, size_t cap, uint32_t compression,
		 uint32_t orig_len);
/* Check a decoded metadata struct against what tu_meta_full() wrote;
 * returns 0 or the number of the first mismatching field. */
int tu_meta_full_check(const struct netoops_meta *m, uint32_t compression,
		       uint32_t orig_len);

/* Golden vectors: name and builder of each. */
struct tu_vector {
	const char	*name;
	const char	*what;
	int		(*build)(struct tu_dump *out);
	int		refused;	/* decoder must refuse packet 0 */
};
extern const struct tu_vector tu_vectors[];
extern const size_t tu_nr_vectors;

/* Read a whole file (malloc'd, NUL-terminated) / write one; 0 or -errno. */
int tu_read_file(const char *path, uint8_t **ret, size_t *ret_len);
/* The same as text: the buffer, or NULL on any error. */
char *tu_read_text(const char *path, size_t *ret_len);
int tu_write_file(const char *path, const void *buf, size_t len);

#endif /* LIB_TEST_UTIL_H */
