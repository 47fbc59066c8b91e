// SPDX-License-Identifier: GPL-2.0
/*
 * netoops packet decoder: validation and parsing of one datagram.
 * See netoops_decode.h for the contract.
 */
#include <errno.h>
#include <isa-l/crc.h>
#include <stddef.h>
#include <string.h>

#include "netoops_decode.h"
#include "netoops_enc.h"

static const char *const err_names[NETOOPS_ERR__MAX] = {
	[NETOOPS_OK]			= "ok",
	[NETOOPS_ERR_SHORT]		= "short",
	[NETOOPS_ERR_MAGIC]		= "magic",
	[NETOOPS_ERR_VERSION]		= "version",
	[NETOOPS_ERR_HDR_LEN]		= "hdr_len",
	[NETOOPS_ERR_LENGTH]		= "length",
	[NETOOPS_ERR_CHECKSUM]		= "checksum",
	[NETOOPS_ERR_FLAGS]		= "flags",
	[NETOOPS_ERR_INDEX]		= "index",
	[NETOOPS_ERR_TLV_TRUNCATED]	= "tlv_truncated",
	[NETOOPS_ERR_TLV_CRITICAL_UNKNOWN] = "tlv_critical_unknown",
	[NETOOPS_ERR_TLV_SHORT]		= "tlv_short",
	[NETOOPS_ERR_TLV_DUPLICATE]	= "tlv_duplicate",
	[NETOOPS_ERR_TLV_VALUE]		= "tlv_value",
	[NETOOPS_ERR_COMPRESSION]	= "compression",
	[NETOOPS_ERR_PAYLOAD_RANGE]	= "payload_range",
	[NETOOPS_ERR_MISMATCH]		= "mismatch",
	[NETOOPS_ERR_CONFLICT]		= "conflict",
	[NETOOPS_ERR_LIMIT_PACKETS]	= "limit_packets",
	[NETOOPS_ERR_LIMIT_BYTES]	= "limit_bytes",
	[NETOOPS_ERR_LIMIT_SOURCE]	= "limit_source",
	[NETOOPS_ERR_LIMIT_DUMPS]	= "limit_dumps",
	[NETOOPS_ERR_LIMIT_MEMORY]	= "limit_memory",
	[NETOOPS_ERR_NOMEM]		= "nomem",
	[NETOOPS_ERR_INVALID]		= "invalid",
	[NETOOPS_ERR_UNSIGNED]		= "unsigned",
	[NETOOPS_ERR_BAD_MAC]		= "bad_mac",
	[NETOOPS_ERR_UNKNOWN_KEY]	= "unknown_key",
	[NETOOPS_ERR_REPLAY]		= "replay",
	[NETOOPS_ERR_PARITY]		= "parity",
	[NETOOPS_ERR_DOWNGRADE]		= "downgrade",
};

const char *netoops_err_str(enum netoops_err err)
{
	if ((unsigned int)err >= NETOOPS_ERR__MAX || !err_names[err])
		return "unknown";
	return err_names[err];
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)get16(p) | (uint32_t)get16(p + 2) << 16;
}

