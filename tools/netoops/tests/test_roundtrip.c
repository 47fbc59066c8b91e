// SPDX-License-Identifier: GPL-2.0
/*
 * Encoder -> decoder -> reassembler round trips: every TLV, payloads from
 * empty to the largest the format allows, plain and deflate-compressed,
 * datagram sizes 256, 1452, 1472 and 9000.  Also the encoder's refusals.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib_test_util.h"

static const size_t pkt_sizes[] = { 256, 1452, 1472, 9000 };

/* Decode every datagram, check the layout rules, reassemble (shuffled). */
static struct netoops_dump *check_and_reassemble(const struct tu_dump *d,
						 size_t payload_len,
						 uint64_t dump_id,
						 uint64_t seed)
{
	struct netoops_reasm_limits lim = {
		.max_pkts_per_dump = 65535,
		.max_bytes_per_dump = 64u << 20,
		.max_bytes_total = 1ull << 30,
	};
	struct netoops_packet *pkt = malloc(sizeof(*pkt));
	struct netoops_dump *done = NULL;
	struct netoops_reasm *r;
	size_t i, *order = calloc(d->n, sizeof(*order));
	uint64_t covered = 0;

	assert_non_null(pkt);
	assert_non_null(order);
	assert_int_equal(netoops_reasm_new(&lim, &r), 0);
	tu_shuffle(order, d->n, seed);
	for (i = 0; i < d->n; i++) {
		size_t k = order[i];
		int rc;

		assert_int_equal(netoops_decode_packet(d->pkt[k], d->len[k],
						       pkt), 0);
		assert_int_equal(pkt->err, NETOOPS_OK);
		assert_int_equal(pkt->pkt_index, k);
		assert_int_equal(pkt->pkt_count, d->n);
		assert_int_equal(pkt->dump_id, dump_id);
		assert_memory_equal(pkt->boot_id, tu_boot_id, 16);
		assert_int_equal(pkt->payload_total, payload_len);
		/* metadata exactly on the first and the last datagram */
		assert_int_equal(pkt->has_meta, k == 0 || k == d->n - 1);
		if (pkt->chunk_len)
			assert_ptr_equal(pkt->chunk, d->pkt[k] + d->len[k] -
					 ((pkt->chunk_len + 3) & ~3ul));
		covered += pkt->chunk_len;
		rc = netoops_reasm_add(r, "src", 3, pkt, 1000 + i, &done, NULL);
		assert_int_equal(rc, i + 1 == d->n ? NETOOPS_REASM_COMPLETE :
						     NETOOPS_REASM_ACCEPTED);
	}
	/* chunks do not overlap and cover the whole payload */
	assert_int_equal(covered, payload_len);
	assert_non_null(done);
	assert_true(done->complete);
	assert_int_equal(done->nr_gaps, 0);
	assert_int_equal(done->missing_bytes, 0);
	assert_int_equal(done->pkts_received, d->n);
	assert_int_equal(done->duplicates, 0);
	assert_int_equal(done->payload_len, payload_len);
	netoops_reasm_free(r);
	free(order);
	free(pkt);
	return done;
}

/*
 * Every metadata TLV does not fit a 256-byte datagram (the x86 registers
 * alone take 176 bytes): there, use the metadata a small-MTU sender would.
 */
static int make_meta(uint8_t *buf, size_t cap, size_t max_pkt, bool compress,
		     size_t orig_len)
{
	uint32_t comp = compress ? NETOOPS_COMPRESS_DEFLATE :
				   NETOOPS_COMPRESS_NONE;
	struct netoops_tlv_buf b;

	if (max_pkt >= 1024)
		return tu_meta_full(buf, cap, comp, (uint32_t)orig_len);
	netoops_tlv_init(&b, buf, cap);
	netoops_tlv_put_dump_info(&b, NETOOPS_REASON_OOPS, 7, 2, 1);
	netoops_tlv_put_str(&b, NETOOPS_TLV_RELEASE, "6.1.0-57-amd64");
	netoops_tlv_put_user(&b, "k", "v");
	netoops_tlv_put_payload_info(&b, comp, (uint32_t)orig_len);
	return netoops_tlv_error(&b) ? netoops_tlv_error(&b) : (int)b.len;
}

