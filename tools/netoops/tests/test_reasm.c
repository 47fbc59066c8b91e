// SPDX-License-Identifier: GPL-2.0
/*
 * Reassembly: any order completes, duplicates are counted, conflicts are
 * refused, loss gives a partial dump with the exact gap list once the
 * passed-in time says so, and every limit refuses with its errno and reason
 * and is counted.  Admission under pressure: budgets per address and per
 * class (authenticated or not), eviction of the biggest holder's oldest
 * dump, junk partial dumps discarded, and authenticated data never
 * replaced or merged by unauthenticated data.  Also the inflate helper on
 * complete, partial, corrupt and oversized payloads.
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

#define TEXT_LEN	20000
#define MAX_PKT		256
#define TIMEOUT		5000

/* One encoded dump, decoded. */
struct fixture {
	uint8_t		text[TEXT_LEN];
	uint8_t		z[TEXT_LEN + 64];
	const uint8_t	*payload;
	size_t		payload_len;
	struct tu_dump	d;
	struct netoops_packet *pkt;	/* d.n decoded packets */
};

static void fixture_make(struct fixture *f, bool compress, uint64_t dump_id,
			 size_t text_len)
{
	uint8_t meta[64];
	struct netoops_tlv_buf b;

	tu_text(f->text, text_len, dump_id);
	f->payload = f->text;
	f->payload_len = text_len;
	if (compress) {
		f->payload_len = tu_deflate(f->text, text_len, f->z,
					    sizeof(f->z));
		assert_true(f->payload_len > 0);
		f->payload = f->z;
	}
	netoops_tlv_init(&b, meta, sizeof(meta));
	netoops_tlv_put_dump_info(&b, NETOOPS_REASON_OOPS, 1, 1, 0);
	netoops_tlv_put_payload_info(&b, compress ? NETOOPS_COMPRESS_DEFLATE :
				     NETOOPS_COMPRESS_NONE,
				     (uint32_t)text_len);
	assert_int_equal(netoops_tlv_error(&b), 0);
	assert_int_equal(tu_encode(tu_boot_id, dump_id, meta, b.len,
				   f->payload, f->payload_len, MAX_PKT,
				   &f->d), 0);
	f->pkt = calloc(f->d.n, sizeof(*f->pkt));
	assert_non_null(f->pkt);
	for (size_t i = 0; i < f->d.n; i++)
		assert_int_equal(netoops_decode_packet(f->d.pkt[i],
						       f->d.len[i],
						       &f->pkt[i]), 0);
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	fixture_make(f, false, 1, TEXT_LEN);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	tu_dump_clear(&f->d);
	free(f->pkt);
	free(f);
	return 0;
}

static struct netoops_reasm *reasm(uint32_t pkts, uint32_t bytes,
				   uint32_t per_src, uint32_t dumps,
				   uint64_t total)
{
	struct netoops_reasm_limits lim = {
		.max_pkts_per_dump = pkts,
		.max_bytes_per_dump = bytes,
		.max_dumps_per_source = per_src,
		.max_dumps = dumps,
		.max_bytes_total = total,
		.timeout_ms = TIMEOUT,
	};
	struct netoops_reasm *r;

	assert_int_equal(netoops_reasm_new(&lim, &r), 0);
	return r;
}

static void test_any_order(void **state)
{
	struct fixture *f = *state;
	size_t *order = calloc(f->d.n, sizeof(*order));

	assert_non_null(order);
	assert_true(f->d.n > 50);
	for (uint64_t seed = 1; seed <= 20; seed++) {
		struct netoops_reasm *r = reasm(0, 0, 0, 0, 0);
		struct netoops_reasm_stats st;
		struct netoops_dump *done = NULL;

		tu_shuffle(order, f->d.n, seed);
		for (size_t i = 0; i < f->d.n; i++) {
			int rc = netoops_reasm_add(r, "a", 1, &f->pkt[order[i]],
						   i, &done, NULL);

			assert_int_equal(rc, i + 1 < f->d.n ?
					 NETOOPS_REASM_ACCEPTED :
					 NETOOPS_REASM_COMPLETE);
			assert_true((done != NULL) == (i + 1 == f->d.n));
		}
		assert_true(done->complete);
		assert_int_equal(done->nr_gaps, 0);
		assert_int_equal(done->payload_len, TEXT_LEN);
		assert_memory_equal(done->payload, f->text, TEXT_LEN);
		assert_int_equal(done->src_key_len, 1);
		assert_int_equal(done->src_key[0], 'a');
		assert_int_equal(done->dump_id, 1);
		assert_int_equal(done->first_ms, 0);
		assert_int_equal(done->last_ms, f->d.n - 1);
		netoops_reasm_get_stats(r, &st);
		assert_int_equal(st.completed, 1);
		assert_int_equal(st.accepted, f->d.n);
		assert_int_equal(st.open_dumps, 0);
		/* only the tombstone's checksums stay, until forgotten */
		assert_true(st.bytes_buffered > 0 &&
			    st.bytes_buffered < netoops_reasm_cost(f->d.n, 0));
		netoops_dump_free(done);
		assert_int_equal(netoops_reasm_expire(r, f->d.n - 1 + TIMEOUT,
						      &done), 0);
		netoops_reasm_get_stats(r, &st);
		assert_int_equal(st.bytes_buffered, 0);
		netoops_reasm_free(r);
	}
	free(order);
	netoops_dump_free(NULL);
	netoops_reasm_free(NULL);
}

