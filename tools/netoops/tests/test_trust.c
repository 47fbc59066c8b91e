// SPDX-License-Identifier: GPL-2.0
/*
 * Authentication and loss recovery: MAC round trip; forged, altered (every
 * byte), replayed and unsigned datagrams refused with the right reason when
 * a key is configured, a sender's own repeated copies counted as
 * duplicates; FEC parity identical to ISA-L's encoder, every
 * erasure pattern of up to m datagrams per group rebuilt exactly, m + 1
 * giving a partial dump with the exact gaps.
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
#include <isa-l/erasure_code.h>

#include "lib_test_util.h"

static const uint8_t other_key[32] = "an attacker's guess at the key!";

/* Key ring of the tests: only tu_key_id is known. */
static int lookup(void *ctx, uint32_t key_id, const struct netoops_packet *p,
		  struct netoops_key *ret)
{
	(void)ctx;
	(void)p;
	if (key_id != tu_key_id)
		return -ENOKEY;
	ret->key = tu_key;
	ret->key_len = sizeof(tu_key);
	return 0;
}

static uint8_t payload[40000];
static uint8_t zpay[48000];

/* A deflated log of about 128 KiB... kept short for the exhaustive tests. */
static size_t make_payload(size_t text_len, uint64_t seed)
{
	static uint8_t text[128 << 10];
	size_t zl;

	tu_text(text, text_len, seed);
	zl = tu_deflate(text, text_len, zpay, sizeof(zpay));
	assert_true(zl > 0);
	return zl;
}

static void encode(struct tu_dump *d, const uint8_t *key, uint32_t key_id,
		   unsigned int k, unsigned int m, size_t len, size_t max_pkt,
		   uint64_t dump_id)
{
	static struct netoops_key nk;
	struct netoops_enc_opts o = {
		.max_pkt = max_pkt, .fec_k = k, .fec_m = m,
	};
	uint8_t meta[128];
	struct netoops_tlv_buf b;

	if (key) {
		nk.key = key;
		nk.key_len = 32;
		o.mac = netoops_hmac;
		o.mac_ctx = &nk;
		o.key_id = key_id;
	}
	netoops_tlv_init(&b, meta, sizeof(meta));
	netoops_tlv_put_dump_info(&b, NETOOPS_REASON_PANIC, 1, 1, 0);
	netoops_tlv_put_payload_info(&b, NETOOPS_COMPRESS_DEFLATE, 0);
	assert_int_equal(netoops_tlv_error(&b), 0);
	assert_int_equal(tu_encode_opts(tu_boot_id, dump_id, meta, b.len,
					zpay, len, &o, d), 0);
}

static void fix_crc(uint8_t *p, size_t len)
{
	uint32_t c;

	memset(p + 48, 0, 4);
	c = netoops_crc32(p, len);
	p[48] = (uint8_t)c;
	p[49] = (uint8_t)(c >> 8);
	p[50] = (uint8_t)(c >> 16);
	p[51] = (uint8_t)(c >> 24);
}

/* Decode + MAC check (key required); returns the reason. */
static enum netoops_err check(const uint8_t *buf, size_t len,
			      struct netoops_packet *p, bool required)
{
	enum netoops_err why;

	if (netoops_decode_packet(buf, len, p))
		return p->err;
	netoops_auth_check(p, required, lookup, NULL, &why);
	return why;
}

static void test_mac_roundtrip(void **state)
{
	struct netoops_packet *p = malloc(sizeof(*p));
	struct netoops_reasm *r;
	struct netoops_dump *done = NULL;
	struct tu_dump d;
	size_t zl = make_payload(20000, 1), i;
	int rc = -1;
	(void)state;

	encode(&d, tu_key, tu_key_id, 0, 0, zl, NETOOPS_PKT_DEFAULT, 1);
	assert_true(d.n > 2);
	assert_int_equal(netoops_reasm_new(NULL, &r), 0);
	for (i = 0; i < d.n; i++) {
		assert_int_equal(check(d.pkt[i], d.len[i], p, true),
				 NETOOPS_OK);
		assert_true(p->has_mac);
		assert_true(p->flags & NETOOPS_F_AUTH);
		assert_int_equal(p->key_id, tu_key_id);
		/* the MAC TLV is the last one */
		assert_int_equal(p->mac_off + 24, d.len[i]);
		assert_true(d.len[i] <= NETOOPS_PKT_DEFAULT);
		rc = netoops_reasm_add(r, "s", 1, p, i, &done, NULL);
	}
	assert_int_equal(rc, NETOOPS_REASM_COMPLETE);
	assert_non_null(done);
	assert_true(done->complete);
	assert_int_equal(done->payload_len, zl);
	assert_memory_equal(done->payload, zpay, zl);
	netoops_dump_free(done);
	netoops_reasm_free(r);
	tu_dump_clear(&d);
	free(p);
}

