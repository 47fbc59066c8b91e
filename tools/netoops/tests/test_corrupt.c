// SPDX-License-Identifier: GPL-2.0
/*
 * Decoder robustness: every reason for refusing a packet, crafted one by
 * one; every truncation and every single-bit flip of real packets (refused,
 * with the checksum catching the flips); the same flips with the checksum
 * recomputed so that the deeper checks are exercised.  Never a crash (the
 * suite runs under ASan + UBSan).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib_test_util.h"

/* A hand-built datagram. */
struct raw {
	uint8_t		b[4096];
	size_t		len;
};

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)v);
	put16(p + 2, (uint16_t)(v >> 16));
}

static void raw_hdr(struct raw *r, uint16_t flags, uint16_t idx,
		    uint16_t count, uint32_t off, uint32_t total)
{
	memset(r, 0, sizeof(*r));
	put32(r->b, NETOOPS_MAGIC);
	r->b[4] = NETOOPS_VERSION;
	r->b[5] = NETOOPS_HDR_LEN_V1;
	put16(r->b + 6, flags);
	memcpy(r->b + 8, tu_boot_id, 16);
	r->b[24] = 5;
	put16(r->b + 32, idx);
	put16(r->b + 34, count);
	put32(r->b + 40, off);
	put32(r->b + 44, total);
	r->len = NETOOPS_HDR_LEN_V1;
}

static void raw_tlv(struct raw *r, uint16_t type, const void *v, size_t len)
{
	put16(r->b + r->len, type);
	put16(r->b + r->len + 2, (uint16_t)len);
	if (len)
		memcpy(r->b + r->len + 4, v, len);
	r->len += NETOOPS_TLV_SPACE(len);
}

/* Fill tlv_len from the length and the checksum. */
static void raw_fix(struct raw *r)
{
	put16(r->b + 36, (uint16_t)(r->len - r->b[5]));
	put32(r->b + 48, 0);
	put32(r->b + 48, netoops_crc32(r->b, r->len));
}

static void raw_crc(uint8_t *b, size_t len)
{
	put32(b + 48, 0);
	put32(b + 48, netoops_crc32(b, len));
}

static const uint8_t dinfo[16] = { 1, 0, 0, 0, 1 };

struct crafted {
	const char	*name;
	enum netoops_err err;	/* NETOOPS_OK: must be accepted */
	int		rc;
};

static const struct crafted cases[] = {
	{ "short", NETOOPS_ERR_SHORT, -EBADMSG },
	{ "magic", NETOOPS_ERR_MAGIC, -EBADMSG },
	{ "version 2", NETOOPS_ERR_VERSION, -EPROTONOSUPPORT },
	{ "hdr_len 52", NETOOPS_ERR_HDR_LEN, -EBADMSG },
	{ "hdr_len 58", NETOOPS_ERR_HDR_LEN, -EBADMSG },
	{ "hdr_len past end", NETOOPS_ERR_HDR_LEN, -EBADMSG },
	{ "tlv_len too long", NETOOPS_ERR_LENGTH, -EBADMSG },
	{ "checksum", NETOOPS_ERR_CHECKSUM, -EBADMSG },
	{ "critical flag", NETOOPS_ERR_FLAGS, -EOPNOTSUPP },
	{ "meta TLV without F_META", NETOOPS_ERR_FLAGS, -EBADMSG },
	{ "pkt_count 0", NETOOPS_ERR_INDEX, -EBADMSG },
	{ "pkt_index == pkt_count", NETOOPS_ERR_INDEX, -EBADMSG },
	{ "TLV longer than datagram", NETOOPS_ERR_TLV_TRUNCATED, -EBADMSG },
	{ "2 stray bytes", NETOOPS_ERR_TLV_TRUNCATED, -EBADMSG },
	{ "unknown critical", NETOOPS_ERR_TLV_CRITICAL_UNKNOWN, -EOPNOTSUPP },
	{ "critical vendor", NETOOPS_ERR_TLV_CRITICAL_UNKNOWN, -EOPNOTSUPP },
	{ "short DUMP_INFO", NETOOPS_ERR_TLV_SHORT, -EBADMSG },
	{ "short TIME", NETOOPS_ERR_TLV_SHORT, -EBADMSG },
	{ "two DUMP_INFO", NETOOPS_ERR_TLV_DUPLICATE, -EBADMSG },
	{ "two PAYLOAD", NETOOPS_ERR_TLV_DUPLICATE, -EBADMSG },
	{ "USER without NUL", NETOOPS_ERR_TLV_VALUE, -EBADMSG },
	{ "USER bad key", NETOOPS_ERR_TLV_VALUE, -EBADMSG },
	{ "USER NUL in value", NETOOPS_ERR_TLV_VALUE, -EBADMSG },
	{ "REGS nr past value", NETOOPS_ERR_TLV_VALUE, -EBADMSG },
	{ "TIME nsec 1e9", NETOOPS_ERR_TLV_VALUE, -EBADMSG },
	{ "compression 7", NETOOPS_ERR_COMPRESSION, -EOPNOTSUPP },
	{ "chunk past total", NETOOPS_ERR_PAYLOAD_RANGE, -EBADMSG },
	{ "payload_off without chunk", NETOOPS_ERR_PAYLOAD_RANGE, -EBADMSG },
	{ "hdr_len 64 (grown header)", NETOOPS_OK, 0 },
	{ "unknown non-critical skipped", NETOOPS_OK, 0 },
	{ "longer known TLV", NETOOPS_OK, 0 },
	{ "long and NUL strings", NETOOPS_OK, 0 },
	{ "40 user fields", NETOOPS_OK, 0 },
	{ "100 registers", NETOOPS_OK, 0 },
	{ "known type with critical bit", NETOOPS_OK, 0 },
};