static void test_duplicates(void **state)
{
	struct fixture *f = *state;
	struct netoops_reasm *r = reasm(0, 0, 0, 0, 0);
	struct netoops_reasm_stats st;
	struct netoops_dump *done = NULL, *none;
	size_t i;

	for (i = 0; i + 1 < f->d.n; i++) {
		assert_int_equal(netoops_reasm_add(r, "a", 1, &f->pkt[i], 10,
						   &none, NULL),
				 NETOOPS_REASM_ACCEPTED);
		assert_int_equal(netoops_reasm_add(r, "a", 1, &f->pkt[i], 10,
						   &none, NULL),
				 NETOOPS_REASM_DUPLICATE);
		assert_null(none);
	}
	assert_int_equal(netoops_reasm_add(r, "a", 1, &f->pkt[i], 10, &done,
					   NULL), NETOOPS_REASM_COMPLETE);
	assert_int_equal(done->duplicates, f->d.n - 1);
	assert_int_equal(done->pkts_received, f->d.n);
	/* late copies of a completed dump: duplicates, no new dump */
	assert_int_equal(netoops_reasm_add(r, "a", 1, &f->pkt[3], 11, &none,
					   NULL), NETOOPS_REASM_DUPLICATE);
	assert_int_equal(netoops_reasm_add(r, "a", 1, &f->pkt[i], 12, &none,
					   NULL), NETOOPS_REASM_DUPLICATE);
	netoops_reasm_get_stats(r, &st);
	assert_int_equal(st.duplicates, f->d.n - 1 + 2);
	assert_int_equal(st.open_dumps, 0);
	assert_int_equal(st.packets, 2 * f->d.n + 1);
	/* the tombstone is forgotten after the timeout: a new dump opens */
	assert_int_equal(netoops_reasm_next_deadline(r), 10 + TIMEOUT);
	assert_int_equal(netoops_reasm_expire(r, 10 + TIMEOUT, &none), 0);
	assert_null(none);
	assert_int_equal(netoops_reasm_next_deadline(r), UINT64_MAX);
	assert_int_equal(netoops_reasm_add(r, "a", 1, &f->pkt[3], 20000,
					   &none, NULL),
			 NETOOPS_REASM_ACCEPTED);
	netoops_dump_free(done);
	netoops_reasm_free(r);
}

/* A copy of packet i with one payload byte changed (valid checksum). */
static void altered(struct fixture *f, size_t i, uint8_t *buf,
		    struct netoops_packet *p, int what)
{
	memcpy(buf, f->d.pkt[i], f->d.len[i]);
	if (what == 0)
		buf[f->d.len[i] - 8] ^= 0x20;		/* payload byte */
	else
		buf[34] ^= 1;				/* pkt_count */
	buf[48] = buf[49] = buf[50] = buf[51] = 0;
	uint32_t c = netoops_crc32(buf, f->d.len[i]);

	buf[48] = (uint8_t)c;
	buf[49] = (uint8_t)(c >> 8);
	buf[50] = (uint8_t)(c >> 16);
	buf[51] = (uint8_t)(c >> 24);
	assert_int_equal(netoops_decode_packet(buf, f->d.len[i], p), 0);
}

static void test_conflicts(void **state)
{
	struct fixture *f = *state;
	struct netoops_reasm *r = reasm(0, 0, 0, 0, 0);
	struct netoops_packet *p = malloc(sizeof(*p));
	struct netoops_reasm_stats st;
	struct netoops_dump *none;
	enum netoops_err why;
	uint8_t buf[MAX_PKT];

	assert_non_null(p);
	assert_int_equal(netoops_reasm_add(r, "a", 1, &f->pkt[5], 1, &none,
					   &why), NETOOPS_REASM_ACCEPTED);
	assert_int_equal(why, NETOOPS_OK);
	altered(f, 5, buf, p, 0);
	assert_int_equal(netoops_reasm_add(r, "a", 1, p, 2, &none, &why),
			 -EEXIST);
	assert_int_equal(why, NETOOPS_ERR_CONFLICT);
	altered(f, 6, buf, p, 1);
	assert_int_equal(netoops_reasm_add(r, "a", 1, p, 3, &none, &why),
			 -EEXIST);
	assert_int_equal(why, NETOOPS_ERR_MISMATCH);
	netoops_reasm_get_stats(r, &st);
	assert_int_equal(st.conflicts, 2);
	assert_int_equal(st.accepted, 1);
	/* invalid arguments */
	assert_int_equal(netoops_reasm_add(r, NULL, 1, &f->pkt[1], 3, &none,
					   &why), -EINVAL);
	assert_int_equal(netoops_reasm_add(r, buf, NETOOPS_SRC_KEY_MAX + 1,
					   &f->pkt[1], 3, &none, &why),
			 -EINVAL);
	assert_int_equal(netoops_reasm_add(r, "a", 1, &f->pkt[1], 3, NULL,
					   &why), -EINVAL);
	free(p);
	netoops_reasm_free(r);
}