static void test_forged_unsigned_unknown(void **state)
{
	struct netoops_packet *p = malloc(sizeof(*p));
	struct tu_dump d;
	size_t zl = make_payload(3000, 2);
	(void)state;

	/* signed with a key the collector does not have, same key id */
	encode(&d, other_key, tu_key_id, 0, 0, zl, NETOOPS_PKT_DEFAULT, 2);
	assert_int_equal(check(d.pkt[0], d.len[0], p, true),
			 NETOOPS_ERR_BAD_MAC);
	assert_int_equal(netoops_auth_check(p, false, lookup, NULL, NULL),
			 -EACCES);
	tu_dump_clear(&d);
	/* a key id nobody configured */
	encode(&d, tu_key, 99, 0, 0, zl, NETOOPS_PKT_DEFAULT, 3);
	assert_int_equal(check(d.pkt[0], d.len[0], p, true),
			 NETOOPS_ERR_UNKNOWN_KEY);
	tu_dump_clear(&d);
	/* unsigned: refused when a key is required, fine otherwise */
	encode(&d, NULL, 0, 0, 0, zl, NETOOPS_PKT_DEFAULT, 4);
	assert_int_equal(check(d.pkt[0], d.len[0], p, true),
			 NETOOPS_ERR_UNSIGNED);
	assert_int_equal(netoops_auth_check(p, true, lookup, NULL, NULL),
			 -EACCES);
	assert_int_equal(check(d.pkt[0], d.len[0], p, false), NETOOPS_OK);
	tu_dump_clear(&d);
	free(p);
}

/*
 * Flip each bit of each byte of a signed datagram (checksum recomputed, so
 * only the MAC can notice): nothing may be accepted, and the reason must
 * fit the byte.
 */
static void test_mac_every_byte(void **state)
{
	struct netoops_packet *p = malloc(sizeof(*p));
	unsigned long by[NETOOPS_ERR__MAX] = { 0 };
	struct tu_dump d;
	size_t zl = make_payload(6000, 3), i, n, tried = 0;
	int bitn, e;
	uint8_t *c;
	(void)state;

	encode(&d, tu_key, tu_key_id, 0, 0, zl, 512, 5);
	assert_true(d.n >= 3);
	for (n = 0; n < 3; n++) {	/* first, a middle one, the third */
		c = malloc(d.len[n]);
		assert_non_null(c);
		for (i = 0; i < d.len[n]; i++) {
			if (i >= 48 && i < 52)
				continue;	/* the checksum itself */
			for (bitn = 0; bitn < 8; bitn++) {
				memcpy(c, d.pkt[n], d.len[n]);
				c[i] ^= (uint8_t)(1u << bitn);
				fix_crc(c, d.len[n]);
				e = check(c, d.len[n], p, true);
				tried++;
				if (e == NETOOPS_OK)
					fail_msg("pkt %zu byte %zu bit %d "
						 "accepted", n, i, bitn);
				by[e]++;
				if (i >= d.len[n] - 16)
					assert_int_equal(e,
							 NETOOPS_ERR_BAD_MAC);
				else if (i >= d.len[n] - 20)
					assert_int_equal(e,
						NETOOPS_ERR_UNKNOWN_KEY);
			}
		}
		free(c);
	}
	for (e = 1; e < NETOOPS_ERR__MAX; e++)
		if (by[e])
			print_message("  %-20s %lu\n", netoops_err_str(e),
				      by[e]);
	print_message("  %zu altered datagrams, none accepted\n", tried);
	assert_true(by[NETOOPS_ERR_BAD_MAC] > tried / 2);
	tu_dump_clear(&d);
	free(p);
}

/*
 * Item 11 of the collector issue: the kernel's repeat=N sends every
 * datagram N times (N <= 16).  Those copies are duplicates, with a key or
 * without; only a copy beyond what any sender repeats is a replay, and a
 * copy that differs from what was received is a conflict.
 */
