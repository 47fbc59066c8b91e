// SPDX-License-Identifier: GPL-2.0
/*
 * netoops packet encoder: TLV writer and packetizer for the wire format of
 * include/uapi/linux/netoops.h.
 *
 * Compiled unchanged into netoops.ko and into the userspace collector tests,
 * so it depends on nothing but byte stores, memcpy/memset and a CRC-32.  It
 * runs from the panic path: no allocation, no locks, no sleeping, no printk,
 * and every loop is bounded by a length the caller passed in.
 */
#ifdef __KERNEL__
#include <linux/crc32.h>
#include <linux/errno.h>
#include <linux/string.h>
#include <linux/types.h>
#else /* userspace */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <zlib.h>
#include <linux/types.h>

typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
#endif

#include "netoops_enc.h"

#define ENC_HDR_LEN	NETOOPS_HDR_LEN_V1
#define ENC_TLV_HDR	sizeof(struct netoops_tlv)
#define ENC_ALIGN(x)	(((x) + NETOOPS_TLV_ALIGN - 1) & \
			 ~(size_t)(NETOOPS_TLV_ALIGN - 1))
#define ENC_U16_MAX	0xffffU
#define ENC_U32_MAX	0xffffffffU

/*
 * Little-endian stores at any alignment, written as byte stores so that the
 * same code runs in the kernel and in userspace (where <linux/unaligned.h>
 * does not exist, and where 6.1 and 6.12 disagree on its name anyway).
 */
static inline void enc_put16(u16 v, u8 *p)
{
	p[0] = v & 0xff;
	p[1] = v >> 8;
}

static inline void enc_put32(u32 v, u8 *p)
{
	enc_put16(v & 0xffff, p);
	enc_put16(v >> 16, p + 2);
}

static inline void enc_put64(u64 v, u8 *p)
{
	enc_put32(v & 0xffffffff, p);
	enc_put32(v >> 32, p + 4);
}

/**
 * netoops_crc32() - the checksum of the wire format
 * @buf:	bytes to checksum
 * @len:	their number
 *
 * Return: CRC-32 (IEEE 802.3, reflected, init and final xor ~0), the value
 * zlib's crc32(0, buf, len) gives.
 */
u32 netoops_crc32(const void *buf, size_t len)
{
#ifdef __KERNEL__
	return ~crc32_le(~0U, buf, len);
#else
	const u8 *p = buf;
	unsigned long crc = crc32(0L, NULL, 0);

	while (len) {
		unsigned int n = len > (1U << 30) ? (1U << 30) : len;

		crc = crc32(crc, p, n);
		p += n;
		len -= n;
	}
	return (u32)crc;
#endif
}

/**
 * netoops_tlv_init() - start filling a caller buffer with TLVs
 * @b:		the writer
 * @buf:	the buffer; its contents are overwritten as TLVs are added
 * @cap:	its size in bytes
 */
void netoops_tlv_init(struct netoops_tlv_buf *b, void *buf, size_t cap)
{
	b->buf = buf;
	b->cap = buf ? cap : 0;
	b->len = 0;
	b->err = 0;
}

/**
 * netoops_tlv_error() - first error of any put on @b
 * @b:	the writer
 *
 * Return: 0 if every put succeeded, else the first negative errno.
 */
int netoops_tlv_error(const struct netoops_tlv_buf *b)
{
	return b->err;
}

static int tlv_fail(struct netoops_tlv_buf *b, int err)
{
	b->err = err;
	return err;
}

/*
 * Append a TLV header for a @len-byte value and return the zeroed value area
 * (padding included), or NULL with b->err set.
 */