static void build_case(size_t i, struct raw *r)
{
	uint8_t v[1024];
	size_t k;

	raw_hdr(r, NETOOPS_F_META, 0, 1, 0, 8);
	memset(v, 0, sizeof(v));
	switch (i) {
	case 0: /* short */
		raw_tlv(r, NETOOPS_TLV_PAYLOAD, "12345678", 8);
		raw_fix(r);
		r->len = 55;
		return;
	case 1:
		r->b[0] = 'X';
		break;
	case 2:
		r->b[4] = 2;
		break;
	case 3:
		r->b[5] = 52;
		break;
	case 4:
		r->b[5] = 58;
		r->len = 60;
		break;
	case 5:
		r->b[5] = 60;
		put16(r->b + 36, 0);
		raw_crc(r->b, r->len);
		return;
	case 6:
		raw_tlv(r, NETOOPS_TLV_PAYLOAD, "12345678", 8);
		raw_fix(r);
		put16(r->b + 36, 16);
		raw_crc(r->b, r->len);
		return;
	case 7:
		raw_tlv(r, NETOOPS_TLV_PAYLOAD, "12345678", 8);
		raw_fix(r);
		r->b[48] ^= 1;
		return;
	case 8:
		put16(r->b + 6, NETOOPS_F_META | 0x8000);
		break;
	case 9:
		put16(r->b + 6, 0);
		raw_tlv(r, NETOOPS_TLV_DUMP_INFO, dinfo, 16);
		break;
	case 10:
		put16(r->b + 34, 0);
		break;
	case 11:
		put16(r->b + 32, 1);
		break;
	case 12:
		raw_tlv(r, NETOOPS_TLV_PAYLOAD, "12345678", 8);
		put16(r->b + 58, 100);
		break;
	case 13:
		raw_tlv(r, NETOOPS_TLV_PAYLOAD, "12345678", 8);
		r->len += 2;
		break;
	case 14:
		raw_tlv(r, NETOOPS_TLV_CRITICAL | 0x0123, "x", 1);
		break;
	case 15:
		raw_tlv(r, NETOOPS_TLV_CRITICAL | NETOOPS_TLV_VENDOR_FIRST,
			"x", 1);
		break;
	case 16:
		raw_tlv(r, NETOOPS_TLV_DUMP_INFO, dinfo, 12);
		break;
	case 17:
		raw_tlv(r, NETOOPS_TLV_TIME, v, 16);
		break;
	case 18:
		raw_tlv(r, NETOOPS_TLV_DUMP_INFO, dinfo, 16);
		raw_tlv(r, NETOOPS_TLV_DUMP_INFO, dinfo, 16);
		break;
	case 19:
		raw_tlv(r, NETOOPS_TLV_PAYLOAD, "1234", 4);
		raw_tlv(r, NETOOPS_TLV_PAYLOAD, "5678", 4);
		break;
	case 20:
		raw_tlv(r, NETOOPS_TLV_USER, "keyvalue", 8);
		break;
	case 21:
		raw_tlv(r, NETOOPS_TLV_USER, "k y\0v", 5);
		break;
	case 22:
		raw_tlv(r, NETOOPS_TLV_USER, "key\0v\0w", 7);
		break;
	case 23:
		v[0] = 1;
		v[2] = 5;
		raw_tlv(r, NETOOPS_TLV_REGS, v, 8 + 16);
		break;
	case 24:
		put32(v + 8, 1000000000);
		raw_tlv(r, NETOOPS_TLV_TIME, v, 24);
		break;
	case 25:
		v[0] = 7;
		raw_tlv(r, NETOOPS_TLV_PAYLOAD_INFO, v, 8);
		break;
	case 26:
		put32(r->b + 40, 10);
		raw_tlv(r, NETOOPS_TLV_PAYLOAD, "12345678", 8);
		break;
	case 27:
		put32(r->b + 40, 4);
		break;
	case 28: /* a later version grew the header by 8 bytes */
		r->b[5] = 64;
		memset(r->b + 56, 0xee, 8);
		r->len = 64;
		raw_tlv(r, NETOOPS_TLV_DUMP_INFO, dinfo, 16);
		raw_tlv(r, NETOOPS_TLV_PAYLOAD, "12345678", 8);
		break;
	case 29:
		put16(r->b + 6, NETOOPS_F_META | 0x0080);
		raw_tlv(r, 0x0123, "abc", 3);
		raw_tlv(r, NETOOPS_TLV_VENDOR_LAST, "", 0);
		raw_tlv(r, NETOOPS_TLV_PAD, v, 12);
		raw_tlv(r, NETOOPS_TLV_PAYLOAD, "12345678", 8);
		break;
	case 30:
		memcpy(v, dinfo, 16);
		raw_tlv(r, NETOOPS_TLV_DUMP_INFO, v, 20);
		break;
	case 31:
		memset(v, 'r', 100);
		raw_tlv(r, NETOOPS_TLV_RELEASE, v, 100);
		raw_tlv(r, NETOOPS_TLV_HOSTNAME, "host\0junk", 9);
		break;
	case 32:
		for (k = 0; k < 40; k++) {
			char f[16];
			int n = snprintf(f, sizeof(f), "k%zu", k);

			raw_tlv(r, NETOOPS_TLV_USER, f, (size_t)n + 1);
		}
		break;
	case 33:
		v[0] = 1;
		v[2] = 100;
		for (k = 0; k < 100; k++)
			v[8 + 8 * k] = (uint8_t)k;
		raw_tlv(r, NETOOPS_TLV_REGS, v, 8 + 800);
		break;
	case 34:
		raw_tlv(r, NETOOPS_TLV_CRITICAL | NETOOPS_TLV_DUMP_INFO, dinfo,
			16);
		break;
	}
	raw_fix(r);
}