static void test_replay(void **state)
{
	struct netoops_packet *p = malloc(sizeof(*p));
	struct netoops_reasm_limits lim = { .timeout_ms = 1000 };
	struct netoops_reasm_stats st;
	struct netoops_reasm *r;
	struct netoops_dump *done = NULL;
	enum netoops_err why;
	struct tu_dump d;
	size_t zl = make_payload(8000, 4), i, copy;
	int rc = -1;
	(void)state;

	encode(&d, tu_key, tu_key_id, 0, 0, zl, NETOOPS_PKT_DEFAULT, 6);
	assert_int_equal(netoops_reasm_new(&lim, &r), 0);
	for (i = 0; i < d.n; i++) {
		assert_int_equal(check(d.pkt[i], d.len[i], p, true),
				 NETOOPS_OK);
		rc = netoops_reasm_add(r, "s", 1, p, 10, &done, NULL);
	}
	assert_int_equal(rc, NETOOPS_REASM_COMPLETE);
	netoops_dump_free(done);
	/* the sender's repeats: copies 2 to 16 of every datagram */
	for (copy = 2; copy <= NETOOPS_REASM_MAX_COPIES; copy++)
		for (i = 0; i < d.n; i++) {
			assert_int_equal(check(d.pkt[i], d.len[i], p, true),
					 NETOOPS_OK);
			rc = netoops_reasm_add(r, "s", 1, p, 20 + copy, &done,
					       &why);
			assert_int_equal(rc, NETOOPS_REASM_DUPLICATE);
			assert_int_equal(why, NETOOPS_OK);
			assert_null(done);
		}
	netoops_reasm_get_stats(r, &st);
	assert_int_equal(st.replays, 0);
	assert_int_equal(st.duplicates,
			 (NETOOPS_REASM_MAX_COPIES - 1) * d.n);
	/* one copy more than any sender repeats: replays */
	for (i = 0; i < d.n; i++) {
		assert_int_equal(check(d.pkt[i], d.len[i], p, true),
				 NETOOPS_OK);
		rc = netoops_reasm_add(r, "s", 1, p, 500, &done, &why);
		assert_int_equal(rc, NETOOPS_REASM_DUPLICATE);
		assert_int_equal(why, NETOOPS_ERR_REPLAY);
		assert_null(done);
	}
	/* a datagram that is not the one received: a conflict */
	assert_int_equal(check(d.pkt[0], d.len[0], p, true), NETOOPS_OK);
	p->checksum ^= 1;
	assert_int_equal(netoops_reasm_add(r, "s", 1, p, 500, &done, &why),
			 -EEXIST);
	assert_int_equal(why, NETOOPS_ERR_CONFLICT);
	netoops_reasm_get_stats(r, &st);
	assert_int_equal(st.replays, d.n);
	assert_int_equal(st.conflicts, 1);
	assert_int_equal(st.completed, 1);
	assert_int_equal(st.open_dumps, 0);
	/*
	 * Documented limit: once the reassembler forgot the dump (timeout_ms
	 * after completion), a replay completes it again; the store refuses
	 * the existing (boot_id, dump_id).
	 */
	assert_int_equal(netoops_reasm_expire(r, 10 + 1000, &done), 0);
	for (i = 0; i < d.n; i++) {
		assert_int_equal(check(d.pkt[i], d.len[i], p, true),
				 NETOOPS_OK);
		rc = netoops_reasm_add(r, "s", 1, p, 2000, &done, &why);
	}
	assert_int_equal(rc, NETOOPS_REASM_COMPLETE);
	netoops_dump_free(done);
	netoops_reasm_free(r);
	tu_dump_clear(&d);
	free(p);
}