static u8 *tlv_reserve(struct netoops_tlv_buf *b, u16 type, size_t len)
{
	size_t space;
	u8 *p;

	if (b->err)
		return NULL;
	if (len > ENC_U16_MAX) {
		tlv_fail(b, -EINVAL);
		return NULL;
	}
	space = NETOOPS_TLV_SPACE(len);
	if (space > b->cap - b->len) {
		tlv_fail(b, -EMSGSIZE);
		return NULL;
	}
	p = b->buf + b->len;
	enc_put16(type, p);
	enc_put16((u16)len, p + 2);
	memset(p + ENC_TLV_HDR, 0, space - ENC_TLV_HDR);
	b->len += space;
	return p + ENC_TLV_HDR;
}

/**
 * netoops_tlv_put() - append one TLV with an opaque value
 * @b:		the writer
 * @type:	NETOOPS_TLV_* (or a vendor type), possibly with
 *		NETOOPS_TLV_CRITICAL
 * @val:	the value (may be NULL when @len is 0)
 * @len:	bytes of value, at most 65535
 *
 * The value is padded with zeroes to a multiple of NETOOPS_TLV_ALIGN.
 *
 * Return: 0; -EMSGSIZE if it does not fit, -EINVAL if @len is too large or
 * @val is NULL with a non-zero @len; or the earlier error of @b.
 */
int netoops_tlv_put(struct netoops_tlv_buf *b, u16 type, const void *val,
		    size_t len)
{
	u8 *p;

	if (!b->err && len && !val)
		return tlv_fail(b, -EINVAL);
	p = tlv_reserve(b, type, len);
	if (!p)
		return b->err;
	if (len)
		memcpy(p, val, len);
	return 0;
}

/**
 * netoops_tlv_put_str() - append a string TLV (RELEASE, VERSION, ...)
 * @b:		the writer
 * @type:	the TLV type
 * @s:		NUL-terminated string; sent without its NUL
 *
 * Return: as netoops_tlv_put(); -EINVAL if @s is NULL.
 */
int netoops_tlv_put_str(struct netoops_tlv_buf *b, u16 type, const char *s)
{
	if (!b->err && !s)
		return tlv_fail(b, -EINVAL);
	if (b->err)
		return b->err;
	return netoops_tlv_put(b, type, s, strnlen(s, ENC_U16_MAX + 1));
}

/**
 * netoops_tlv_put_dump_info() - append NETOOPS_TLV_DUMP_INFO
 * @b:		the writer
 * @reason:	NETOOPS_REASON_*
 * @oops_count:	pstore record count
 * @part:	pstore record part
 * @cpu:	CPU that produced the dump
 *
 * Return: as netoops_tlv_put().
 */
int netoops_tlv_put_dump_info(struct netoops_tlv_buf *b, u32 reason,
			      u32 oops_count, u32 part, u32 cpu)
{
	u8 *p = tlv_reserve(b, NETOOPS_TLV_DUMP_INFO,
			    sizeof(struct netoops_dump_info));

	if (!p)
		return b->err;
	enc_put32(reason, p);
	enc_put32(oops_count, p + 4);
	enc_put32(part, p + 8);
	enc_put32(cpu, p + 12);
	return 0;
}

/**
 * netoops_tlv_put_time() - append NETOOPS_TLV_TIME
 * @b:		the writer
 * @wall_sec:	CLOCK_REALTIME seconds
 * @wall_nsec:	CLOCK_REALTIME nanoseconds
 * @uptime_ns:	CLOCK_MONOTONIC nanoseconds
 *
 * Return: as netoops_tlv_put().
 */
int netoops_tlv_put_time(struct netoops_tlv_buf *b, __s64 wall_sec,
			 u32 wall_nsec, u64 uptime_ns)
{
	u8 *p = tlv_reserve(b, NETOOPS_TLV_TIME, sizeof(struct netoops_time));

	if (!p)
		return b->err;
	enc_put64((u64)wall_sec, p);
	enc_put32(wall_nsec, p + 8);
	enc_put64(uptime_ns, p + 16);
	return 0;
}