/* Feed all but the listed indices; expire; check the exact gaps. */
static void loss_case(struct fixture *f, const size_t *drop, size_t ndrop,
		      bool expect_meta)
{
	struct netoops_reasm *r = reasm(0, 0, 0, 0, 0);
	struct netoops_gap expect[16];
	struct netoops_dump *done, *none;
	size_t nexp = 0, i, k, fed = 0, missing = 0;
	uint64_t t = 100;

	/* expected gaps: the dropped chunks, adjacent ones merged */
	for (i = 0; i < f->d.n; i++) {
		bool dropped = false;

		for (k = 0; k < ndrop; k++)
			dropped |= drop[k] == i;
		if (!dropped) {
			assert_int_equal(netoops_reasm_add(r, "s", 1,
							   &f->pkt[i], t++,
							   &none, NULL),
					 NETOOPS_REASM_ACCEPTED);
			fed++;
			continue;
		}
		if (!f->pkt[i].chunk_len)
			continue;
		missing += f->pkt[i].chunk_len;
		if (nexp && expect[nexp - 1].off + expect[nexp - 1].len ==
			    f->pkt[i].payload_off) {
			expect[nexp - 1].len += (uint32_t)f->pkt[i].chunk_len;
		} else {
			expect[nexp].off = f->pkt[i].payload_off;
			expect[nexp].len = (uint32_t)f->pkt[i].chunk_len;
			nexp++;
		}
	}
	/* not before its time */
	assert_int_equal(netoops_reasm_next_deadline(r), t - 1 + TIMEOUT);
	assert_int_equal(netoops_reasm_expire(r, t - 2 + TIMEOUT, &done), 0);
	assert_null(done);
	assert_int_equal(netoops_reasm_expire(r, t - 1 + TIMEOUT, &done), 1);
	assert_non_null(done);
	assert_int_equal(netoops_reasm_expire(r, t + TIMEOUT, &none), 0);
	assert_int_equal(netoops_reasm_next_deadline(r), UINT64_MAX);

	assert_false(done->complete);
	assert_int_equal(done->has_meta, expect_meta);
	if (expect_meta)
		assert_int_equal(done->meta.reason, NETOOPS_REASON_OOPS);
	assert_int_equal(done->pkts_received, fed);
	assert_int_equal(done->pkt_count, f->d.n);
	assert_int_equal(done->nr_gaps, nexp);
	assert_int_equal(done->missing_bytes, missing);
	for (k = 0; k < nexp; k++) {
		assert_int_equal(done->gaps[k].off, expect[k].off);
		assert_int_equal(done->gaps[k].len, expect[k].len);
	}
	/* outside the gaps the bytes are the sender's, inside zero */
	for (i = 0, k = 0; i < done->payload_len; i++) {
		bool in_gap = false;

		for (k = 0; k < nexp; k++)
			in_gap |= i >= expect[k].off &&
				  i < expect[k].off + expect[k].len;
		assert_int_equal(done->payload[i], in_gap ? 0 : f->payload[i]);
	}
	netoops_dump_free(done);
	netoops_reasm_free(r);
}

static void test_loss(void **state)
{
	struct fixture *f = *state;
	const size_t last = f->d.n - 1;
	const size_t mid[] = { 3, 4, 10 };
	const size_t first[] = { 0 };
	const size_t ends[] = { 0, last };
	const size_t many[] = { 1, 2, 3, 20, 22, 24, last - 1 };

	loss_case(f, mid, 3, true);
	loss_case(f, first, 1, true);	/* metadata from the last datagram */
	loss_case(f, ends, 2, false);
	loss_case(f, many, 7, true);
}

static void test_flush_and_sources(void **state)
{
	struct fixture *f = *state;
	struct netoops_reasm *r = reasm(0, 0, 0, 0, 0);
	struct netoops_dump *d1 = NULL, *d2 = NULL, *x;
	struct netoops_reasm_stats st;
	size_t i;

	/* the same dump from two sources is two dumps */
	for (i = 0; i < f->d.n; i++) {
		netoops_reasm_add(r, "a", 1, &f->pkt[i], i, &x, NULL);
		if (x)
			d1 = x;
		netoops_reasm_add(r, "b", 1, &f->pkt[i], i, &x, NULL);
		if (x)
			d2 = x;
	}
	assert_non_null(d1);
	assert_non_null(d2);
	assert_int_equal(d1->src_key[0], 'a');
	assert_int_equal(d2->src_key[0], 'b');
	netoops_dump_free(d1);
	netoops_dump_free(d2);
	/* an empty source key is a key too */
	netoops_reasm_add(r, NULL, 0, &f->pkt[1], 1, &x, NULL);
	netoops_reasm_add(r, "c", 1, &f->pkt[1], 1, &x, NULL);
	netoops_reasm_get_stats(r, &st);
	assert_int_equal(st.open_dumps, 2);
	assert_int_equal(netoops_reasm_flush(r, &x), 1);
	assert_int_equal(x->src_key_len, 0);
	assert_false(x->complete);
	assert_int_equal(x->pkts_received, 1);
	netoops_dump_free(x);
	assert_int_equal(netoops_reasm_flush(r, &x), 1);
	netoops_dump_free(x);
	assert_int_equal(netoops_reasm_flush(r, &x), 0);
	assert_null(x);
	netoops_reasm_get_stats(r, &st);
	assert_int_equal(st.expired, 2);
	/* the tombstones of the two complete ones, then nothing */
	assert_true(st.bytes_buffered > 0);
	assert_int_equal(netoops_reasm_expire(r, f->d.n + TIMEOUT, &x), 0);
	netoops_reasm_get_stats(r, &st);
	assert_int_equal(st.bytes_buffered, 0);
	netoops_reasm_free(r);
}

/* A packet of a new dump (dump_id changed, checksum fixed). */
static void other_dump(struct fixture *f, size_t i, uint64_t id, uint8_t *buf,
		       struct netoops_packet *p)
{
	memcpy(buf, f->d.pkt[i], f->d.len[i]);
	for (int k = 0; k < 8; k++)
		buf[24 + k] = (uint8_t)(id >> (8 * k));
	buf[48] = buf[49] = buf[50] = buf[51] = 0;
	uint32_t c = netoops_crc32(buf, f->d.len[i]);

	for (int k = 0; k < 4; k++)
		buf[48 + k] = (uint8_t)(c >> (8 * k));
	assert_int_equal(netoops_decode_packet(buf, f->d.len[i], p), 0);
}