/* The encoder's parity equals ISA-L's ec_encode_data over the group. */
static void test_parity_matches_isal(void **state)
{
	unsigned char gen[255 * 32], tbls[32 * 32 * 16];
	unsigned char *src[32], *par[16];
	struct netoops_packet *p = malloc(sizeof(*p));
	struct tu_dump d;
	size_t zl = make_payload(60000, 5), i, at = 0, g = 0;
	unsigned int k, m, j;
	(void)state;

	encode(&d, tu_key, tu_key_id, 8, 3, zl, NETOOPS_PKT_DEFAULT, 7);
	while (at < d.n) {
		/* data of the group, then its parity */
		for (j = 0; at + j < d.n; j++) {
			assert_int_equal(netoops_decode_packet(d.pkt[at + j],
						d.len[at + j], p), 0);
			if (p->is_parity)
				break;
		}
		k = j;
		m = p->par_m;
		assert_int_equal(p->par_k, k);
		assert_int_equal(m, (k * 3 + 7) / 8);
		gf_gen_cauchy1_matrix(gen, (int)(k + m), (int)k);
		ec_init_tables((int)k, (int)m, gen + k * k, tbls);
		for (j = 0; j < k; j++) {
			src[j] = calloc(1, p->par_len);
			memcpy(src[j], d.pkt[at + j], d.len[at + j]);
		}
		for (j = 0; j < m; j++)
			par[j] = calloc(1, p->par_len);
		ec_encode_data(p->par_len, (int)k, (int)m, tbls, src, par);
		for (j = 0; j < m; j++) {
			assert_int_equal(netoops_decode_packet(d.pkt[at + k + j],
						d.len[at + k + j], p), 0);
			assert_true(p->is_parity);
			assert_int_equal(p->par_row, j);
			assert_int_equal(p->par_first, at - g * 3);
			assert_memory_equal(p->par_data, par[j], p->par_len);
			assert_int_equal(check(d.pkt[at + k + j],
					       d.len[at + k + j], p, true),
					 NETOOPS_OK);
			assert_true(d.len[at + k + j] <= NETOOPS_PKT_DEFAULT);
		}
		for (j = 0; j < k; j++)
			free(src[j]);
		for (j = 0; j < m; j++)
			free(par[j]);
		at += k + m;
		g++;
	}
	assert_true(g >= 2);
	for (i = 0; i < d.n; i++)
		assert_true(d.len[i] <= NETOOPS_PKT_DEFAULT);
	tu_dump_clear(&d);
	free(p);
}

/* Feed datagrams of @d except those with lost[i]; returns the dump. */
static struct netoops_dump *deliver(struct tu_dump *d, const bool *lost,
				    bool with_fec, struct netoops_reasm_stats *st)
{
	struct netoops_packet *p = malloc(sizeof(*p));
	struct netoops_reasm *r;
	struct netoops_dump *done = NULL, *got = NULL;
	size_t i;
	int rc;

	assert_int_equal(netoops_reasm_new(NULL, &r), 0);
	if (with_fec)
		assert_int_equal(netoops_reasm_enable_fec(r), 0);
	for (i = 0; i < d->n; i++) {
		if (lost[i])
			continue;
		assert_int_equal(netoops_decode_packet(d->pkt[i], d->len[i], p),
				 0);
		rc = netoops_reasm_add(r, "s", 1, p, 1, &done, NULL);
		assert_true(rc >= 0);
		if (done) {
			assert_null(got);
			got = done;
		}
	}
	if (!got)
		assert_int_equal(netoops_reasm_flush(r, &got), 1);
	netoops_reasm_get_stats(r, st);
	netoops_reasm_free(r);
	free(p);
	return got;
}

/* Payload range of each data datagram (index -> [off, off + len)). */
static void ranges(struct tu_dump *d, uint32_t *off, uint32_t *len,
		   int *data_of)
{
	struct netoops_packet *p = malloc(sizeof(*p));
	size_t i;

	for (i = 0; i < d->n; i++) {
		assert_int_equal(netoops_decode_packet(d->pkt[i], d->len[i], p),
				 0);
		data_of[i] = p->is_parity ? -1 : p->pkt_index;
		if (!p->is_parity) {
			off[p->pkt_index] = p->payload_off;
			len[p->pkt_index] = (uint32_t)p->chunk_len;
		}
	}
	free(p);
}

/*
 * Dump of 10 data datagrams, k = 4, m = 2: groups (4+2), (4+2), (2+1).
 * Every pattern of up to m losses in every group: complete and exact.
 * Every pattern of m + 1 losses in group 0: partial, gaps exactly the
 * payload of the lost data datagrams.
 */