static void test_crafted(void **state)
{
	struct netoops_packet *p = malloc(sizeof(*p));
	struct raw r;
	(void)state;

	assert_non_null(p);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc;

		build_case(i, &r);
		rc = netoops_decode_packet(r.b, r.len, p);
		print_message("  %-32s -> %d %s\n", cases[i].name, rc,
			      netoops_err_str(p->err));
		assert_int_equal(p->err, cases[i].err);
		assert_int_equal(rc, cases[i].rc);
		assert_string_not_equal(netoops_err_str(p->err), "unknown");
		switch (i) {
		case 14:
			assert_int_equal(p->err_tlv, 0x8123);
			assert_int_equal(p->err_offset, 56);
			break;
		case 28:
		case 29:
			assert_int_equal(p->chunk_len, 8);
			assert_memory_equal(p->chunk, "12345678", 8);
			assert_int_equal(p->skipped_tlvs, i == 29 ? 3 : 0);
			break;
		case 30:
		case 34:
			assert_int_equal(p->meta.reason, 1);
			assert_int_equal(p->meta.oops_count, 1);
			break;
		case 31:
			assert_int_equal(strlen(p->meta.release),
					 NETOOPS_META_STR_MAX);
			assert_string_equal(p->meta.hostname, "host");
			break;
		case 32:
			assert_int_equal(p->meta.nr_user,
					 NETOOPS_META_USER_MAX);
			assert_int_equal(p->meta.user_dropped, 8);
			assert_string_equal(p->meta.user[31].key, "k31");
			break;
		case 33:
			assert_int_equal(p->meta.regs_nr, 100);
			assert_int_equal(p->meta.regs_kept,
					 NETOOPS_META_REGS_MAX);
			assert_int_equal(p->meta.regs[63], 63);
			break;
		}
	}
	assert_string_equal(netoops_err_str(NETOOPS_ERR__MAX), "unknown");
	assert_int_equal(netoops_decode_packet(NULL, 0, p), -EINVAL);
	assert_int_equal(netoops_decode_packet(r.b, r.len, NULL), -EINVAL);
	free(p);
}

/* Real datagrams: all packets of every accepted golden vector. */
static void for_each_real(void (*fn)(const uint8_t *, size_t,
				     struct netoops_packet *))
{
	struct netoops_packet *p = malloc(sizeof(*p));

	assert_non_null(p);
	for (size_t v = 0; v < tu_nr_vectors; v++) {
		struct tu_dump d;

		if (tu_vectors[v].refused)
			continue;
		assert_int_equal(tu_vectors[v].build(&d), 0);
		for (size_t i = 0; i < d.n; i++) {
			assert_int_equal(netoops_decode_packet(d.pkt[i],
							       d.len[i], p),
					 0);
			fn(d.pkt[i], d.len[i], p);
		}
		tu_dump_clear(&d);
	}
	free(p);
}

