/* SPDX-License-Identifier: GPL-2.0 */
/*
 * netoops packet encoder: builds the datagrams of the wire format defined in
 * include/uapi/linux/netoops.h.
 *
 * The same source compiles in the kernel (fs/pstore/netoops.c links it into
 * netoops.ko) and in userspace (the collector's tests, benchmark and traffic
 * generator), so this header uses only the __u* types that <linux/types.h>
 * provides in both worlds.
 *
 * Crash-path contract: nothing here allocates, sleeps, takes a lock or
 * prints.  Every function runs in time bounded by the sizes it is given.
 * The caller owns every buffer.  Output is a pure function of the inputs, so
 * golden test vectors can be compared byte for byte.
 *
 * Typical use:
 *
 *	struct netoops_tlv_buf tb;
 *	struct netoops_enc enc;
 *	int len;
 *
 *	netoops_tlv_init(&tb, meta_buf, sizeof(meta_buf));
 *	netoops_tlv_put_dump_info(&tb, NETOOPS_REASON_PANIC, count, part, cpu);
 *	netoops_tlv_put_str(&tb, NETOOPS_TLV_RELEASE, utsname()->release);
 *	...
 *	if (netoops_tlv_error(&tb))
 *		... metadata did not fit ...
 *	err = netoops_enc_init(&enc, boot_id, dump_id, tb.buf, tb.len,
 *			       payload, payload_len, NETOOPS_PKT_DEFAULT);
 *	while ((len = netoops_enc_next(&enc, pkt, sizeof(pkt))) > 0)
 *		send(pkt, len);
 */
#ifndef _NETOOPS_ENC_H
#define _NETOOPS_ENC_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stddef.h>
#include <linux/types.h>
#endif
#include <linux/netoops.h>

/**
 * struct netoops_tlv_buf - a caller-provided buffer being filled with TLVs
 * @buf:	start of the buffer
 * @cap:	size of @buf in bytes
 * @len:	bytes used so far; always a multiple of NETOOPS_TLV_ALIGN
 * @err:	first error seen by a put helper (sticky), 0 if none
 *
 * Once a put fails, later puts do nothing and return the same error, so a
 * caller can chain puts and check netoops_tlv_error() once.  A failed put
 * never leaves a partial TLV behind.
 */
struct netoops_tlv_buf {
	__u8	*buf;
	size_t	cap;
	size_t	len;
	int	err;
};

/* Bytes a TLV with a @len-byte value takes, header and padding included. */
#define NETOOPS_TLV_SPACE(len) \
	(sizeof(struct netoops_tlv) + \
	 (((len) + NETOOPS_TLV_ALIGN - 1) & ~(size_t)(NETOOPS_TLV_ALIGN - 1)))

void netoops_tlv_init(struct netoops_tlv_buf *b, void *buf, size_t cap);
int netoops_tlv_error(const struct netoops_tlv_buf *b);
int netoops_tlv_put(struct netoops_tlv_buf *b, __u16 type, const void *val,
		    size_t len);
int netoops_tlv_put_str(struct netoops_tlv_buf *b, __u16 type, const char *s);
int netoops_tlv_put_dump_info(struct netoops_tlv_buf *b, __u32 reason,
			      __u32 oops_count, __u32 part, __u32 cpu);
int netoops_tlv_put_time(struct netoops_tlv_buf *b, __s64 wall_sec,
			 __u32 wall_nsec, __u64 uptime_ns);
int netoops_tlv_put_cpu_x86(struct netoops_tlv_buf *b, const char *vendor,
			    __u32 family, __u32 model, __u32 stepping,
			    __u32 microcode);
int netoops_tlv_put_cpu_arm64(struct netoops_tlv_buf *b, __u64 midr);
int netoops_tlv_put_regs(struct netoops_tlv_buf *b, __u16 arch, __u8 context,
			 const __u64 *regs, __u16 nr);
int netoops_tlv_put_taint(struct netoops_tlv_buf *b, __u64 taint);
int netoops_tlv_put_user(struct netoops_tlv_buf *b, const char *key,
			 const char *value);
int netoops_tlv_put_payload_info(struct netoops_tlv_buf *b, __u32 compression,
				 __u32 orig_len);
int netoops_user_key_valid(const char *key, size_t len);

/**
 * typedef netoops_mac_fn - compute the MAC of a datagram
 * @ctx:	the caller's context (e.g. a prepared crypto_shash descriptor)
 * @buf:	bytes to authenticate (see NETOOPS_F_AUTH in the UAPI header)
 * @len:	their number
 * @mac:	output: HMAC-SHA256 of @buf truncated to NETOOPS_MAC_LEN bytes
 *
 * Called from netoops_enc_next(), so in the crash path: it must not
 * allocate, sleep or take a lock the crashed context may hold.
 *
 * Return: 0, or a negative errno that netoops_enc_next() passes on.
 */
typedef int (*netoops_mac_fn)(void *ctx, const void *buf, size_t len,
			      __u8 mac[NETOOPS_MAC_LEN]);