static void test_fec_patterns(void **state)
{
	uint32_t off[64], len[64];
	int data_of[64];
	struct netoops_reasm_stats st;
	struct tu_dump d;
	size_t zl, n, i, gs, ge, patterns = 0, partials = 0;
	bool lost[64];
	unsigned int mask, bits, g;
	(void)state;

	/* 10 data datagrams of 512 bytes at most (a small MTU for speed) */
	for (zl = 3000; ; zl += 100) {
		struct netoops_enc e;
		struct netoops_enc_opts o = { .max_pkt = 512 };
		uint8_t scratch[NETOOPS_ENC_FEC_SCRATCH(2, 512)];

		o.fec_k = 4;
		o.fec_m = 2;
		o.scratch = scratch;
		o.scratch_len = sizeof(scratch);
		memset(zpay, 0xa5, zl);
		for (i = 0; i < zl; i++)
			zpay[i] = (uint8_t)(i * 131 + (i >> 8));
		assert_int_equal(netoops_enc_init_opts(&e, tu_boot_id, 8,
				 NULL, 0, zpay, zl, &o), 0);
		if (e.pkt_count == 10)
			break;
		assert_true(e.pkt_count < 10);
	}
	encode(&d, NULL, 0, 4, 2, zl, 512, 8);
	n = d.n;
	assert_int_equal(n, 10 + 2 + 2 + 1);
	ranges(&d, off, len, data_of);

	for (g = 0, gs = 0; gs < n; g++, gs = ge) {
		unsigned int gk = g < 2 ? 4 : 2, gm = g < 2 ? 2 : 1;

		ge = gs + gk + gm;
		for (mask = 0; mask < (1u << (gk + gm)); mask++) {
			struct netoops_dump *dump;
			unsigned int lost_data = 0;

			bits = (unsigned int)__builtin_popcount(mask);
			if (bits > gm + (g == 0))
				continue;
			memset(lost, 0, sizeof(lost));
			for (i = 0; i < gk + gm; i++)
				if (mask & (1u << i)) {
					lost[gs + i] = true;
					lost_data += i < gk;
				}
			dump = deliver(&d, lost, true, &st);
			patterns++;
			if (bits <= gm) {
				assert_true(dump->complete);
				assert_int_equal(dump->nr_gaps, 0);
				assert_int_equal(dump->pkts_rebuilt, lost_data);
				assert_int_equal(st.fec_rebuilt, lost_data);
				assert_int_equal(st.fec_failed, 0);
				assert_memory_equal(dump->payload, zpay, zl);
			} else {
				/* m + 1 lost: exactly the lost data missing */
				size_t missing = 0, gi = 0;

				partials++;
				assert_int_equal(dump->complete,
						 lost_data == 0);
				assert_int_equal(dump->pkts_rebuilt, 0);
				for (i = gs; i < gs + gk; i++) {
					if (!lost[i])
						continue;
					missing += len[data_of[i]];
					/* lost datagrams of group 0 are
					 * consecutive ranges or not: check
					 * each one lies inside a gap
					 */
					for (gi = 0; gi < dump->nr_gaps; gi++)
						if (dump->gaps[gi].off <=
						    off[data_of[i]] &&
						    off[data_of[i]] +
						    len[data_of[i]] <=
						    dump->gaps[gi].off +
						    dump->gaps[gi].len)
							break;
					assert_true(gi < dump->nr_gaps);
				}
				assert_int_equal(dump->missing_bytes, missing);
				for (i = 0; i < zl; i++) {
					bool in_gap = false;

					for (gi = 0; gi < dump->nr_gaps; gi++)
						in_gap |= i >= dump->gaps[gi].off &&
							  i < dump->gaps[gi].off +
							  dump->gaps[gi].len;
					if (!in_gap)
						assert_int_equal(
							dump->payload[i],
							zpay[i]);
				}
			}
			netoops_dump_free(dump);
		}
	}
	print_message("  %zu loss patterns, %zu of them m + 1 (partial)\n",
		      patterns, partials);
	assert_int_equal(partials, 20);	/* C(6, 3) */

	/* without FEC on the receiver, parity is ignored: loss stays loss */
	memset(lost, 0, sizeof(lost));
	lost[1] = true;
	{
		struct netoops_dump *dump = deliver(&d, lost, false, &st);

		assert_false(dump->complete);
		assert_int_equal(st.parity_ignored, 5);
		netoops_dump_free(dump);
	}
	tu_dump_clear(&d);
}

/* Rebuilt datagrams of an authenticated dump carry a valid MAC. */
static int verify_mac(void *ctx, struct netoops_packet *p)
{
	int *calls = ctx;

	(*calls)++;
	return netoops_auth_verify(p, true, lookup, NULL, NULL);
}