static void test_limits(void **state)
{
	struct fixture *f = *state;
	struct netoops_packet *p = malloc(sizeof(*p));
	uint64_t cost = netoops_reasm_cost(f->pkt[0].pkt_count,
					   f->pkt[0].payload_total);
	struct netoops_reasm_stats st;
	struct netoops_reasm *r;
	struct netoops_dump *x;
	enum netoops_err why;
	uint8_t buf[MAX_PKT];

	assert_non_null(p);
	/* packets per dump */
	r = reasm(f->d.n - 1, 0, 0, 0, 0);
	assert_int_equal(netoops_reasm_add(r, "a", 1, &f->pkt[0], 0, &x,
					   &why), -EMSGSIZE);
	assert_int_equal(why, NETOOPS_ERR_LIMIT_PACKETS);
	netoops_reasm_free(r);
	r = reasm(f->d.n, 0, 0, 0, 0);
	assert_int_equal(netoops_reasm_add(r, "a", 1, &f->pkt[0], 0, &x,
					   &why), NETOOPS_REASM_ACCEPTED);
	netoops_reasm_free(r);

	/* bytes per dump */
	r = reasm(0, TEXT_LEN - 1, 0, 0, 0);
	assert_int_equal(netoops_reasm_add(r, "a", 1, &f->pkt[0], 0, &x,
					   &why), -EMSGSIZE);
	assert_int_equal(why, NETOOPS_ERR_LIMIT_BYTES);
	netoops_reasm_get_stats(r, &st);
	assert_int_equal(st.refused_limit, 1);
	assert_int_equal(st.open_dumps, 0);
	netoops_reasm_free(r);

	/* open dumps per source */
	r = reasm(0, 0, 2, 0, 0);
	for (uint64_t id = 100; id < 102; id++) {
		other_dump(f, 0, id, buf, p);
		assert_int_equal(netoops_reasm_add(r, "a", 1, p, 0, &x, &why),
				 NETOOPS_REASM_ACCEPTED);
	}
	other_dump(f, 0, 102, buf, p);
	assert_int_equal(netoops_reasm_add(r, "a", 1, p, 0, &x, &why),
			 -ENOSPC);
	assert_int_equal(why, NETOOPS_ERR_LIMIT_SOURCE);
	/* ...but another packet of an open dump is fine */
	other_dump(f, 1, 101, buf, p);
	assert_int_equal(netoops_reasm_add(r, "a", 1, p, 0, &x, &why),
			 NETOOPS_REASM_ACCEPTED);
	/* ...and so is another source */
	other_dump(f, 0, 102, buf, p);
	assert_int_equal(netoops_reasm_add(r, "b", 1, p, 0, &x, &why),
			 NETOOPS_REASM_ACCEPTED);
	netoops_reasm_free(r);

	/* open dumps in all: a full pool evicts the least recently active
	 * unauthenticated dump (each address holds one) and stays full
	 */
	r = reasm(0, 0, 0, 3, 0);
	for (char s = 'a'; s < 'd'; s++)
		assert_int_equal(netoops_reasm_add(r, &s, 1, &f->pkt[0], s, &x,
						   &why),
				 NETOOPS_REASM_ACCEPTED);
	assert_int_equal(netoops_reasm_add(r, "b", 1, &f->pkt[1], 'd', &x,
					   &why), NETOOPS_REASM_ACCEPTED);
	assert_int_equal(netoops_reasm_add(r, "d", 1, &f->pkt[0], 'e', &x,
					   &why), NETOOPS_REASM_ACCEPTED);
	netoops_reasm_get_stats(r, &st);
	assert_int_equal(st.evicted, 1);
	assert_int_equal(st.open_dumps, 3);
	assert_int_equal(st.refused_limit, 0);
	/* "a" was the one evicted: its next datagram opens a new dump */
	assert_int_equal(netoops_reasm_add(r, "a", 1, &f->pkt[1], 'f', &x,
					   &why), NETOOPS_REASM_ACCEPTED);
	netoops_reasm_get_stats(r, &st);
	assert_int_equal(st.evicted, 2);
	/* an evicted dump is never handed out */
	assert_int_equal(netoops_reasm_flush(r, &x), 1);
	assert_int_equal(x->src_key[0], 'b');
	netoops_dump_free(x);
	netoops_reasm_free(r);

	/* bytes buffered in all: the same */
	r = reasm(0, 0, 0, 0, 2 * cost + cost / 2);
	for (char s = 'a'; s < 'c'; s++)
		assert_int_equal(netoops_reasm_add(r, &s, 1, &f->pkt[0], 0, &x,
						   &why),
				 NETOOPS_REASM_ACCEPTED);
	netoops_reasm_get_stats(r, &st);
	assert_int_equal(st.bytes_buffered, 2 * cost);
	assert_int_equal(netoops_reasm_add(r, "c", 1, &f->pkt[0], 0, &x,
					   &why), NETOOPS_REASM_ACCEPTED);
	netoops_reasm_get_stats(r, &st);
	assert_int_equal(st.evicted, 1);
	assert_int_equal(st.open_dumps, 2);
	assert_int_equal(st.bytes_buffered, 2 * cost);
	/* completing one releases its bytes, but for its tombstone */
	for (size_t i = 1; i < f->d.n; i++)
		netoops_reasm_add(r, "b", 1, &f->pkt[i], 1, &x, &why);
	assert_non_null(x);
	assert_true(x->complete);
	netoops_dump_free(x);
	netoops_reasm_get_stats(r, &st);
	assert_true(st.bytes_buffered > cost &&
		    st.bytes_buffered < cost + netoops_reasm_cost(f->d.n, 0));
	/* a dump larger than the whole budget is refused, nothing evicted */
	netoops_reasm_free(r);
	r = reasm(0, 0, 0, 0, cost - 1);
	assert_int_equal(netoops_reasm_add(r, "c", 1, &f->pkt[0], 2, &x,
					   &why), -ENOBUFS);
	assert_int_equal(why, NETOOPS_ERR_LIMIT_MEMORY);
	netoops_reasm_get_stats(r, &st);
	assert_int_equal(st.refused_limit, 1);
	netoops_reasm_free(r);

	/* the cost really grows with what the sender declares */
	assert_true(netoops_reasm_cost(1, 1000) > 1000);
	assert_true(netoops_reasm_cost(1000, 0) > netoops_reasm_cost(1, 0));
	free(p);
}

/* Datagram @i of dump @id from address @addr (key "addr/id"). */
static int add_from(struct netoops_reasm *r, const char *addr, size_t i,
		    uint64_t id, uint64_t now, bool verified,
		    struct fixture *f, struct netoops_dump **done,
		    enum netoops_err *why)
{
	static uint8_t buf[MAX_PKT];
	static struct netoops_packet p;
	char key[32];
	struct netoops_src src = { .key = key };