/**
 * netoops_tlv_put_cpu_x86() - append NETOOPS_TLV_CPU_X86
 * @b:		the writer
 * @vendor:	CPUID vendor string (at most 16 bytes are sent), or NULL
 * @family:	display family
 * @model:	display model
 * @stepping:	stepping
 * @microcode:	microcode revision
 *
 * Return: as netoops_tlv_put().
 */
int netoops_tlv_put_cpu_x86(struct netoops_tlv_buf *b, const char *vendor,
			    u32 family, u32 model, u32 stepping,
			    u32 microcode)
{
	u8 *p = tlv_reserve(b, NETOOPS_TLV_CPU_X86,
			    sizeof(struct netoops_cpu_x86));

	if (!p)
		return b->err;
	if (vendor)
		memcpy(p, vendor, strnlen(vendor, 16));
	enc_put32(family, p + 16);
	enc_put32(model, p + 20);
	enc_put32(stepping, p + 24);
	enc_put32(microcode, p + 28);
	return 0;
}

/**
 * netoops_tlv_put_cpu_arm64() - append NETOOPS_TLV_CPU_ARM64
 * @b:		the writer
 * @midr:	MIDR_EL1
 *
 * Return: as netoops_tlv_put().
 */
int netoops_tlv_put_cpu_arm64(struct netoops_tlv_buf *b, u64 midr)
{
	u8 *p = tlv_reserve(b, NETOOPS_TLV_CPU_ARM64,
			    sizeof(struct netoops_cpu_arm64));

	if (!p)
		return b->err;
	enc_put64(midr, p);
	return 0;
}

/**
 * netoops_tlv_put_regs() - append NETOOPS_TLV_REGS
 * @b:		the writer
 * @arch:	NETOOPS_ARCH_*
 * @context:	NETOOPS_REGS_*
 * @regs:	@nr registers in the arch's wire order
 * @nr:		number of registers
 *
 * Return: as netoops_tlv_put(); -EINVAL if the value would exceed 65535
 * bytes or @regs is NULL with a non-zero @nr.
 */
int netoops_tlv_put_regs(struct netoops_tlv_buf *b, u16 arch, u8 context,
			 const u64 *regs, u16 nr)
{
	size_t len = sizeof(struct netoops_regs) + (size_t)nr * 8;
	unsigned int i;
	u8 *p;

	if (!b->err && nr && !regs)
		return tlv_fail(b, -EINVAL);
	p = tlv_reserve(b, NETOOPS_TLV_REGS, len);
	if (!p)
		return b->err;
	enc_put16(arch, p);
	enc_put16(nr, p + 2);
	p[4] = context;
	for (i = 0; i < nr; i++)
		enc_put64(regs[i], p + sizeof(struct netoops_regs) +
				   i * 8);
	return 0;
}

/**
 * netoops_tlv_put_taint() - append NETOOPS_TLV_TAINT
 * @b:		the writer
 * @taint:	taint flag bits
 *
 * Return: as netoops_tlv_put().
 */
int netoops_tlv_put_taint(struct netoops_tlv_buf *b, u64 taint)
{
	u8 *p = tlv_reserve(b, NETOOPS_TLV_TAINT, 8);

	if (!p)
		return b->err;
	enc_put64(taint, p);
	return 0;
}

/**
 * netoops_user_key_valid() - whether a user field key is acceptable
 * @key:	the key (need not be NUL-terminated)
 * @len:	its length
 *
 * Return: 1 if @len is 1..NETOOPS_USER_KEY_MAX and every byte is one of
 * [A-Za-z0-9_.-], else 0.
 */
int netoops_user_key_valid(const char *key, size_t len)
{
	size_t i;

	if (!key || len < 1 || len > NETOOPS_USER_KEY_MAX)
		return 0;
	for (i = 0; i < len; i++) {
		char c = key[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_' || c == '.' ||
		      c == '-'))
			return 0;
	}
	return 1;
}