static void test_fec_auth_random_loss(void **state)
{
	struct netoops_packet *p = malloc(sizeof(*p));
	struct netoops_reasm_stats st;
	struct netoops_reasm *r;
	struct netoops_dump *done = NULL;
	struct tu_dump d;
	size_t zl = make_payload(128 << 10, 9), i, order[512];
	uint64_t rng = 99;
	int calls = 0, rc, lost = 0;
	(void)state;

	encode(&d, tu_key, tu_key_id, 32, 12, zl, NETOOPS_PKT_DEFAULT, 9);
	assert_true(d.n < 512);
	assert_int_equal(netoops_reasm_new(NULL, &r), 0);
	assert_int_equal(netoops_reasm_enable_fec(r), 0);
	netoops_reasm_set_verify(r, verify_mac, &calls);
	tu_shuffle(order, d.n, 5);
	for (i = 0; i < d.n && !done; i++) {
		uint8_t *b = d.pkt[order[i]];

		if (tu_rand(&rng) % 10 == 0) {	/* 10 % loss */
			lost++;
			continue;
		}
		assert_int_equal(check(b, d.len[order[i]], p, true),
				 NETOOPS_OK);
		rc = netoops_reasm_add(r, "s", 1, p, 1, &done, NULL);
		assert_true(rc >= 0);
	}
	assert_non_null(done);
	assert_true(done->complete);
	assert_memory_equal(done->payload, zpay, zl);
	netoops_reasm_get_stats(r, &st);
	print_message("  %zu datagrams, %d lost, %u rebuilt, verify %d\n",
		      d.n, lost, done->pkts_rebuilt, calls);
	assert_int_equal(st.fec_failed, 0);
	assert_int_equal((uint64_t)calls, st.fec_rebuilt);
	assert_int_equal(done->pkts_rebuilt, st.fec_rebuilt);
	/* check() does not record verification: not authenticated */
	assert_false(done->authenticated);
	netoops_dump_free(done);
	netoops_reasm_free(r);
	tu_dump_clear(&d);
	free(p);
}

/* Forged parity (valid CRC, garbage coded bytes) never yields bad data. */
static void test_fec_forged_parity(void **state)
{
	struct netoops_reasm_stats st;
	struct tu_dump d;
	bool lost[64] = { false };
	size_t zl = 3000, i;
	struct netoops_dump *dump;
	(void)state;

	for (i = 0; i < zl; i++)
		zpay[i] = (uint8_t)(i * 7);
	encode(&d, NULL, 0, 4, 2, zl, 512, 10);
	assert_true(d.n > 6);
	/* corrupt the coded bytes of parity row 0 of group 0 */
	d.pkt[4][100] ^= 0x5a;
	fix_crc(d.pkt[4], d.len[4]);
	lost[0] = true;
	lost[5] = true;	/* leaves data 1..3 + forged row 0: 4 of 6 */
	dump = deliver(&d, lost, true, &st);
	assert_false(dump->complete);
	assert_int_equal(st.fec_rebuilt, 0);
	assert_int_equal(st.fec_failed, 1);
	netoops_dump_free(dump);
	tu_dump_clear(&d);
}

/* ---- whether a dump is authenticated (struct netoops_dump) ---------- */

#define OTHER_KEY_ID	9

/* Key ring with two keys: tu_key_id and OTHER_KEY_ID. */
static int lookup2(void *ctx, uint32_t key_id, const struct netoops_packet *p,
		   struct netoops_key *ret)
{
	(void)ctx;
	(void)p;
	if (key_id == OTHER_KEY_ID) {
		ret->key = other_key;
		ret->key_len = sizeof(other_key);
		return 0;
	}
	return lookup(NULL, key_id, p, ret);
}

/* Verify callback: the rebuilt datagram's MAC, with the key ring. */
static int verify_key(void *ctx, struct netoops_packet *p)
{
	(void)ctx;
	return netoops_auth_verify(p, true, lookup, NULL, NULL);
}

/* A verify callback that accepts a rebuilt datagram without a key. */
static int verify_none(void *ctx, struct netoops_packet *p)
{
	(void)ctx;
	return netoops_auth_verify(p, false, NULL, NULL, NULL);
}

/* A datagram: its bytes, and how to check it before reassembly. */
struct auth_in {
	const uint8_t	*buf;
	size_t		len;
	netoops_key_lookup_fn lk;	/* NULL: not checked with a key */
};

/*
 * Decode, netoops_auth_verify() (key ring @in[i].lk, not required), and
 * reassemble @n datagrams with FEC and verify callback @vf; returns the
 * dump (complete, or flushed as partial).
 */