static uint64_t get64(const uint8_t *p)
{
	return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

static int fail(struct netoops_packet *ret, enum netoops_err err,
		size_t off, uint16_t tlv)
{
	ret->err = err;
	ret->err_offset = off;
	ret->err_tlv = tlv;
	switch (err) {
	case NETOOPS_ERR_VERSION:
		return -EPROTONOSUPPORT;
	case NETOOPS_ERR_TLV_CRITICAL_UNKNOWN:
	case NETOOPS_ERR_COMPRESSION:
		return -EOPNOTSUPP;
	case NETOOPS_ERR_INVALID:
		return -EINVAL;
	default:
		return -EBADMSG;
	}
}

/* Copy a wire string, cut at an embedded NUL or at NETOOPS_META_STR_MAX. */
static void copy_str(char *dst, const uint8_t *val, size_t len)
{
	size_t n = len < NETOOPS_META_STR_MAX ? len : NETOOPS_META_STR_MAX;
	const uint8_t *nul = memchr(val, 0, n);

	if (nul)
		n = (size_t)(nul - val);
	memcpy(dst, val, n);
	dst[n] = '\0';
}

static enum netoops_err parse_user(struct netoops_meta *m, const uint8_t *val,
				   size_t len)
{
	const uint8_t *nul = len ? memchr(val, 0, len) : NULL;
	size_t klen, vlen;
	struct netoops_user_field *f;

	if (!nul)
		return NETOOPS_ERR_TLV_VALUE;
	klen = (size_t)(nul - val);
	vlen = len - klen - 1;
	if (!netoops_user_key_valid((const char *)val, klen) ||
	    vlen > NETOOPS_USER_VALUE_MAX || memchr(nul + 1, 0, vlen))
		return NETOOPS_ERR_TLV_VALUE;
	if (m->nr_user >= NETOOPS_META_USER_MAX) {
		m->user_dropped++;
		return NETOOPS_OK;
	}
	f = &m->user[m->nr_user++];
	memcpy(f->key, val, klen);
	f->key[klen] = '\0';
	memcpy(f->value, nul + 1, vlen);
	f->value[vlen] = '\0';
	return NETOOPS_OK;
}

static enum netoops_err parse_regs(struct netoops_meta *m, const uint8_t *val,
				   size_t len)
{
	uint16_t nr = get16(val + 2);
	unsigned int i;

	if (sizeof(struct netoops_regs) + (size_t)nr * 8 > len)
		return NETOOPS_ERR_TLV_VALUE;
	m->regs_arch = get16(val);
	m->regs_nr = nr;
	m->regs_context = val[4];
	m->regs_kept = nr < NETOOPS_META_REGS_MAX ? nr : NETOOPS_META_REGS_MAX;
	for (i = 0; i < m->regs_kept; i++)
		m->regs[i] = get64(val + sizeof(struct netoops_regs) + i * 8);
	return NETOOPS_OK;
}

/* Minimum value length of each known metadata type (index = type). */
static const size_t meta_min_len[] = {
	[NETOOPS_TLV_DUMP_INFO]		= sizeof(struct netoops_dump_info),
	[NETOOPS_TLV_TIME]		= sizeof(struct netoops_time),
	[NETOOPS_TLV_RELEASE]		= 0,
	[NETOOPS_TLV_VERSION]		= 0,
	[NETOOPS_TLV_ARCH]		= 0,
	[NETOOPS_TLV_HOSTNAME]		= 0,
	[NETOOPS_TLV_CPU_X86]		= sizeof(struct netoops_cpu_x86),
	[NETOOPS_TLV_CPU_ARM64]		= sizeof(struct netoops_cpu_arm64),
	[NETOOPS_TLV_REGS]		= sizeof(struct netoops_regs),
	[NETOOPS_TLV_TAINT]		= 8,
	[NETOOPS_TLV_USER]		= 0,
	[NETOOPS_TLV_PAYLOAD_INFO]	= sizeof(struct netoops_payload_info),
};

static enum netoops_err parse_meta(struct netoops_meta *m, uint16_t t,
				   const uint8_t *val, size_t len)
{
	if (len < meta_min_len[t])
		return NETOOPS_ERR_TLV_SHORT;
	if (t != NETOOPS_TLV_USER && (m->present & NETOOPS_META_HAS(t)))
		return NETOOPS_ERR_TLV_DUPLICATE;
	m->present |= NETOOPS_META_HAS(t);

	switch (t) {
	case NETOOPS_TLV_DUMP_INFO:
		m->reason = get32(val);
		m->oops_count = get32(val + 4);
		m->part = get32(val + 8);
		m->cpu = get32(val + 12);
		break;
	case NETOOPS_TLV_TIME:
		m->wall_sec = (int64_t)get64(val);
		m->wall_nsec = get32(val + 8);
		m->uptime_ns = get64(val + 16);
		if (m->wall_nsec > 999999999)
			return NETOOPS_ERR_TLV_VALUE;
		break;
	case NETOOPS_TLV_RELEASE:
		copy_str(m->release, val, len);
		break;
	case NETOOPS_TLV_VERSION:
		copy_str(m->version, val, len);
		break;
	case NETOOPS_TLV_ARCH:
		copy_str(m->arch, val, len);
		break;
	case NETOOPS_TLV_HOSTNAME:
		copy_str(m->hostname, val, len);
		break;
	case NETOOPS_TLV_CPU_X86: {
		const uint8_t *nul = memchr(val, 0, 16);
		size_t n = nul ? (size_t)(nul - val) : 16;

		memcpy(m->x86_vendor, val, n);
		m->x86_vendor[n] = '\0';
		m->x86_family = get32(val + 16);
		m->x86_model = get32(val + 20);
		m->x86_stepping = get32(val + 24);
		m->x86_microcode = get32(val + 28);
		break;
	}
	case NETOOPS_TLV_CPU_ARM64:
		m->arm64_midr = get64(val);
		break;
	case NETOOPS_TLV_REGS:
		return parse_regs(m, val, len);
	case NETOOPS_TLV_TAINT:
		m->taint = get64(val);
		break;
	case NETOOPS_TLV_USER:
		return parse_user(m, val, len);
	case NETOOPS_TLV_PAYLOAD_INFO:
		m->compression = get32(val);
		m->orig_len = get32(val + 4);
		if (m->compression != NETOOPS_COMPRESS_NONE &&
		    m->compression != NETOOPS_COMPRESS_DEFLATE)
			return NETOOPS_ERR_COMPRESSION;
		break;
	}
	return NETOOPS_OK;
}

/* NETOOPS_TLV_PARITY: only in a parity datagram, once. */
static enum netoops_err parse_parity(struct netoops_packet *ret,
				     const uint8_t *val, size_t len)
{
	if (!ret->is_parity)
		return NETOOPS_ERR_FLAGS;
	if (ret->par_data)
		return NETOOPS_ERR_TLV_DUPLICATE;
	if (len < sizeof(struct netoops_parity))
		return NETOOPS_ERR_TLV_SHORT;
	ret->par_first = get16(val);
	ret->par_k = val[2];
	ret->par_m = val[3];
	ret->par_row = val[4];
	ret->par_len = get16(val + 6);
	if (!ret->par_k || !ret->par_m ||
	    ret->par_k + ret->par_m > NETOOPS_FEC_MAX ||
	    ret->par_row >= ret->par_m || ret->par_len < NETOOPS_HDR_LEN_V1 ||
	    ret->par_len != len - sizeof(struct netoops_parity))
		return NETOOPS_ERR_PARITY;
	ret->par_data = val + sizeof(struct netoops_parity);
	return NETOOPS_OK;
}

/*
 * CRC-32 (IEEE, reflected: zlib's crc32()) of the datagram with its
 * checksum field as zeros.  ISA-L's folding CRC: the checksum was a fifth
 * of the receive threads' CPU with zlib's table-driven one.
 */
/* netoops_decode_packet() clears the fields around @meta apart */
_Static_assert(offsetof(struct netoops_packet, raw) >=
	       offsetof(struct netoops_packet, meta) +
	       sizeof(struct netoops_meta), "meta must come right before raw");

static uint32_t wire_crc(const uint8_t *p, size_t len)
{
	static const uint8_t zero[4];
	uint32_t crc;

	crc = crc32_gzip_refl(0, p, 48);
	crc = crc32_gzip_refl(crc, zero, 4);
	return crc32_gzip_refl(crc, p + 52, len - 52);
}

int netoops_decode_packet(const void *buf, size_t len,
			  struct netoops_packet *ret)
{
	const uint8_t *p = buf;
	size_t off, end, space;
	bool have_payload = false;
	uint16_t tlv_len;

	if (!ret)
		return -EINVAL;
	/* all but the metadata, cleared below only if there is some: it is
	 * most of the struct, and most datagrams carry none
	 */
	memset(ret, 0, offsetof(struct netoops_packet, meta));
	memset((uint8_t *)ret + offsetof(struct netoops_packet, raw), 0,
	       sizeof(*ret) - offsetof(struct netoops_packet, raw));
	if (!p)
		return fail(ret, NETOOPS_ERR_INVALID, 0, 0);
	if (len < NETOOPS_HDR_LEN_V1)
		return fail(ret, NETOOPS_ERR_SHORT, len, 0);
	if (get32(p) != NETOOPS_MAGIC)
		return fail(ret, NETOOPS_ERR_MAGIC, 0, 0);
	ret->version = p[4];
	if (ret->version != NETOOPS_VERSION)
		return fail(ret, NETOOPS_ERR_VERSION, 4, 0);
	ret->hdr_len = p[5];
	if (ret->hdr_len < NETOOPS_HDR_LEN_V1 ||
	    ret->hdr_len % NETOOPS_TLV_ALIGN || ret->hdr_len > len)
		return fail(ret, NETOOPS_ERR_HDR_LEN, 5, 0);
	tlv_len = get16(p + 36);
	if ((size_t)ret->hdr_len + tlv_len != len)
		return fail(ret, NETOOPS_ERR_LENGTH, 36, 0);
	ret->checksum = get32(p + 48);
	if (wire_crc(p, len) != ret->checksum)
		return fail(ret, NETOOPS_ERR_CHECKSUM, 48, 0);
	ret->flags = get16(p + 6);
	if (ret->flags & NETOOPS_F_CRITICAL_MASK &
	    ~(NETOOPS_F_AUTH | NETOOPS_F_PARITY)) {
		fail(ret, NETOOPS_ERR_FLAGS, 6, 0);
		return -EOPNOTSUPP;
	}
	ret->has_meta = ret->flags & NETOOPS_F_META;
	ret->is_parity = ret->flags & NETOOPS_F_PARITY;
	if (ret->is_parity && ret->has_meta)
		return fail(ret, NETOOPS_ERR_FLAGS, 6, 0);
	if (ret->has_meta)
		memset(&ret->meta, 0, sizeof(ret->meta));
	ret->raw = p;
	ret->raw_len = len;
	memcpy(ret->boot_id, p + 8, sizeof(ret->boot_id));
	ret->dump_id = get64(p + 24);
	ret->pkt_index = get16(p + 32);
	ret->pkt_count = get16(p + 34);
	if (!ret->pkt_count || ret->pkt_index >= ret->pkt_count)
		return fail(ret, NETOOPS_ERR_INDEX, 32, 0);
	ret->payload_off = get32(p + 40);
	ret->payload_total = get32(p + 44);

	for (off = ret->hdr_len, end = len; off < end; off += space) {
		uint16_t type, t, vlen;
		const uint8_t *val;
		enum netoops_err e;

		if (end - off < sizeof(struct netoops_tlv))
			return fail(ret, NETOOPS_ERR_TLV_TRUNCATED, off, 0);
		type = get16(p + off);
		vlen = get16(p + off + 2);
		space = NETOOPS_TLV_SPACE(vlen);
		if (space > end - off)
			return fail(ret, NETOOPS_ERR_TLV_TRUNCATED, off, type);
		t = type & NETOOPS_TLV_TYPE_MASK;
		val = p + off + sizeof(struct netoops_tlv);

		if (t == NETOOPS_TLV_PAD) {
			ret->skipped_tlvs++;
		} else if (t == NETOOPS_TLV_PAYLOAD) {
			if (have_payload)
				return fail(ret, NETOOPS_ERR_TLV_DUPLICATE,
					    off, type);
			have_payload = true;
			ret->chunk = vlen ? val : NULL;
			ret->chunk_len = vlen;
		} else if (t == NETOOPS_TLV_MAC) {
			if (!(ret->flags & NETOOPS_F_AUTH))
				return fail(ret, NETOOPS_ERR_FLAGS, off, type);
			/* exact: the MAC does not cover its own header */
			if (off + space != end ||
			    type != (NETOOPS_TLV_MAC | NETOOPS_TLV_CRITICAL) ||
			    vlen != sizeof(struct netoops_mac))
				return fail(ret, NETOOPS_ERR_BAD_MAC, off, type);
			ret->has_mac = true;
			ret->key_id = get32(val);
			memcpy(ret->mac, val + 4, NETOOPS_MAC_LEN);
			ret->mac_off = off;
		} else if (t == NETOOPS_TLV_PARITY) {
			e = parse_parity(ret, val, vlen);
			if (e != NETOOPS_OK)
				return fail(ret, e, off, type);
		} else if (t < NETOOPS_TLV_PAYLOAD) {
			if (!ret->has_meta)
				return fail(ret, NETOOPS_ERR_FLAGS, off, type);
			e = parse_meta(&ret->meta, t, val, vlen);
			if (e != NETOOPS_OK)
				return fail(ret, e, off, type);
		} else if (type & NETOOPS_TLV_CRITICAL) {
			return fail(ret, NETOOPS_ERR_TLV_CRITICAL_UNKNOWN, off,
				    type);
		} else {
			ret->skipped_tlvs++;
		}
	}

	if ((ret->flags & NETOOPS_F_AUTH) && !ret->has_mac)
		return fail(ret, NETOOPS_ERR_BAD_MAC, len, 0);
	if (ret->is_parity &&
	    (!ret->par_data || have_payload || ret->payload_off ||
	     ret->par_first != ret->pkt_index ||
	     (uint32_t)ret->par_first + ret->par_k > ret->pkt_count))
		return fail(ret, NETOOPS_ERR_PARITY, 32, 0);
	if (ret->chunk_len) {
		if ((uint64_t)ret->payload_off + ret->chunk_len >
		    ret->payload_total)
			return fail(ret, NETOOPS_ERR_PAYLOAD_RANGE, 40, 0);
	} else if (ret->payload_off) {
		return fail(ret, NETOOPS_ERR_PAYLOAD_RANGE, 40, 0);
	}
	return 0;
}
