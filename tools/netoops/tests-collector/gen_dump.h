/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Test and benchmark traffic: real netoops datagrams built with the shared
 * encoder (fs/pstore/netoops_enc.c), payload raw-deflated like pstore does.
 */
#ifndef NETOOPS_GEN_DUMP_H
#define NETOOPS_GEN_DUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct gen_pkts {
	size_t n;
	uint8_t **buf;
	size_t *len;
};

struct gen_opts {
	const char *hostname;
	const char *release;
	uint32_t reason;		/* NETOOPS_REASON_* */
	bool compress;			/* raw deflate, like pstore */
	size_t max_pkt;			/* 0 = NETOOPS_PKT_DEFAULT */
	const char *user_key;		/* one user field, or NULL */
	const char *user_value;
	bool regs;			/* an x86_64 register set */
	const char *version;		/* NULL: "#1 SMP PREEMPT_DYNAMIC ..." */
	const char *cpu_vendor;		/* with regs; NULL: "GenuineIntel" */
	unsigned int fec_k, fec_m;	/* parity groups; 0: no FEC */
	/* every datagram signed with @mac (netoops_hmac and a struct
	 * netoops_key as @mac_ctx), key id @key_id; NULL: unsigned
	 */
	int (*mac)(void *ctx, const void *buf, size_t len, uint8_t *out);
	void *mac_ctx;
	uint32_t key_id;
};

/* Packets of one dump of @log.  Return 0 or negative errno. */
int gen_dump(struct gen_pkts *out, const uint8_t boot_id[16],
	     uint64_t dump_id, const struct gen_opts *o, const char *log,
	     size_t log_len);
void gen_pkts_free(struct gen_pkts *p);

/* Same from a payload already prepared (compressed when o->compress). */
int gen_dump_payload(struct gen_pkts *out, const uint8_t boot_id[16],
		     uint64_t dump_id, const struct gen_opts *o,
		     const void *payload, size_t plen, size_t orig_len);

/* Raw deflate (windowBits -15) of @in; *ret malloc'ed. */
int gen_deflate(const void *in, size_t len, int level, uint8_t **ret,
		size_t *ret_len);

/* A realistic kernel log of about @size bytes ending in an oops whose
 * innermost function is @func; @seed varies timestamps and addresses.
 * Returns malloc'ed text, its length in *ret_len.
 */
char *gen_log(size_t size, const char *func, unsigned int seed,
	      size_t *ret_len);

/*
 * @len lowercase letters, xorshift32 from @seed, then a NUL (@buf holds
 * @len + 1 bytes): text deflate cannot shrink much.
 */
void gen_noise(char *buf, size_t len, unsigned int seed);

#endif /* NETOOPS_GEN_DUMP_H */