static struct netoops_dump *feed(const struct auth_in *in, size_t n,
				 netoops_verify_fn vf,
				 struct netoops_reasm_stats *st)
{
	struct netoops_packet *p = malloc(sizeof(*p));
	struct netoops_reasm *r;
	struct netoops_dump *done = NULL, *got = NULL;
	size_t i;
	int rc;

	assert_non_null(p);
	assert_int_equal(netoops_reasm_new(NULL, &r), 0);
	assert_int_equal(netoops_reasm_enable_fec(r), 0);
	netoops_reasm_set_verify(r, vf, NULL);
	for (i = 0; i < n; i++) {
		assert_int_equal(netoops_decode_packet(in[i].buf, in[i].len,
						       p), 0);
		/* decoding is not verifying */
		assert_false(p->verified);
		assert_int_equal(netoops_auth_verify(p, false, in[i].lk, NULL,
						     NULL), 0);
		assert_int_equal(p->verified, p->has_mac && in[i].lk);
		rc = netoops_reasm_add(r, "s", 1, p, 1, &done, NULL);
		/* refused: unverified data for an authenticated dump */
		assert_true(rc >= 0 || rc == -EACCES);
		if (done) {
			assert_null(got);
			got = done;
		}
	}
	if (!got)
		assert_int_equal(netoops_reasm_flush(r, &got), 1);
	if (st)
		netoops_reasm_get_stats(r, st);
	netoops_reasm_free(r);
	free(p);
	return got;
}

/* Every datagram of @d (except index @skip) checked with @lk. */
static size_t inputs(const struct tu_dump *d, netoops_key_lookup_fn lk,
		     size_t skip, struct auth_in *in)
{
	size_t i, n = 0;

	for (i = 0; i < d->n; i++) {
		if (i == skip)
			continue;
		in[n].buf = d->pkt[i];
		in[n].len = d->len[i];
		in[n++].lk = lk;
	}
	return n;
}

/* Whether datagram @i of @d is a parity datagram. */
static bool parity_at(const struct tu_dump *d, size_t i)
{
	return d->pkt[i][7] & (NETOOPS_F_PARITY >> 8);
}

static void test_dump_authenticated(void **state)
{
	static struct auth_in in[256], mix[256];
	struct netoops_dump *dump;
	struct tu_dump d, d9, u;
	size_t zl = make_payload(12000, 11), n, i;
	(void)state;

	encode(&d, tu_key, tu_key_id, 0, 0, zl, 512, 20);
	encode(&d9, other_key, OTHER_KEY_ID, 0, 0, zl, 512, 20);
	encode(&u, NULL, 0, 0, 0, zl, 512, 21);
	assert_true(d.n >= 4 && d.n == d9.n && d.n < 256);

	/* every datagram verified with one key: authenticated, that key */
	n = inputs(&d, lookup, SIZE_MAX, in);
	dump = feed(in, n, NULL, NULL);
	assert_true(dump->complete);
	assert_true(dump->authenticated);
	assert_int_equal(dump->auth_key_id, tu_key_id);
	netoops_dump_free(dump);
	n = inputs(&d9, lookup2, SIZE_MAX, in);
	dump = feed(in, n, NULL, NULL);
	assert_true(dump->authenticated);
	assert_int_equal(dump->auth_key_id, OTHER_KEY_ID);
	netoops_dump_free(dump);

	/* one datagram (first, middle or last) not checked: it never
	 * joins the verified ones (first: the verified ones that follow
	 * replace it), the dump stays authenticated, without it
	 */
	for (i = 0; i < d.n; i += d.n / 2 - 1) {
		struct netoops_reasm_stats st;

		n = inputs(&d, lookup, SIZE_MAX, in);
		in[i].lk = NULL;
		dump = feed(in, n, NULL, &st);
		assert_false(dump->complete);
		assert_int_equal(dump->pkts_received, d.n - 1);
		assert_true(dump->authenticated);
		assert_int_equal(dump->auth_key_id, tu_key_id);
		assert_int_equal(st.displaced + st.downgrades, 1);
		assert_int_equal(st.displaced, i == 0);
		netoops_dump_free(dump);
	}

	/* signed, but no key ring (netoopsd without --key): not */
	n = inputs(&d, NULL, SIZE_MAX, in);
	dump = feed(in, n, NULL, NULL);
	assert_true(dump->complete);
	assert_false(dump->authenticated);
	netoops_dump_free(dump);

	/* unsigned, with a key ring: accepted, not authenticated */
	n = inputs(&u, lookup, SIZE_MAX, in);
	dump = feed(in, n, NULL, NULL);
	assert_true(dump->complete);
	assert_false(dump->authenticated);
	netoops_dump_free(dump);

	/* the same dump, datagrams alternately signed with keys 7 and 9,
	 * each verifying: the holder of key 9 cannot add to (nor downgrade)
	 * a dump of key 7
	 */
	for (i = 0; i < d.n; i++) {
		const struct tu_dump *s = i % 2 ? &d9 : &d;

		mix[i].buf = s->pkt[i];
		mix[i].len = s->len[i];
		mix[i].lk = lookup2;
	}
	dump = feed(mix, d.n, NULL, NULL);
	assert_false(dump->complete);
	assert_int_equal(dump->pkts_received, (d.n + 1) / 2);
	assert_true(dump->authenticated);
	assert_int_equal(dump->auth_key_id, tu_key_id);
	netoops_dump_free(dump);

	/* a partial dump whose datagrams all verified: authenticated (the
	 * record says partial on its own)
	 */
	n = inputs(&d, lookup, 1, in);
	dump = feed(in, n, NULL, NULL);
	assert_false(dump->complete);
	assert_true(dump->authenticated);
	assert_int_equal(dump->auth_key_id, tu_key_id);
	netoops_dump_free(dump);
	tu_dump_clear(&d);
	tu_dump_clear(&d9);
	tu_dump_clear(&u);
}