static void check_meta(const struct netoops_meta *m, size_t max_pkt,
		       bool compress, size_t orig_len)
{
	uint32_t comp = compress ? NETOOPS_COMPRESS_DEFLATE :
				   NETOOPS_COMPRESS_NONE;

	if (max_pkt >= 1024) {
		assert_int_equal(tu_meta_full_check(m, comp,
						    (uint32_t)orig_len), 0);
		return;
	}
	assert_int_equal(m->present,
			 NETOOPS_META_HAS(NETOOPS_TLV_DUMP_INFO) |
			 NETOOPS_META_HAS(NETOOPS_TLV_RELEASE) |
			 NETOOPS_META_HAS(NETOOPS_TLV_USER) |
			 NETOOPS_META_HAS(NETOOPS_TLV_PAYLOAD_INFO));
	assert_int_equal(m->reason, NETOOPS_REASON_OOPS);
	assert_int_equal(m->oops_count, 7);
	assert_int_equal(m->part, 2);
	assert_int_equal(m->cpu, 1);
	assert_string_equal(m->release, "6.1.0-57-amd64");
	assert_int_equal(m->nr_user, 1);
	assert_string_equal(m->user[0].key, "k");
	assert_string_equal(m->user[0].value, "v");
	assert_int_equal(m->compression, comp);
	assert_int_equal(m->orig_len, orig_len);
}

static void roundtrip(size_t payload_len, size_t max_pkt, bool compress,
		      uint64_t seed)
{
	uint8_t meta[1024], *text = malloc(payload_len + 1);
	uint8_t *z = malloc(payload_len + 1024), *out;
	const uint8_t *payload = text;
	size_t plen = payload_len, olen;
	struct netoops_dump *done;
	struct tu_dump d;
	int ml;

	assert_non_null(text);
	assert_non_null(z);
	tu_text(text, payload_len, seed);
	if (compress) {
		plen = tu_deflate(text, payload_len, z, payload_len + 1024);
		assert_true(plen > 0);
		payload = z;
	}
	ml = make_meta(meta, sizeof(meta), max_pkt, compress, payload_len);
	assert_true(ml > 0);
	assert_int_equal(tu_encode(tu_boot_id, seed, meta, (size_t)ml,
				   payload, plen, max_pkt, &d), 0);
	for (size_t i = 0; i < d.n; i++)
		assert_true(d.len[i] <= max_pkt);

	done = check_and_reassemble(&d, plen, seed, seed * 7 + 1);
	assert_true(done->has_meta);
	check_meta(&done->meta, max_pkt, compress, payload_len);
	if (plen)
		assert_memory_equal(done->payload, payload, plen);

	out = malloc(payload_len + 1);
	assert_non_null(out);
	assert_int_equal(netoops_dump_text(done, out, payload_len, &olen), 0);
	assert_int_equal(olen, payload_len);
	if (payload_len)
		assert_memory_equal(out, text, payload_len);
	free(out);
	netoops_dump_free(done);
	tu_dump_clear(&d);
	free(text);
	free(z);
}

static void test_sizes_plain(void **state)
{
	static const size_t lens[] = { 0, 1, 3, 4, 5, 100, 1000, 1411, 1412,
				       1413, 4096, 10240, 65536, 300000 };
	(void)state;

	for (size_t p = 0; p < 4; p++)
		for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); l++)
			roundtrip(lens[l], pkt_sizes[p], false, 10 * l + p);
}

static void test_sizes_deflate(void **state)
{
	static const size_t lens[] = { 0, 1, 100, 10240, 65536, 500000 };
	(void)state;

	for (size_t p = 0; p < 4; p++)
		for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); l++)
			roundtrip(lens[l], pkt_sizes[p], true, 100 + l);
}

/*
 * Packet count boundaries: payload sizes around each packet boundary, and
 * the largest payload the 16-bit pkt_count allows (65535 datagrams).
 */
static void test_count_boundaries(void **state)
{
	uint8_t meta[1024];
	struct netoops_enc e;
	(void)state;

	for (size_t p = 0; p < 4; p++) {
		int ml = make_meta(meta, sizeof(meta), pkt_sizes[p], false, 0);
		size_t mp = pkt_sizes[p], room = mp & ~3ul;
		size_t meta_room = room - 56 - (size_t)ml - 4;
		size_t plain = room - 56 - 4;
		size_t largest;
		static const uint8_t dummy[1];

		assert_true(ml > 0);
		if (room < 56 + (size_t)ml + 8)
			meta_room = 0;
		largest = 2 * meta_room + 65533 * plain;
		/* the encoder never reads the payload before _next() */
		assert_int_equal(netoops_enc_init(&e, tu_boot_id, 1, meta, ml,
						  dummy, meta_room, mp), 0);
		assert_int_equal(e.pkt_count, 1);
		assert_int_equal(netoops_enc_init(&e, tu_boot_id, 1, meta, ml,
						  dummy, meta_room + 1, mp), 0);
		assert_int_equal(e.pkt_count, 2);
		assert_int_equal(netoops_enc_init(&e, tu_boot_id, 1, meta, ml,
						  dummy, 2 * meta_room, mp), 0);
		assert_int_equal(e.pkt_count, 2);
		assert_int_equal(netoops_enc_init(&e, tu_boot_id, 1, meta, ml,
						  dummy, 2 * meta_room + 1,
						  mp), 0);
		assert_int_equal(e.pkt_count, 3);
		assert_int_equal(netoops_enc_init(&e, tu_boot_id, 1, meta, ml,
						  dummy, largest, mp), 0);
		assert_int_equal(e.pkt_count, 65535);
		assert_int_equal(netoops_enc_init(&e, tu_boot_id, 1, meta, ml,
						  dummy, largest + 1, mp),
				 -EMSGSIZE);
	}
}