	other_dump(f, i, id, buf, &p);
	p.verified = verified;
	p.key_id = verified ? 7 : 0;
	src.addr_len = strlen(addr);
	src.key_len = (size_t)snprintf(key, sizeof(key), "%s/%llu", addr,
				       (unsigned long long)id);
	return netoops_reasm_add_src(r, &src, &p, now, done, why);
}

/*
 * Item 1 of the collector issue: one address opening dumps without end
 * (first datagrams only) must not starve the others.  Pool of 16, budget of
 * 4 per address: the flooder only ever evicts its own dumps, honest
 * addresses keep theirs and complete; then many flooding addresses evict
 * each other before any honest address with fewer dumps.
 */
static void test_admission(void **state)
{
	struct fixture *f = *state;
	struct netoops_reasm_limits lim = {
		.max_dumps = 16, .timeout_ms = TIMEOUT,
	};
	struct netoops_reasm_stats st;
	struct netoops_reasm *r;
	struct netoops_dump *x;
	enum netoops_err why;
	uint64_t id, t = 1;
	size_t i;
	char a[16];

	assert_int_equal(netoops_reasm_new(&lim, &r), 0);
	/* three honest addresses each start a dump */
	for (i = 0; i < 3; i++) {
		snprintf(a, sizeof(a), "honest%zu", i);
		assert_int_equal(add_from(r, a, 0, 1, t++, false, f, &x, &why),
				 NETOOPS_REASM_ACCEPTED);
		assert_int_equal(add_from(r, a, 1, 1, t++, false, f, &x, &why),
				 NETOOPS_REASM_ACCEPTED);
	}
	/* one flooding address: 1000 dumps, all accepted, its own evicted */
	for (id = 100; id < 1100; id++)
		assert_int_equal(add_from(r, "flood", 0, id, t++, false, f, &x,
					  &why), NETOOPS_REASM_ACCEPTED);
	netoops_reasm_get_stats(r, &st);
	assert_int_equal(st.open_dumps, 3 + 4);
	assert_int_equal(st.over_budget, 1000 - 4);
	assert_int_equal(st.evicted, 0);
	/* many flooding addresses fill the pool: they evict each other
	 * (the most loaded address first, then dumps that never got a
	 * second datagram), never an honest dump in progress
	 */
	for (id = 0; id < 500; id++) {
		snprintf(a, sizeof(a), "f%03u", (unsigned int)(id % 50));
		assert_int_equal(add_from(r, a, 0, 2000 + id, t++, false, f, &x,
					  &why), NETOOPS_REASM_ACCEPTED);
		/* honest ones send a datagram now and then, slowly */
		if (id % 100 == 99)
			for (i = 0; i < 3; i++) {
				snprintf(a, sizeof(a), "honest%zu", i);
				assert_int_equal(add_from(r, a, 2 + id / 100,
							  1, t++, false, f,
							  &x, &why),
						 NETOOPS_REASM_ACCEPTED);
			}
	}
	netoops_reasm_get_stats(r, &st);
	assert_int_equal(st.open_dumps, 16);
	assert_true(st.evicted > 400);
	assert_int_equal(st.refused_limit, 0);
	/* the honest dumps are all there and complete */
	for (i = 0; i < 3; i++) {
		size_t k;

		snprintf(a, sizeof(a), "honest%zu", i);
		for (k = 7; k < f->d.n; k++)
			add_from(r, a, k, 1, t++, false, f, &x, &why);
		assert_non_null(x);
		assert_true(x->complete);
		assert_memory_equal(x->payload, f->text, TEXT_LEN);
		netoops_dump_free(x);
	}
	netoops_reasm_free(r);
}

/*
 * Authenticated dumps are never refused for room held by unauthenticated
 * ones, and never evicted for them; an unauthenticated dump does not take
 * room held by authenticated ones.
 */
static void test_admission_auth(void **state)
{
	struct fixture *f = *state;
	struct netoops_reasm_limits lim = {
		.max_dumps = 8, .max_dumps_per_addr = 8, .timeout_ms = TIMEOUT,
	};
	struct netoops_reasm_stats st;
	struct netoops_reasm *r;
	struct netoops_dump *x;
	enum netoops_err why;
	uint64_t id, t = 1;
	size_t k;

	assert_int_equal(netoops_reasm_new(&lim, &r), 0);
	/* the pool full of unauthenticated dumps from the same address */
	for (id = 0; id < 8; id++)
		assert_int_equal(add_from(r, "mix", 0, id, t++, false, f, &x,
					  &why), NETOOPS_REASM_ACCEPTED);
	/* authenticated ones from it take the room */
	for (id = 100; id < 108; id++)
		assert_int_equal(add_from(r, "mix", 0, id, t++, true, f, &x,
					  &why), NETOOPS_REASM_ACCEPTED);
	netoops_reasm_get_stats(r, &st);
	assert_int_equal(st.evicted, 8);
	/* now full of authenticated dumps: an unauthenticated one is
	 * refused, whatever its address
	 */
	assert_int_equal(add_from(r, "other", 0, 200, t++, false, f, &x, &why),
			 -ENOSPC);
	assert_int_equal(why, NETOOPS_ERR_LIMIT_DUMPS);
	/* another authenticated one evicts the largest holder's oldest */
	assert_int_equal(add_from(r, "other", 0, 201, t++, true, f, &x, &why),
			 NETOOPS_REASM_ACCEPTED);
	netoops_reasm_get_stats(r, &st);
	assert_int_equal(st.evicted, 9);
	/* the authenticated dumps complete, authenticated */
	for (k = 1; k < f->d.n; k++)
		add_from(r, "other", k, 201, t++, true, f, &x, &why);
	assert_non_null(x);
	assert_true(x->complete && x->authenticated);
	assert_int_equal(x->auth_key_id, 7);
	netoops_dump_free(x);
	netoops_reasm_free(r);
}