/**
 * netoops_tlv_put_user() - append a NETOOPS_TLV_USER field
 * @b:		the writer
 * @key:	NUL-terminated key, see netoops_user_key_valid()
 * @value:	NUL-terminated value, at most NETOOPS_USER_VALUE_MAX bytes
 *
 * Return: as netoops_tlv_put(); -EINVAL for a bad key or a too long value.
 */
int netoops_tlv_put_user(struct netoops_tlv_buf *b, const char *key,
			 const char *value)
{
	size_t klen, vlen;
	u8 *p;

	if (b->err)
		return b->err;
	if (!key || !value)
		return tlv_fail(b, -EINVAL);
	klen = strnlen(key, NETOOPS_USER_KEY_MAX + 1);
	vlen = strnlen(value, NETOOPS_USER_VALUE_MAX + 1);
	if (!netoops_user_key_valid(key, klen) ||
	    vlen > NETOOPS_USER_VALUE_MAX)
		return tlv_fail(b, -EINVAL);
	p = tlv_reserve(b, NETOOPS_TLV_USER, klen + 1 + vlen);
	if (!p)
		return b->err;
	memcpy(p, key, klen);
	/* p[klen] is the separating NUL: tlv_reserve() zeroed it */
	memcpy(p + klen + 1, value, vlen);
	return 0;
}

/**
 * netoops_tlv_put_payload_info() - append NETOOPS_TLV_PAYLOAD_INFO
 * @b:		the writer
 * @compression: NETOOPS_COMPRESS_*
 * @orig_len:	uncompressed length, 0 if unknown
 *
 * Return: as netoops_tlv_put().
 */
int netoops_tlv_put_payload_info(struct netoops_tlv_buf *b, u32 compression,
				 u32 orig_len)
{
	u8 *p = tlv_reserve(b, NETOOPS_TLV_PAYLOAD_INFO,
			    sizeof(struct netoops_payload_info));

	if (!p)
		return b->err;
	enc_put32(compression, p);
	enc_put32(orig_len, p + 4);
	return 0;
}

/* Size of data datagram @idx (payload range from enc_chunk()). */
static size_t enc_data_size(const struct netoops_enc *e, u32 idx, size_t len)
{
	bool meta = idx == 0 || idx == e->pkt_count - 1;

	return ENC_HDR_LEN + (meta ? e->meta_len : 0) +
	       (len ? ENC_TLV_HDR + ENC_ALIGN(len) : 0) +
	       (e->mac ? NETOOPS_ENC_MAC_SPACE : 0);
}

/* Build the GF(2^8) log/exp tables (polynomial 0x11d, generator 2). */
static void enc_gf_init(u8 *log, u8 *exp)
{
	unsigned int i, x = 1;

	for (i = 0; i < 255; i++) {
		exp[i] = (u8)x;
		log[x] = (u8)i;
		x <<= 1;
		if (x & 0x100)
			x ^= 0x11d;
	}
	for (i = 255; i < 510; i++)
		exp[i] = exp[i - 255];
	log[0] = 0;	/* never used: zero is handled apart */
}

/*
 * Datagram layout of a dump of @meta_len + @payload_len bytes: sets
 * @e->max_pkt, meta_room, plain_room, last_len, pkt_count, fec_k, fec_m and
 * total_pkts.  Checks everything but the FEC scratch buffer.
 */