static void truncate_all(const uint8_t *pkt, size_t len,
			 struct netoops_packet *p)
{
	for (size_t n = 0; n < len; n++) {
		/* a copy of exactly n bytes, so ASan sees any overread */
		uint8_t *b = malloc(n ? n : 1);

		assert_non_null(b);
		memcpy(b, pkt, n);
		assert_true(netoops_decode_packet(b, n, p) < 0);
		assert_int_equal(p->err, n < NETOOPS_HDR_LEN_V1 ?
				 NETOOPS_ERR_SHORT : NETOOPS_ERR_LENGTH);
		free(b);
	}
}

static void test_truncation(void **state)
{
	(void)state;
	for_each_real(truncate_all);
}

static unsigned int flip_reasons[NETOOPS_ERR__MAX];
static unsigned int flips_accepted;

static void flip_all(const uint8_t *pkt, size_t len, struct netoops_packet *p)
{
	uint8_t *b = malloc(len);

	assert_non_null(b);
	for (size_t bit = 0; bit < len * 8; bit++) {
		memcpy(b, pkt, len);
		b[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		assert_true(netoops_decode_packet(b, len, p) < 0);
		assert_int_not_equal(p->err, NETOOPS_OK);
		flip_reasons[p->err]++;
	}
	free(b);
}

static void test_bit_flips(void **state)
{
	(void)state;
	memset(flip_reasons, 0, sizeof(flip_reasons));
	for_each_real(flip_all);
	/* CRC-32 catches every single-bit error the header checks let by */
	assert_true(flip_reasons[NETOOPS_ERR_CHECKSUM] > 0);
	assert_int_equal(flip_reasons[NETOOPS_OK], 0);
}

static void flip_recrc(const uint8_t *pkt, size_t len,
		       struct netoops_packet *p)
{
	uint8_t *b = malloc(len);

	assert_non_null(b);
	for (size_t bit = 0; bit < len * 8; bit++) {
		size_t byte = bit / 8;

		if (byte >= 48 && byte < 52)
			continue;	/* the checksum itself */
		memcpy(b, pkt, len);
		b[byte] ^= (uint8_t)(1u << (bit % 8));
		raw_crc(b, len);
		if (netoops_decode_packet(b, len, p) < 0) {
			assert_int_not_equal(p->err, NETOOPS_OK);
			assert_int_not_equal(p->err, NETOOPS_ERR_CHECKSUM);
			flip_reasons[p->err]++;
			continue;
		}
		flips_accepted++;
		/* whatever was accepted is consistent */
		assert_true(p->pkt_index < p->pkt_count);
		assert_true((uint64_t)p->payload_off + p->chunk_len <=
			    p->payload_total);
		if (p->chunk_len) {
			assert_true(p->chunk >= b + NETOOPS_HDR_LEN_V1);
			assert_true(p->chunk + p->chunk_len <= b + len);
		}
	}
	free(b);
}

static void test_bit_flips_recrc(void **state)
{
	static const enum netoops_err expect[] = {
		NETOOPS_ERR_MAGIC, NETOOPS_ERR_VERSION, NETOOPS_ERR_HDR_LEN,
		NETOOPS_ERR_LENGTH, NETOOPS_ERR_FLAGS, NETOOPS_ERR_INDEX,
		NETOOPS_ERR_TLV_TRUNCATED, NETOOPS_ERR_TLV_CRITICAL_UNKNOWN,
		NETOOPS_ERR_TLV_SHORT, NETOOPS_ERR_TLV_VALUE,
		NETOOPS_ERR_PAYLOAD_RANGE, NETOOPS_ERR_COMPRESSION,
	};
	(void)state;

	memset(flip_reasons, 0, sizeof(flip_reasons));
	flips_accepted = 0;
	for_each_real(flip_recrc);
	for (size_t i = 0; i < NETOOPS_ERR__MAX; i++)
		if (flip_reasons[i])
			print_message("  %-22s %u\n", netoops_err_str(i),
				      flip_reasons[i]);
	print_message("  accepted (content bits) %u\n", flips_accepted);
	/* the deeper checks all fire on some flip of a real packet */
	for (size_t i = 0; i < sizeof(expect) / sizeof(expect[0]); i++)
		assert_true(flip_reasons[expect[i]] > 0);
	/* payload and string bits are content: accepted */
	assert_true(flips_accepted > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crafted),
		cmocka_unit_test(test_truncation),
		cmocka_unit_test(test_bit_flips),
		cmocka_unit_test(test_bit_flips_recrc),
	};

	return cmocka_run_group_tests_name("corrupt", tests, NULL, NULL);
}