/*
 * With partial_min_pct, expired dumps with too little data, or from an
 * address that went over budget, are discarded and counted, not handed
 * out; a plain partial dump with enough data is handed out.
 */
static void test_partial_filter(void **state)
{
	struct fixture *f = *state;
	struct netoops_reasm_limits lim = {
		.max_dumps = 16, .max_dumps_per_addr = 2,
		.timeout_ms = TIMEOUT, .partial_min_pct = 10,
	};
	struct netoops_reasm_stats st;
	struct netoops_reasm *r;
	struct netoops_dump *x;
	enum netoops_err why;
	size_t k, tenth = (f->d.n + 9) / 10;

	assert_true(f->d.n > 20);
	assert_int_equal(netoops_reasm_new(&lim, &r), 0);
	/* 1: only its first datagram */
	add_from(r, "a", 0, 1, 1, false, f, &x, &why);
	/* 2: a tenth of its datagrams, metadata included: kept */
	for (k = 0; k < tenth; k++)
		add_from(r, "b", k, 2, 1, false, f, &x, &why);
	/* 3: the same amount but no metadata (not the first or last) */
	for (k = 1; k <= tenth; k++)
		add_from(r, "c", k, 3, 1, false, f, &x, &why);
	/* 4: authenticated, its first datagram only: kept */
	add_from(r, "d", 0, 4, 1, true, f, &x, &why);
	/* 5: an address over its budget of 2: its survivors go too */
	for (k = 0; k < 3; k++) {
		size_t i;

		for (i = 0; i < tenth; i++)
			add_from(r, "e", i, 50 + k, 1, false, f, &x, &why);
	}
	assert_int_equal(netoops_reasm_expire(r, 1 + TIMEOUT, &x), 1);
	assert_int_equal(x->src_key[0], 'b');
	assert_false(x->complete);
	netoops_dump_free(x);
	assert_int_equal(netoops_reasm_expire(r, 1 + TIMEOUT, &x), 1);
	assert_int_equal(x->src_key[0], 'd');
	assert_true(x->authenticated);
	netoops_dump_free(x);
	assert_int_equal(netoops_reasm_expire(r, 1 + TIMEOUT, &x), 0);
	netoops_reasm_get_stats(r, &st);
	assert_int_equal(st.expired, 2);
	assert_int_equal(st.scant, 2);
	assert_int_equal(st.over_budget, 1 + 2);
	assert_int_equal(st.open_dumps, 0);
	netoops_reasm_free(r);

	/* without partial_min_pct every expired dump is handed out */
	lim.partial_min_pct = 0;
	assert_int_equal(netoops_reasm_new(&lim, &r), 0);
	add_from(r, "a", 0, 1, 1, false, f, &x, &why);
	assert_int_equal(netoops_reasm_flush(r, &x), 1);
	netoops_dump_free(x);
	netoops_reasm_free(r);
	lim.partial_min_pct = 101;
	assert_int_equal(netoops_reasm_new(&lim, &r), -EINVAL);
}

/*
 * Item 4 of the collector issue: authenticated data is never replaced or
 * merged by unauthenticated data, nor by data verified with another key.
 */
static void test_downgrade(void **state)
{
	struct fixture *f = *state;
	struct netoops_reasm *r = reasm(0, 0, 0, 0, 0);
	struct netoops_reasm_stats st;
	struct netoops_dump *x;
	enum netoops_err why;
	size_t k;

	/* a signed dump missing datagram 2 ... */
	for (k = 0; k < f->d.n; k++)
		if (k != 2)
			assert_int_equal(add_from(r, "s", k, 1, 1, true, f,
						  &x, &why),
					 NETOOPS_REASM_ACCEPTED);
	/* ... gets an unsigned datagram 2: refused */
	assert_int_equal(add_from(r, "s", 2, 1, 2, false, f, &x, &why),
			 -EACCES);
	assert_int_equal(why, NETOOPS_ERR_DOWNGRADE);
	assert_null(x);
	/* the dump stays authenticated and partial */
	assert_int_equal(netoops_reasm_flush(r, &x), 1);
	assert_false(x->complete);
	assert_true(x->authenticated);
	assert_int_equal(x->pkts_received, f->d.n - 1);
	netoops_dump_free(x);

	/* unsigned first, then the signed dump: the unsigned one goes */
	assert_int_equal(add_from(r, "s", 0, 2, 3, false, f, &x, &why),
			 NETOOPS_REASM_ACCEPTED);
	for (k = 0; k < f->d.n; k++)
		assert_true(add_from(r, "s", k, 2, 4, true, f, &x, &why) >= 0);
	assert_non_null(x);
	assert_true(x->complete && x->authenticated);
	assert_int_equal(x->pkts_received, f->d.n);
	netoops_dump_free(x);
	/* an unsigned copy of a completed signed dump: refused */
	assert_int_equal(add_from(r, "s", 1, 2, 5, false, f, &x, &why),
			 -EACCES);
	assert_int_equal(why, NETOOPS_ERR_DOWNGRADE);

	/* a completed unsigned dump is displaced by signed datagrams */
	for (k = 0; k < f->d.n; k++)
		add_from(r, "u", k, 3, 6, false, f, &x, &why);
	assert_non_null(x);
	assert_false(x->authenticated);
	netoops_dump_free(x);
	for (k = 0; k < f->d.n; k++)
		assert_true(add_from(r, "u", k, 3, 7, true, f, &x, &why) >= 0);
	assert_non_null(x);
	assert_true(x->complete && x->authenticated);
	netoops_dump_free(x);
	netoops_reasm_get_stats(r, &st);
	assert_int_equal(st.downgrades, 2);
	assert_int_equal(st.displaced, 2);
	netoops_reasm_free(r);
}

