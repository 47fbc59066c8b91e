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
 * @next:	index of the next datagram netoops_enc_next() produces
 *
 * Treat as opaque except @pkt_count, which callers may read.
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
};

int netoops_enc_init(struct netoops_enc *e, const __u8 boot_id[16],
		     __u64 dump_id, const void *meta, size_t meta_len,
		     const void *payload, size_t payload_len, size_t max_pkt);
int netoops_enc_next(struct netoops_enc *e, void *pkt, size_t cap);
void netoops_enc_rewind(struct netoops_enc *e);
__u32 netoops_crc32(const void *buf, size_t len);

#endif /* _NETOOPS_ENC_H */