/* Bytes the MAC TLV adds to every datagram of an authenticated dump. */
#define NETOOPS_ENC_MAC_SPACE	NETOOPS_TLV_SPACE(sizeof(struct netoops_mac))
/* Bytes a parity datagram has on top of the coded data. */
#define NETOOPS_ENC_PARITY_OVERHEAD \
	(NETOOPS_HDR_LEN_V1 + NETOOPS_TLV_SPACE(sizeof(struct netoops_parity)))
/* GF(2^8) tables kept at the start of the FEC scratch buffer. */
#define NETOOPS_ENC_GF_TABLES	768
/* Scratch bytes netoops_enc_init_opts() needs for @m parity rows. */
#define NETOOPS_ENC_FEC_SCRATCH(m, max_pkt) \
	(NETOOPS_ENC_GF_TABLES + (size_t)(m) * (max_pkt))

/**
 * struct netoops_enc_opts - optional features of a dump
 * @max_pkt:	largest datagram to produce, parity included
 * @mac:	MAC callback; NULL sends the dump unauthenticated
 * @mac_ctx:	passed to @mac
 * @key_id:	key identifier sent in every MAC TLV
 * @fec_k:	data datagrams per parity group (1..254); 0 disables FEC
 * @fec_m:	parity datagrams per full group (1..255 - @fec_k); a shorter
 *		last group of k' datagrams gets ceil(k' * @fec_m / @fec_k)
 * @scratch:	caller buffer for the parity accumulators and GF tables, at
 *		least NETOOPS_ENC_FEC_SCRATCH(@fec_m, @max_pkt) bytes, kept by
 *		reference until the last netoops_enc_next()
 * @scratch_len: its size
 *
 * All-zero apart from @max_pkt gives exactly what netoops_enc_init() does.
 */
struct netoops_enc_opts {
	size_t		max_pkt;
	netoops_mac_fn	mac;
	void		*mac_ctx;
	__u32		key_id;
	unsigned int	fec_k;
	unsigned int	fec_m;
	void		*scratch;
	size_t		scratch_len;
};

/**
 * struct netoops_enc - state of the packetizer for one dump
 * @boot_id:	boot identifier copied into every header
 * @dump_id:	dump identifier copied into every header
 * @meta:	metadata TLVs (not copied: must stay valid until the last
 *		netoops_enc_next())
 * @meta_len:	bytes at @meta, a multiple of NETOOPS_TLV_ALIGN
 * @payload:	payload bytes (not copied either)
 * @payload_len: bytes at @payload
 * @max_pkt:	largest datagram to produce
 * @meta_room:	payload bytes a packet carrying the metadata can hold
 * @plain_room:	payload bytes a packet without metadata can hold
 * @last_len:	payload bytes of the last datagram (when @pkt_count > 1)
 * @pkt_count:	number of datagrams of this dump
 * @next:	index of the next data datagram netoops_enc_next() produces
 * @mac:	MAC callback, or NULL
 * @mac_ctx:	its context
 * @key_id:	key identifier of the MAC TLV
 * @fec_k:	data datagrams per full parity group, 0 without FEC
 * @fec_m:	parity datagrams per full group
 * @total_pkts:	datagrams netoops_enc_next() produces in all (data and
 *		parity)
 * @gf_log:	GF(2^8) logarithms (in the scratch buffer)
 * @gf_exp:	GF(2^8) powers of the generator, 510 entries
 * @acc:	parity accumulators, @fec_m rows of @max_pkt bytes
 * @g_first:	first data index of the current group
 * @g_k:	data datagrams in the current group
 * @g_m:	parity datagrams of the current group
 * @g_len:	coded length of the current group
 * @par_next:	next parity row to send, or @g_m when none is due
 *
 * Treat as opaque except @pkt_count and @total_pkts, which callers may read.
 */
struct netoops_enc {
	__u8		boot_id[16];
	__u64		dump_id;
	const __u8	*meta;
	size_t		meta_len;
	const __u8	*payload;
	size_t		payload_len;
	size_t		max_pkt;
	size_t		meta_room;
	size_t		plain_room;
	size_t		last_len;
	__u32		pkt_count;
	__u32		next;
	netoops_mac_fn	mac;
	void		*mac_ctx;
	__u32		key_id;
	__u32		fec_k;
	__u32		fec_m;
	__u32		total_pkts;
	__u8		*gf_log;
	__u8		*gf_exp;
	__u8		*acc;
	__u32		g_first;
	__u32		g_k;
	__u32		g_m;
	__u32		g_len;
	__u32		par_next;
};

int netoops_enc_init(struct netoops_enc *e, const __u8 boot_id[16],
		     __u64 dump_id, const void *meta, size_t meta_len,
		     const void *payload, size_t payload_len, size_t max_pkt);
int netoops_enc_init_opts(struct netoops_enc *e, const __u8 boot_id[16],
			  __u64 dump_id, const void *meta, size_t meta_len,
			  const void *payload, size_t payload_len,
			  const struct netoops_enc_opts *opts);
long netoops_enc_count(size_t meta_len, size_t payload_len,
		       const struct netoops_enc_opts *opts);
int netoops_enc_next(struct netoops_enc *e, void *pkt, size_t cap);
void netoops_enc_rewind(struct netoops_enc *e);
__u32 netoops_crc32(const void *buf, size_t len);

#endif /* _NETOOPS_ENC_H */