/* The largest dump with 256-byte datagrams, fully round-tripped. */
static void test_largest_dump(void **state)
{
	uint8_t meta[64];
	struct netoops_tlv_buf b;
	struct netoops_dump *done;
	struct tu_dump d;
	size_t largest = 2 * (256 - 56 - 20 - 4) + 65533 * (256 - 56 - 4);
	uint8_t *payload = malloc(largest);
	(void)state;

	assert_non_null(payload);
	netoops_tlv_init(&b, meta, sizeof(meta));
	assert_int_equal(netoops_tlv_put_dump_info(&b, 1, 1, 1, 0), 0);
	assert_int_equal(b.len, 20);
	tu_text(payload, largest, 5);
	assert_int_equal(tu_encode(tu_boot_id, 77, meta, b.len, payload,
				   largest, 256, &d), 0);
	assert_int_equal(d.n, 65535);
	done = check_and_reassemble(&d, largest, 77, 3);
	assert_memory_equal(done->payload, payload, largest);
	netoops_dump_free(done);
	tu_dump_clear(&d);
	free(payload);
}

static void test_tlv_writer(void **state)
{
	uint8_t buf[64];
	struct netoops_tlv_buf b;
	(void)state;

	memset(buf, 0xaa, sizeof(buf));
	netoops_tlv_init(&b, buf, sizeof(buf));
	assert_int_equal(netoops_tlv_put(&b, 0x7000, "abcde", 5), 0);
	assert_int_equal(b.len, 12);
	/* header, value, zero padding */
	assert_memory_equal(buf, "\x00\x70\x05\x00" "abcde\0\0\0", 12);
	assert_int_equal(buf[12], 0xaa);

	/* too big: refused, nothing written, error sticky */
	assert_int_equal(netoops_tlv_put(&b, 1, buf, 60), -EMSGSIZE);
	assert_int_equal(b.len, 12);
	assert_int_equal(buf[12], 0xaa);
	assert_int_equal(netoops_tlv_put_taint(&b, 1), -EMSGSIZE);
	assert_int_equal(netoops_tlv_error(&b), -EMSGSIZE);
	assert_int_equal(b.len, 12);

	/* exactly full is fine */
	netoops_tlv_init(&b, buf, 12);
	assert_int_equal(netoops_tlv_put_taint(&b, 0x0102030405060708ull), 0);
	assert_int_equal(b.len, 12);
	assert_memory_equal(buf + 4, "\x08\x07\x06\x05\x04\x03\x02\x01", 8);

	/* bad user fields */
	static const char *const bad_keys[] = { "", "a b", "k=v", "ключ",
		"0123456789012345678901234567890123456789012345678901234567890123" };
	for (size_t i = 0; i < 5; i++) {
		netoops_tlv_init(&b, buf, sizeof(buf));
		assert_int_equal(netoops_tlv_put_user(&b, bad_keys[i], "v"),
				 -EINVAL);
		assert_int_equal(b.len, 0);
	}
	char longv[NETOOPS_USER_VALUE_MAX + 2];
	uint8_t big[512];

	memset(longv, 'x', sizeof(longv) - 1);
	longv[sizeof(longv) - 1] = '\0';
	netoops_tlv_init(&b, big, sizeof(big));
	assert_int_equal(netoops_tlv_put_user(&b, "k", longv), -EINVAL);
	longv[NETOOPS_USER_VALUE_MAX] = '\0';
	netoops_tlv_init(&b, big, sizeof(big));
	assert_int_equal(netoops_tlv_put_user(&b, "k-1.x_Y", longv), 0);
	assert_int_equal(b.len, NETOOPS_TLV_SPACE(8 + NETOOPS_USER_VALUE_MAX));

	/* a NULL string or value pointer is an error, not a crash */
	netoops_tlv_init(&b, big, sizeof(big));
	assert_int_equal(netoops_tlv_put_str(&b, NETOOPS_TLV_RELEASE, NULL),
			 -EINVAL);
	netoops_tlv_init(&b, big, sizeof(big));
	assert_int_equal(netoops_tlv_put(&b, 1, NULL, 3), -EINVAL);
	assert_int_equal(netoops_tlv_put_regs(&b, 1, 1, NULL, 2), -EINVAL);
	/* value longer than a TLV can say */
	netoops_tlv_init(&b, big, sizeof(big));
	assert_int_equal(netoops_tlv_put(&b, 1, big, 65536), -EINVAL);
}

