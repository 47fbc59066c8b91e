// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target over the whole receive path: packet decoding, reassembly
 * (with small limits so they are hit), expiry, and payload inflation.
 *
 * Input: tried first as one datagram, then as a sequence of datagrams each
 * prefixed by its length (le16), as written by `gen_vectors --corpus`.
 * The framed datagrams get their checksum recomputed so that mutations
 * reach the deeper checks; the single-datagram try keeps it as mutated.
 * Every datagram is copied into a buffer of exactly its size so that ASan
 * sees any read past its end.
 *
 * Trust paths: every decoded datagram also goes through netoops_auth_check()
 * (key id 7 known, the key of the golden vectors), the reassembler has FEC
 * enabled with a verify callback, and the input is also handed to
 * netoops_fec_rebuild() as (k, m, loss mask, blocks).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "netoops_decode.h"
#include "netoops_enc.h"

static const uint8_t fuzz_key[32] = "netoops golden vector key 0001!";

static int lookup(void *ctx, uint32_t key_id, const struct netoops_packet *p,
		  struct netoops_key *ret)
{
	(void)ctx;
	(void)p;
	if (key_id != 7)
		return -ENOKEY;
	ret->key = fuzz_key;
	ret->key_len = sizeof(fuzz_key);
	return 0;
}

static int verify(void *ctx, struct netoops_packet *p)
{
	(void)ctx;
	return netoops_auth_verify(p, false, lookup, NULL, NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint8_t out[64 << 10];

#define CHECK(x) do { if (!(x)) __builtin_trap(); } while (0)

static void consume(struct netoops_dump *d)
{
	size_t i, n, sum = 0;
	int err;

	CHECK(d->pkts_received <= d->pkt_count);
	/* only key 7 exists: nothing else can authenticate a dump */
	CHECK(!d->authenticated || (d->auth_key_id == 7 && d->pkts_received));
	for (i = 0; i < d->nr_gaps; i++) {
		CHECK(d->gaps[i].len > 0);
		CHECK((uint64_t)d->gaps[i].off + d->gaps[i].len <=
		      d->payload_len);
		if (i)
			CHECK(d->gaps[i].off >
			      d->gaps[i - 1].off + d->gaps[i - 1].len);
		sum += d->gaps[i].len;
	}
	CHECK(sum == d->missing_bytes);
	err = netoops_dump_text(d, out, sizeof(out), &n);
	CHECK(n <= sizeof(out));
	CHECK(err <= 0);
	netoops_dump_free(d);
}

static void add(struct netoops_reasm *r, const uint8_t *buf, size_t len,
		const char *src, uint64_t now, bool fix_crc)
{
	static struct netoops_packet pkt;
	struct netoops_dump *d = NULL;
	uint8_t *copy = malloc(len ? len : 1);
	int rc;

	if (!copy)
		return;
	memcpy(copy, buf, len);
	/* let mutations reach the checks behind the checksum */
	if (fix_crc && len >= NETOOPS_HDR_LEN_V1) {
		uint32_t c;

		memset(copy + 48, 0, 4);
		c = netoops_crc32(copy, len);
		copy[48] = (uint8_t)c;
		copy[49] = (uint8_t)(c >> 8);
		copy[50] = (uint8_t)(c >> 16);
		copy[51] = (uint8_t)(c >> 24);
	}
	if (netoops_decode_packet(copy, len, &pkt) == 0) {
		enum netoops_err why;

		CHECK(pkt.err == NETOOPS_OK);
		CHECK(pkt.pkt_index < pkt.pkt_count);
		rc = netoops_auth_verify(&pkt, now % 60 == 0, lookup, NULL,
					 &why);
		CHECK(!pkt.verified || (rc == 0 && pkt.has_mac));
		CHECK((rc == 0) == (why == NETOOPS_OK));
		CHECK(!pkt.has_mac || pkt.mac_off + 24 == len);
		rc = netoops_reasm_add(r, src, strlen(src), &pkt, now, &d,
				       NULL);
		CHECK(rc != NETOOPS_REASM_COMPLETE || d);
		if (d) {
			CHECK(d->complete);
			consume(d);
		}
	} else {
		CHECK(pkt.err != NETOOPS_OK);
		CHECK(netoops_err_str(pkt.err)[0]);
	}
	free(copy);
}

/* Input as k, m, a loss mask and k + m blocks of equal length. */
static void fuzz_rebuild(const uint8_t *data, size_t size)
{
	const uint8_t *blocks[NETOOPS_FEC_MAX];
	uint8_t *outs[NETOOPS_FEC_MAX] = { NULL };
	unsigned int k, m, i;
	size_t len;
	int rc;

	if (size < 12)
		return;
	k = 1 + data[0] % 16;
	m = 1 + data[1] % 8;
	len = (size - 10) / (k + m);
	if (!len || k * len > sizeof(out))
		return;
	for (i = 0; i < k + m; i++) {
		bool lost = data[2 + i % 8] & (1u << (i / 8 % 8));

		blocks[i] = lost ? NULL : data + 10 + i * len;
		if (lost && i < k)
			outs[i] = out + i * len;
	}
	rc = netoops_fec_rebuild(k, m, len, blocks, outs);
	CHECK(rc == -ENODATA || (rc >= 0 && rc <= (int)k));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const srcs[] = { "a", "b", "" };
	struct netoops_reasm_limits lim = {
		.max_pkts_per_dump = 64,
		.max_bytes_per_dump = 32 << 10,
		.max_dumps_per_source = 2,
		.max_dumps = 4,
		.max_bytes_total = 256 << 10,
		.timeout_ms = 100,
	};
	struct netoops_reasm *r;
	struct netoops_dump *d;
	uint64_t now = 0;
	size_t off = 0, n;

	if (netoops_reasm_new(&lim, &r))
		return 0;
	CHECK(netoops_reasm_enable_fec(r) == 0);
	netoops_reasm_set_verify(r, verify, NULL);
	fuzz_rebuild(data, size);
	add(r, data, size, "w", now, false);
	while (size - off >= 2) {
		size_t len = (size_t)data[off] | (size_t)data[off + 1] << 8;

		off += 2;
		if (len > size - off)
			len = size - off;
		add(r, data + off, len, srcs[now % 3], now, true);
		off += len;
		now += 30;
		while (netoops_reasm_expire(r, now, &d) == 1)
			consume(d);
	}
	while (netoops_reasm_flush(r, &d) == 1)
		consume(d);
	netoops_reasm_free(r);

	/* the raw input as a deflate stream */
	netoops_inflate(data, size, out, sizeof(out), &n);
	CHECK(n <= sizeof(out));
	return 0;
}