static int enc_layout(struct netoops_enc *e, size_t meta_len,
		      size_t payload_len, const struct netoops_enc_opts *opts)
{
	size_t room, rest, mid, count, max_pkt, extra;

	if (meta_len % NETOOPS_TLV_ALIGN ||
	    opts->max_pkt < NETOOPS_PKT_MIN || opts->max_pkt > NETOOPS_PKT_MAX)
		return -EINVAL;
	max_pkt = opts->max_pkt;
	if (opts->fec_k &&
	    (!opts->fec_m || opts->fec_k + opts->fec_m > NETOOPS_FEC_MAX))
		return -EINVAL;
	if (payload_len > ENC_U32_MAX)
		return -EMSGSIZE;
	/* Every TLV is padded, so only a multiple of 4 bytes is usable. */
	room = max_pkt & ~(size_t)(NETOOPS_TLV_ALIGN - 1);
	extra = opts->mac ? NETOOPS_ENC_MAC_SPACE : 0;
	/* a parity datagram is its overhead + a whole data datagram + MAC */
	if (opts->fec_k)
		extra += NETOOPS_ENC_PARITY_OVERHEAD + extra;
	if (ENC_HDR_LEN + extra + meta_len > room)
		return -EMSGSIZE;
	room -= extra;

	rest = room - ENC_HDR_LEN - meta_len;
	/* A payload chunk of at least one byte needs a header and 4 bytes. */
	e->meta_room = rest >= ENC_TLV_HDR + NETOOPS_TLV_ALIGN ?
		       rest - ENC_TLV_HDR : 0;
	e->plain_room = room - ENC_HDR_LEN - ENC_TLV_HDR;
	if (!e->plain_room)
		return -EMSGSIZE;

	if (payload_len <= e->meta_room) {
		count = 1;
		e->last_len = 0;
	} else {
		/* first and last carry meta_room bytes at most */
		e->last_len = payload_len - e->meta_room;
		if (e->last_len > e->meta_room)
			e->last_len = e->meta_room;
		mid = payload_len - e->meta_room - e->last_len;
		count = 2 + (mid + e->plain_room - 1) / e->plain_room;
	}
	if (count > ENC_U16_MAX)
		return -EMSGSIZE;

	e->max_pkt = max_pkt;
	e->pkt_count = (u32)count;
	e->fec_k = opts->fec_k;
	e->fec_m = opts->fec_k ? opts->fec_m : 0;
	e->total_pkts = (u32)count;
	if (e->fec_k) {
		size_t full = count / e->fec_k, tail = count % e->fec_k;

		e->total_pkts += (u32)(full * e->fec_m);
		if (tail)
			e->total_pkts += (u32)((tail * e->fec_m + e->fec_k - 1) /
					       e->fec_k);
	}
	return 0;
}

/**
 * netoops_enc_count() - datagrams a dump would take
 * @meta_len:	bytes of metadata TLVs, a multiple of NETOOPS_TLV_ALIGN
 * @payload_len: bytes of payload
 * @opts:	options as for netoops_enc_init_opts(); the scratch buffer is
 *		not needed
 *
 * Return: the number of datagrams netoops_enc_next() would produce (data
 * and parity), or a negative errno as netoops_enc_init_opts().
 */
long netoops_enc_count(size_t meta_len, size_t payload_len,
		       const struct netoops_enc_opts *opts)
{
	struct netoops_enc e;
	int err;

	if (!opts)
		return -EINVAL;
	err = enc_layout(&e, meta_len, payload_len, opts);
	return err ? err : (long)e.total_pkts;
}

/**
 * netoops_enc_init_opts() - lay out one dump, with MAC and parity options
 * @e:		packetizer state, filled in
 * @boot_id:	128-bit boot identifier
 * @dump_id:	dump identifier
 * @meta:	metadata TLVs (from a netoops_tlv_buf), kept by reference
 * @meta_len:	their length, a multiple of NETOOPS_TLV_ALIGN
 * @payload:	payload bytes, kept by reference
 * @payload_len: their length
 * @opts:	options; @opts->max_pkt is required
 *
 * As netoops_enc_init(), plus: with @opts->mac every datagram gets
 * NETOOPS_F_AUTH and a MAC TLV; with @opts->fec_k the data datagrams get
 * NETOOPS_F_FEC and each group of @opts->fec_k of them is followed by its
 * parity datagrams.  Data datagrams are then made smaller so that a parity
 * datagram still fits in @opts->max_pkt.  Bounded and allocation-free: the
 * FEC state lives in @opts->scratch.
 *
 * Return: 0; -EINVAL for bad arguments (including a short scratch buffer);
 * -EMSGSIZE as netoops_enc_init().
 */