static void test_partial_inflate(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct netoops_reasm *r = reasm(0, 0, 0, 0, 0);
	uint8_t *out = malloc(TEXT_LEN);
	struct netoops_dump *x = NULL;
	size_t i, n, drop;
	(void)state;

	assert_non_null(f);
	assert_non_null(out);
	fixture_make(f, true, 9, TEXT_LEN);
	assert_true(f->d.n > 6);
	drop = f->d.n / 2;
	for (i = 0; i < f->d.n; i++)
		if (i != drop)
			netoops_reasm_add(r, "z", 1, &f->pkt[i], 0, &x, NULL);
	assert_null(x);
	assert_int_equal(netoops_reasm_expire(r, TIMEOUT, &x), 1);
	assert_int_equal(x->nr_gaps, 1);
	assert_int_equal(x->gaps[0].off, f->pkt[drop].payload_off);
	/* a prefix of the text comes back, and it is the right one */
	assert_int_equal(netoops_dump_text(x, out, TEXT_LEN, &n), -ENODATA);
	assert_true(n > 0);
	assert_true(n < TEXT_LEN);
	assert_memory_equal(out, f->text, n);
	netoops_dump_free(x);
	netoops_reasm_free(r);
	tu_dump_clear(&f->d);
	free(f->pkt);
	free(f);
	free(out);
}

static void test_inflate(void **state)
{
	uint8_t text[5000], z[6000], out[5001], bad[64];
	size_t zl, n;
	(void)state;

	tu_text(text, sizeof(text), 3);
	zl = tu_deflate(text, sizeof(text), z, sizeof(z));
	assert_true(zl > 0);
	/* exact fit */
	assert_int_equal(netoops_inflate(z, zl, out, sizeof(text), &n), 0);
	assert_int_equal(n, sizeof(text));
	assert_memory_equal(out, text, sizeof(text));
	/* room to spare */
	assert_int_equal(netoops_inflate(z, zl, out, sizeof(out), &n), 0);
	assert_int_equal(n, sizeof(text));
	/* one byte short: refused, and nothing written past the bound */
	out[sizeof(text) - 1] = 0xa5;
	assert_int_equal(netoops_inflate(z, zl, out, sizeof(text) - 1, &n),
			 -EMSGSIZE);
	assert_int_equal(n, sizeof(text) - 1);
	assert_int_equal(out[sizeof(text) - 1], 0xa5);
	/* truncated input: what could be inflated, -ENODATA */
	assert_int_equal(netoops_inflate(z, zl / 2, out, sizeof(out), &n),
			 -ENODATA);
	assert_true(n > 0 && n < sizeof(text));
	assert_memory_equal(out, text, n);
	assert_int_equal(netoops_inflate(z, 0, out, sizeof(out), &n),
			 -ENODATA);
	/* corrupt: an invalid block type */
	memset(bad, 0xff, sizeof(bad));
	assert_int_equal(netoops_inflate(bad, sizeof(bad), out, sizeof(out),
					 &n), -EBADMSG);
	assert_int_equal(netoops_inflate(NULL, 3, out, sizeof(out), &n),
			 -EINVAL);
	assert_int_equal(netoops_inflate(z, zl, out, sizeof(out), NULL),
			 -EINVAL);
}

static void test_dump_text_plain(void **state)
{
	struct fixture *f = *state;
	struct netoops_reasm *r = reasm(0, 0, 0, 0, 0);
	uint8_t *out = malloc(TEXT_LEN);
	struct netoops_dump *x = NULL;
	size_t n;

	assert_non_null(out);
	for (size_t i = 0; i < f->d.n; i++)
		if (i != 7)
			netoops_reasm_add(r, "p", 1, &f->pkt[i], 0, &x, NULL);
	assert_int_equal(netoops_reasm_expire(r, TIMEOUT, &x), 1);
	assert_int_equal(netoops_dump_text(x, out, TEXT_LEN, &n), -ENODATA);
	assert_int_equal(n, f->pkt[7].payload_off);
	assert_memory_equal(out, f->text, n);
	assert_int_equal(netoops_dump_text(x, out, 10, &n), -EMSGSIZE);
	assert_int_equal(n, 10);
	netoops_dump_free(x);
	netoops_reasm_free(r);
	free(out);
}

/* Hand-made packets with overlapping chunks at odd offsets. */
static void test_overlap(void **state)
{
	struct netoops_packet *p = calloc(1, sizeof(*p));
	struct netoops_reasm *r = reasm(0, 0, 0, 0, 0);
	struct netoops_dump *x = NULL;
	enum netoops_err why;
	(void)state;

	assert_non_null(p);
	memcpy(p->boot_id, tu_boot_id, 16);
	p->dump_id = 42;
	p->pkt_count = 4;
	p->payload_total = 21;

	p->pkt_index = 0;
	p->payload_off = 0;
	p->chunk = (const uint8_t *)"abcde";
	p->chunk_len = 5;
	p->checksum = 1;
	assert_int_equal(netoops_reasm_add(r, "o", 1, p, 0, &x, &why),
			 NETOOPS_REASM_ACCEPTED);
	/* overlaps 3..4 with the same bytes: fine */
	p->pkt_index = 1;
	p->payload_off = 3;
	p->chunk = (const uint8_t *)"deXgh";
	p->checksum = 2;
	assert_int_equal(netoops_reasm_add(r, "o", 1, p, 0, &x, &why),
			 NETOOPS_REASM_ACCEPTED);
	/* overlaps byte 5 ("X") with another value: conflict */
	p->pkt_index = 2;
	p->payload_off = 5;
	p->chunk = (const uint8_t *)"Y";
	p->chunk_len = 1;
	p->checksum = 3;
	assert_int_equal(netoops_reasm_add(r, "o", 1, p, 0, &x, &why),
			 -EEXIST);
	assert_int_equal(why, NETOOPS_ERR_CONFLICT);
	/* bytes 11..19 of 0..20 */
	p->pkt_index = 3;
	p->payload_off = 11;
	p->chunk = (const uint8_t *)"123456789";
	p->chunk_len = 9;
	p->checksum = 4;
	assert_int_equal(netoops_reasm_add(r, "o", 1, p, 0, &x, &why),
			 NETOOPS_REASM_ACCEPTED);
	/* a chunk past payload_total is refused, not written */
	p->pkt_index = 2;
	p->payload_off = 20;
	p->chunk_len = 2;
	assert_int_equal(netoops_reasm_add(r, "o", 1, p, 0, &x, &why),
			 -EINVAL);
	assert_int_equal(why, NETOOPS_ERR_INVALID);

	assert_int_equal(netoops_reasm_expire(r, TIMEOUT, &x), 1);
	assert_int_equal(x->pkts_received, 3);
	assert_int_equal(x->nr_gaps, 2);
	assert_int_equal(x->gaps[0].off, 8);
	assert_int_equal(x->gaps[0].len, 3);
	assert_int_equal(x->gaps[1].off, 20);
	assert_int_equal(x->gaps[1].len, 1);
	assert_int_equal(x->missing_bytes, 4);
	assert_memory_equal(x->payload,
			    "abcdeXgh" "\0\0\0" "123456789" "\0", 21);
	netoops_dump_free(x);
	netoops_reasm_free(r);
	free(p);
}