/*
 * FEC: a rebuilt datagram joins an authenticated dump only when the verify
 * callback verified its MAC with the dump's key; parity datagrams
 * themselves do not count (unverified parity leaves a dump of verified
 * data authenticated).
 */
static void test_dump_authenticated_fec(void **state)
{
	static struct auth_in in[256];
	struct netoops_reasm_stats st;
	struct netoops_dump *dump;
	struct tu_dump d;
	size_t zl = make_payload(12000, 12), n, i, lost = 1;
	(void)state;

	encode(&d, tu_key, tu_key_id, 4, 2, zl, 512, 22);
	assert_true(d.n > 6 && d.n < 256);
	assert_false(parity_at(&d, lost));

	/* datagram 1 lost, rebuilt and verified by the callback */
	n = inputs(&d, lookup, lost, in);
	dump = feed(in, n, verify_key, &st);
	assert_true(dump->complete);
	assert_int_equal(dump->pkts_rebuilt, 1);
	assert_int_equal(st.fec_rebuilt, 1);
	assert_true(dump->authenticated);
	assert_int_equal(dump->auth_key_id, tu_key_id);
	assert_memory_equal(dump->payload, zpay, zl);
	netoops_dump_free(dump);

	/* rebuilt but accepted without a key check: it may not join the
	 * verified data (the parity was not verified either), so the dump
	 * stays authenticated and partial
	 */
	dump = feed(in, n, verify_none, &st);
	assert_false(dump->complete);
	assert_int_equal(dump->pkts_rebuilt, 0);
	assert_true(st.fec_failed >= 1);	/* once per datagram after */
	assert_true(dump->authenticated);
	netoops_dump_free(dump);

	/* rebuilt with no verify callback at all: the same */
	dump = feed(in, n, NULL, &st);
	assert_false(dump->complete);
	assert_true(st.fec_failed >= 1);
	assert_true(dump->authenticated);
	netoops_dump_free(dump);

	/* nothing lost, parity not checked with a key: still authenticated */
	n = inputs(&d, lookup, SIZE_MAX, in);
	for (i = 0; i < n; i++)
		if (parity_at(&d, i))
			in[i].lk = NULL;
	dump = feed(in, n, verify_key, &st);
	assert_true(dump->complete);
	assert_int_equal(dump->pkts_rebuilt, 0);
	assert_true(st.parity > 0);
	assert_true(dump->authenticated);
	netoops_dump_free(dump);
	tu_dump_clear(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mac_roundtrip),
		cmocka_unit_test(test_forged_unsigned_unknown),
		cmocka_unit_test(test_mac_every_byte),
		cmocka_unit_test(test_replay),
		cmocka_unit_test(test_parity_matches_isal),
		cmocka_unit_test(test_fec_patterns),
		cmocka_unit_test(test_fec_auth_random_loss),
		cmocka_unit_test(test_fec_forged_parity),
		cmocka_unit_test(test_dump_authenticated),
		cmocka_unit_test(test_dump_authenticated_fec),
	};

	(void)payload;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