int netoops_enc_init_opts(struct netoops_enc *e, const u8 boot_id[16],
			  u64 dump_id, const void *meta, size_t meta_len,
			  const void *payload, size_t payload_len,
			  const struct netoops_enc_opts *opts)
{
	int err;

	if (!e || !opts || !boot_id || (meta_len && !meta) ||
	    (payload_len && !payload))
		return -EINVAL;
	if (opts->fec_k &&
	    (!opts->scratch || opts->scratch_len <
	     NETOOPS_ENC_FEC_SCRATCH(opts->fec_m, opts->max_pkt)))
		return -EINVAL;
	err = enc_layout(e, meta_len, payload_len, opts);
	if (err)
		return err;

	memcpy(e->boot_id, boot_id, sizeof(e->boot_id));
	e->dump_id = dump_id;
	e->meta = meta;
	e->meta_len = meta_len;
	e->payload = payload;
	e->payload_len = payload_len;
	e->mac = opts->mac;
	e->mac_ctx = opts->mac_ctx;
	e->key_id = opts->key_id;
	e->gf_log = NULL;
	e->gf_exp = NULL;
	e->acc = NULL;
	if (e->fec_k) {
		u8 *scratch = opts->scratch;

		e->gf_log = scratch;
		e->gf_exp = scratch + 256;
		e->acc = scratch + NETOOPS_ENC_GF_TABLES;
		enc_gf_init(e->gf_log, e->gf_exp);
	}
	netoops_enc_rewind(e);
	return 0;
}

/**
 * netoops_enc_init() - lay out one dump as datagrams
 * @e:		packetizer state, filled in
 * @boot_id:	128-bit boot identifier
 * @dump_id:	dump identifier
 * @meta:	metadata TLVs (from a netoops_tlv_buf), kept by reference
 * @meta_len:	their length, a multiple of NETOOPS_TLV_ALIGN
 * @payload:	payload bytes, kept by reference
 * @payload_len: their length
 * @max_pkt:	largest datagram, NETOOPS_PKT_MIN..NETOOPS_PKT_MAX
 *
 * The first datagram carries the metadata and the start of the payload; the
 * last one repeats the metadata and carries the end of the payload; the ones
 * in between carry as much payload as fits.  A dump small enough to fit in
 * one datagram with its metadata is sent as exactly one.  Nothing is copied:
 * @meta and @payload must stay valid until the last netoops_enc_next().
 *
 * Return: 0; -EINVAL for bad arguments; -EMSGSIZE if the metadata does not
 * fit in @max_pkt or the dump would need more than 65535 datagrams.
 */
int netoops_enc_init(struct netoops_enc *e, const u8 boot_id[16],
		     u64 dump_id, const void *meta, size_t meta_len,
		     const void *payload, size_t payload_len, size_t max_pkt)
{
	struct netoops_enc_opts o = { .max_pkt = max_pkt };

	return netoops_enc_init_opts(e, boot_id, dump_id, meta, meta_len,
				     payload, payload_len, &o);
}

/* Payload range carried by datagram @idx. */
static void enc_chunk(const struct netoops_enc *e, u32 idx, size_t *off,
		      size_t *len)
{
	size_t mid_total;

	if (idx == 0) {
		*off = 0;
		*len = e->payload_len < e->meta_room ? e->payload_len :
						       e->meta_room;
	} else if (idx == e->pkt_count - 1) {
		*off = e->payload_len - e->last_len;
		*len = e->last_len;
	} else {
		mid_total = e->payload_len - e->meta_room - e->last_len;
		*off = e->meta_room + (size_t)(idx - 1) * e->plain_room;
		*len = mid_total - (*off - e->meta_room);
		if (*len > e->plain_room)
			*len = e->plain_room;
	}
}