/*
 * Gap lists and overlap checks over the payload bitmap, searched 64 bits
 * at a time: random chunk layouts on payloads around byte and 64-bit
 * boundaries, the gaps handed out compared with a bit-by-bit reference,
 * the bytes of every gap zero (the payload is not cleared when it is
 * allocated), overlaps refused exactly when a byte differs.
 */
static void test_gap_edges(void **state)
{
	static const uint32_t sizes[] = {
		1, 2, 7, 8, 9, 63, 64, 65, 127, 128, 129, 191, 192, 193,
		255, 256, 257, 1000, 4095, 4096, 4097, 23456,
	};
	struct netoops_packet *p = calloc(1, sizeof(*p));
	uint8_t *src = malloc(23456), *have = malloc(23456);
	uint32_t seed = 12345;
	size_t si;
	(void)state;

	assert_non_null(p);
	assert_non_null(src);
	assert_non_null(have);
	for (size_t i = 0; i < 23456; i++)
		src[i] = (uint8_t)(i * 7 + 1) | 1;	/* never zero */
	for (si = 0; si < sizeof(sizes) / sizeof(*sizes); si++) {
		for (int round = 0; round < 60; round++) {
			uint32_t total = sizes[si], npk = 1 + round % 12;
			struct netoops_reasm *r = reasm(0, 0, 0, 0, 0);
			struct netoops_dump *x = NULL;
			enum netoops_err why;
			uint32_t k, i, ngaps = 0, missing = 0;

			memset(have, 0, total);
			memset(p, 0, sizeof(*p));
			memcpy(p->boot_id, tu_boot_id, 16);
			p->dump_id = 7;
			p->pkt_count = (uint16_t)(npk + 1);	/* one never sent */
			p->payload_total = total;
			for (k = 0; k < npk; k++) {
				uint32_t off, len;
				bool clash = false;
				int rc;

				seed = seed * 1103515245 + 12345;
				off = (seed >> 8) % total;
				seed = seed * 1103515245 + 12345;
				len = (seed >> 8) % (total - off + 1);
				if (round % 5 == 0)	/* boundaries */
					off = off / 64 * 64 + (round % 3 ? 63 : 0);
				if (off >= total)
					off = total - 1;
				if (off + len > total)
					len = total - off;
				p->pkt_index = (uint16_t)k;
				p->payload_off = off;
				p->chunk = src + off;
				p->chunk_len = len;
				p->checksum = k + 1;
				/* a byte changed where it overlaps: conflict */
				if (len && round % 4 == 1) {
					static uint8_t alt[23456];

					memcpy(alt, src + off, len);
					alt[len - 1] ^= 0x80;
					p->chunk = alt;
					clash = have[off + len - 1];
				}
				rc = netoops_reasm_add(r, "g", 1, p, 0, &x, &why);
				if (clash) {
					assert_int_equal(rc, -EEXIST);
					continue;
				}
				assert_int_equal(rc, NETOOPS_REASM_ACCEPTED);
				/* the reference follows what is stored */
				if (p->chunk != src + off)
					src[off + len - 1] ^= 0x80;
				memset(have + off, 1, len);
			}
			assert_int_equal(netoops_reasm_expire(r, TIMEOUT, &x),
					 1);
			assert_non_null(x);
			for (i = 0; i < total; i++) {
				if (have[i]) {
					assert_int_equal(x->payload[i], src[i]);
					continue;
				}
				assert_int_equal(x->payload[i], 0);
				missing++;
				if (i == 0 || have[i - 1]) {
					assert_true(ngaps < x->nr_gaps);
					assert_int_equal(x->gaps[ngaps].off, i);
					ngaps++;
				}
				if (i + 1 == total || have[i + 1])
					assert_int_equal(x->gaps[ngaps - 1].off +
							 x->gaps[ngaps - 1].len,
							 i + 1);
			}
			assert_int_equal(x->nr_gaps, ngaps);
			assert_int_equal(x->missing_bytes, missing);
			netoops_dump_free(x);
			netoops_reasm_free(r);
			/* restore the flipped bytes for the next round */
			for (i = 0; i < 23456; i++)
				src[i] = (uint8_t)(i * 7 + 1) | 1;
		}
	}
	free(have);
	free(src);
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_any_order, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_duplicates, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_conflicts, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_loss, setup, teardown),
		cmocka_unit_test_setup_teardown(test_flush_and_sources, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_limits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_admission, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_admission_auth, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_partial_filter, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_downgrade, setup,
						teardown),
		cmocka_unit_test(test_overlap),
		cmocka_unit_test(test_gap_edges),
		cmocka_unit_test(test_partial_inflate),
		cmocka_unit_test(test_inflate),
		cmocka_unit_test_setup_teardown(test_dump_text_plain, setup,
						teardown),
	};

	return cmocka_run_group_tests_name("reasm", tests, NULL, NULL);
}