static void test_enc_refusals(void **state)
{
	uint8_t meta[2048], pkt[300];
	struct netoops_tlv_buf b;
	struct netoops_enc e;
	(void)state;

	memset(meta, 0, sizeof(meta));
	assert_int_equal(netoops_enc_init(&e, tu_boot_id, 1, NULL, 0, "x", 1,
					  255), -EINVAL);
	assert_int_equal(netoops_enc_init(&e, tu_boot_id, 1, NULL, 0, "x", 1,
					  65508), -EINVAL);
	assert_int_equal(netoops_enc_init(&e, tu_boot_id, 1, meta, 6, "x", 1,
					  1472), -EINVAL);
	assert_int_equal(netoops_enc_init(&e, tu_boot_id, 1, NULL, 0, NULL, 1,
					  1472), -EINVAL);
	/* metadata that cannot fit one datagram */
	netoops_tlv_init(&b, meta, sizeof(meta));
	assert_int_equal(netoops_tlv_put(&b, 0x7000, meta + 1024, 200), 0);
	assert_int_equal(netoops_enc_init(&e, tu_boot_id, 1, meta, b.len, "x",
					  1, 256), -EMSGSIZE);
	/* exactly filling the header room leaves no payload room */
	netoops_tlv_init(&b, meta, sizeof(meta));
	assert_int_equal(netoops_tlv_put(&b, 0x7000, meta + 1024, 196), 0);
	assert_int_equal(b.len, 200);
	assert_int_equal(netoops_enc_init(&e, tu_boot_id, 1, meta, b.len, "xy",
					  2, 256), 0);
	assert_int_equal(e.pkt_count, 3);
	/* output buffer too small: -ENOSPC and nothing consumed */
	assert_int_equal(netoops_enc_next(&e, pkt, 255), -ENOSPC);
	assert_int_equal(netoops_enc_next(&e, pkt, sizeof(pkt)), 256);
	assert_int_equal(netoops_enc_next(&e, pkt, sizeof(pkt)), 56 + 4 + 4);
	assert_int_equal(netoops_enc_next(&e, pkt, sizeof(pkt)), 256);
	assert_int_equal(netoops_enc_next(&e, pkt, sizeof(pkt)), 0);
	/* rewind produces the same datagrams again */
	netoops_enc_rewind(&e);
	assert_int_equal(netoops_enc_next(&e, pkt, sizeof(pkt)), 256);
}

/* Encoding is deterministic and the checksum is zlib's CRC-32. */
static void test_crc_and_determinism(void **state)
{
	struct tu_dump a, b;
	uint8_t meta[1024];
	int ml = tu_meta_full(meta, sizeof(meta), 0, 0);
	(void)state;

	assert_int_equal(netoops_crc32("123456789", 9), 0xcbf43926);
	assert_int_equal(tu_encode(tu_boot_id, 9, meta, ml, meta, 900, 1472,
				   &a), 0);
	assert_int_equal(tu_encode(tu_boot_id, 9, meta, ml, meta, 900, 1472,
				   &b), 0);
	assert_int_equal(a.n, b.n);
	for (size_t i = 0; i < a.n; i++) {
		assert_int_equal(a.len[i], b.len[i]);
		assert_memory_equal(a.pkt[i], b.pkt[i], a.len[i]);
	}
	tu_dump_clear(&a);
	tu_dump_clear(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tlv_writer),
		cmocka_unit_test(test_enc_refusals),
		cmocka_unit_test(test_crc_and_determinism),
		cmocka_unit_test(test_count_boundaries),
		cmocka_unit_test(test_sizes_plain),
		cmocka_unit_test(test_sizes_deflate),
		cmocka_unit_test(test_largest_dump),
	};

	return cmocka_run_group_tests_name("roundtrip", tests, NULL, NULL);
}