/* Header common to data and parity datagrams; checksum left zero. */
static void enc_header(const struct netoops_enc *e, u8 *p, u16 flags,
		       u32 idx, size_t size, u32 payload_off)
{
	enc_put32(NETOOPS_MAGIC, p);
	p[4] = NETOOPS_VERSION;
	p[5] = ENC_HDR_LEN;
	enc_put16(flags, p + 6);
	memcpy(p + 8, e->boot_id, 16);
	enc_put64(e->dump_id, p + 24);
	enc_put16((u16)idx, p + 32);
	enc_put16((u16)e->pkt_count, p + 34);
	enc_put16((u16)(size - ENC_HDR_LEN), p + 36);
	enc_put16(0, p + 38);
	enc_put32(payload_off, p + 40);
	enc_put32((u32)e->payload_len, p + 44);
	enc_put32(0, p + 48);
	enc_put32(0, p + 52);
}

/* Append the MAC TLV at @p + @off (the datagram's last @size - @off bytes)
 * and fill in the checksum.
 */
static int enc_finish(struct netoops_enc *e, u8 *p, size_t off, size_t size)
{
	int err;

	if (e->mac) {
		enc_put16(NETOOPS_TLV_MAC | NETOOPS_TLV_CRITICAL, p + off);
		enc_put16(sizeof(struct netoops_mac), p + off + 2);
		enc_put32(e->key_id, p + off + ENC_TLV_HDR);
		err = e->mac(e->mac_ctx, p, off, p + off + ENC_TLV_HDR + 4);
		if (err)
			return err < 0 ? err : -EIO;
	}
	enc_put32(netoops_crc32(p, size), p + 48);
	return 0;
}

/* Start the group whose first data datagram is e->next. */
static void enc_group_start(struct netoops_enc *e)
{
	size_t off, len, size;
	u32 i;

	e->g_first = e->next;
	e->g_k = e->pkt_count - e->next;
	if (e->g_k > e->fec_k)
		e->g_k = e->fec_k;
	e->g_m = (e->g_k * e->fec_m + e->fec_k - 1) / e->fec_k;
	e->g_len = ENC_HDR_LEN;
	for (i = e->g_first; i < e->g_first + e->g_k; i++) {
		enc_chunk(e, i, &off, &len);
		size = enc_data_size(e, i, len);
		if (size > e->g_len)
			e->g_len = (u32)size;
	}
	memset(e->acc, 0, (size_t)e->g_m * e->g_len);
	e->par_next = 0;
}

/* acc[row] += coefficient(row, j) * datagram, for every parity row. */
static void enc_accumulate(struct netoops_enc *e, const u8 *p, size_t size)
{
	u32 j = e->next - e->g_first, r;
	size_t i;

	for (r = 0; r < e->g_m; r++) {
		/* Cauchy: 1 / ((k + r) ^ j), as ISA-L's gf_gen_cauchy1 */
		unsigned int x = (e->g_k + r) ^ j;
		unsigned int lc = 255 - e->gf_log[x];
		u8 *acc = e->acc + (size_t)r * e->g_len;

		for (i = 0; i < size; i++)
			if (p[i])
				acc[i] ^= e->gf_exp[lc + e->gf_log[p[i]]];
	}
}

static int enc_parity(struct netoops_enc *e, u8 *p, size_t cap)
{
	size_t size = NETOOPS_ENC_PARITY_OVERHEAD + e->g_len +
		      (e->mac ? NETOOPS_ENC_MAC_SPACE : 0);
	size_t off = ENC_HDR_LEN;
	u16 flags = NETOOPS_F_PARITY | (e->mac ? NETOOPS_F_AUTH : 0);
	int err;

	if (!p || cap < size)
		return -ENOSPC;
	enc_header(e, p, flags, e->g_first, size, 0);
	enc_put16(NETOOPS_TLV_PARITY | NETOOPS_TLV_CRITICAL, p + off);
	enc_put16((u16)(sizeof(struct netoops_parity) + e->g_len), p + off + 2);
	off += ENC_TLV_HDR;
	enc_put16((u16)e->g_first, p + off);
	p[off + 2] = (u8)e->g_k;
	p[off + 3] = (u8)e->g_m;
	p[off + 4] = (u8)e->par_next;
	p[off + 5] = 0;
	enc_put16((u16)e->g_len, p + off + 6);
	off += sizeof(struct netoops_parity);
	memcpy(p + off, e->acc + (size_t)e->par_next * e->g_len, e->g_len);
	off += e->g_len;
	err = enc_finish(e, p, off, size);
	if (err)
		return err;
	e->par_next++;
	return (int)size;
}

/**
 * netoops_enc_next() - produce the next datagram of the dump
 * @e:		packetizer state from netoops_enc_init()
 * @pkt:	output buffer
 * @cap:	its size; @e->max_pkt is always enough
 *
 * Datagrams come in index order, checksum filled in; with FEC, the parity
 * datagrams of a group follow its last data datagram.  Bounded: at most
 * @e->max_pkt bytes are written and checksummed, and with FEC each data
 * byte is multiplied into each parity row once.
 *
 * Return: the datagram length; 0 once every datagram was produced;
 * -ENOSPC if @cap is too small for this datagram (state unchanged); the
 * MAC callback's error if it failed (the datagram is then not produced).
 */
int netoops_enc_next(struct netoops_enc *e, void *pkt, size_t cap)
{
	size_t off, len, size, pad;
	u8 *p = pkt;
	u32 idx = e->next;
	bool meta;
	u16 flags;
	int err;

	if (e->fec_k && e->par_next < e->g_m)
		return enc_parity(e, p, cap);
	if (idx >= e->pkt_count)
		return 0;
	enc_chunk(e, idx, &off, &len);
	meta = idx == 0 || idx == e->pkt_count - 1;
	size = enc_data_size(e, idx, len);
	if (!p || cap < size)
		return -ENOSPC;

	flags = meta ? NETOOPS_F_META : 0;
	if (e->fec_k)
		flags |= NETOOPS_F_FEC;
	if (e->mac)
		flags |= NETOOPS_F_AUTH;
	enc_header(e, p, flags, idx, size, len ? (u32)off : 0);
	p += ENC_HDR_LEN;
	if (meta && e->meta_len) {
		memcpy(p, e->meta, e->meta_len);
		p += e->meta_len;
	}
	if (len) {
		pad = ENC_ALIGN(len) - len;
		enc_put16(NETOOPS_TLV_PAYLOAD, p);
		enc_put16((u16)len, p + 2);
		memcpy(p + ENC_TLV_HDR, e->payload + off, len);
		memset(p + ENC_TLV_HDR + len, 0, pad);
		p += ENC_TLV_HDR + len + pad;
	}
	err = enc_finish(e, pkt, (size_t)(p - (u8 *)pkt), size);
	if (err)
		return err;
	if (e->fec_k) {
		if (idx == e->g_first + e->g_k)
			enc_group_start(e);
		enc_accumulate(e, pkt, size);
		/* the group's parity is due once its last datagram is out */
		if (idx + 1 < e->g_first + e->g_k)
			e->par_next = e->g_m;
		else
			e->par_next = 0;
	}
	e->next++;
	return (int)size;
}

/**
 * netoops_enc_rewind() - start the dump over (to send it again)
 * @e:	packetizer state
 */
void netoops_enc_rewind(struct netoops_enc *e)
{
	e->next = 0;
	e->g_first = 0;
	e->g_k = 0;
	e->g_m = 0;
	e->g_len = 0;
	e->par_next = 0;
}
