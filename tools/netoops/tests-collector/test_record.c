// SPDX-License-Identifier: GPL-2.0
/*
 * Record tests: real encoded packets -> decoder library -> store record.
 * Checks text, metadata, gaps in log coordinates, the signature and
 * whether the dump was authenticated.
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

#include "gen_dump.h"
#include "store/record.h"

static const uint8_t boot[16] = { 0xb0, 0x07, 1, 2, 3, 4, 5, 6, 7, 8, 9 };

/* Feeds @p except the packets in @skip; returns the finished dump. */
static struct netoops_dump *reassemble(const struct gen_pkts *p,
				       const int *skip, int nskip)
{
	struct netoops_reasm *r;
	struct netoops_dump *done = NULL, *nd = NULL;
	struct netoops_packet pk;
	size_t i;
	int k, rc;

	assert_int_equal(netoops_reasm_new(NULL, &r), 0);
	for (i = 0; i < p->n; i++) {
		for (k = 0; k < nskip; k++)
			if ((int)i == skip[k])
				break;
		if (k < nskip)
			continue;
		assert_int_equal(netoops_decode_packet(p->buf[i], p->len[i],
						       &pk), 0);
		rc = netoops_reasm_add(r, "k", 1, &pk, 1, &done, NULL);
		assert_true(rc >= 0);
		if (rc == NETOOPS_REASM_COMPLETE)
			nd = done;
	}
	if (!nd)
		assert_int_equal(netoops_reasm_flush(r, &nd), 1);
	netoops_reasm_free(r);
	return nd;
}

static void test_complete_deflate(void **state)
{
	struct gen_opts o = { .hostname = "web-1", .release = "6.12.118",
			      .reason = 2, .compress = true,
			      .user_key = "rack", .user_value = "r7",
			      .regs = true };
	struct netoops_dump *nd;
	struct nstore_dump *d;
	struct gen_pkts p;
	size_t len;
	char *log;
	int perr = -1;

	(void)state;
	log = gen_log(128 * 1024, "netoops_test_crash", 1, &len);
	assert_int_equal(gen_dump(&p, boot, 5, &o, log, len), 0);
	assert_true(p.n > 2);
	nd = reassemble(&p, NULL, 0);
	assert_true(nd->complete);
	/* unsigned datagrams, never verified */
	assert_false(nd->authenticated);
	/* as the reassembler says of a dump verified with key 42 */
	nd->authenticated = true;
	nd->auth_key_id = 42;
	assert_int_equal(nstore_record_from_dump(nd, 1000, &d, &perr), 0);
	netoops_dump_free(nd);
	assert_true(d->authenticated);
	assert_int_equal(d->auth_key_id, 42);
	assert_int_equal(perr, 0);
	assert_true(d->complete);
	assert_int_equal(d->nr_gaps, 0);
	assert_int_equal(d->log_len, len);
	assert_memory_equal(d->log, log, len);
	assert_string_equal(d->hostname, "web-1");
	assert_string_equal(d->release, "6.12.118");
	assert_int_equal(d->reason, 2);
	assert_int_equal(d->nr_user, 1);
	assert_string_equal(d->user[0].key, "rack");
	assert_string_equal(d->user[0].value, "r7");
	assert_int_equal(d->nr_regs, NETOOPS_X86_64_NR_REGS);
	assert_true(d->regs[NETOOPS_X86_64_REG_RIP] == 0xffffffffc0ffee00ull);
	assert_int_equal(d->received_ms, 1000);
	assert_int_equal(d->pkt_count, p.n);
	assert_non_null(d->sig_hash);
	assert_non_null(strstr(d->sig_title, "netoops_test_crash"));
	nstore_dump_free(d);
	gen_pkts_free(&p);
	free(log);
}

/*
 * The TIME wall_sec a sender chooses: out of store.h's range (years 1900
 * to 9999) it is no time, so that nothing computes wall_sec * 1000 on
 * INT64_MAX or INT64_MIN; the range's ends are times.
 */
static void test_wall_sec_range(void **state)
{
	static const struct {
		int64_t sec;
		bool ok;
	} cases[] = {
		{ INT64_MAX, false }, { INT64_MIN, false },
		{ INT64_MAX / 1000 + 1, false },
		{ INT64_MIN / 1000 - 1, false },
		{ NSTORE_WALL_SEC_MAX + 1, false },
		{ NSTORE_WALL_SEC_MIN - 1, false },
		{ NSTORE_WALL_SEC_MAX, true }, { NSTORE_WALL_SEC_MIN, true },
		{ 0, true }, { 1764756000, true },
	};
	struct gen_opts o = { .hostname = "t", .release = "6.12" };
	struct netoops_dump *nd;
	struct nstore_dump *d;
	struct gen_pkts p;
	size_t len, i;
	char *log;

	(void)state;
	log = gen_log(2000, "time_bomb", 1, &len);
	assert_int_equal(gen_dump(&p, boot, 9, &o, log, len), 0);
	nd = reassemble(&p, NULL, 0);
	assert_true(nd->has_meta);
	assert_true(nd->meta.present & NETOOPS_META_HAS(NETOOPS_TLV_TIME));
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		nd->meta.wall_sec = cases[i].sec;
		assert_int_equal(nstore_record_from_dump(nd, 1000, &d, NULL),
				 0);
		if (d->have_time != cases[i].ok)
			fail_msg("wall_sec %lld: have_time %d",
				 (long long)cases[i].sec, d->have_time);
		if (d->have_time)
			assert_true(d->wall_sec == cases[i].sec);
		nstore_dump_free(d);
	}
	netoops_dump_free(nd);
	gen_pkts_free(&p);
	free(log);
}

static void test_plain_gaps(void **state)
{
	struct gen_opts o = { .hostname = "db-2", .release = "6.1.0",
			      .reason = 1, .max_pkt = 512 };
	struct netoops_packet a, b;
	struct netoops_dump *nd;
	struct nstore_dump *d;
	struct gen_pkts p;
	int skip[2] = { 2, 5 }, perr = -1;
	size_t len;
	char *log;

	(void)state;
	log = gen_log(8000, "plain_func", 2, &len);
	assert_int_equal(gen_dump(&p, boot, 6, &o, log, len), 0);
	assert_true(p.n > 7);
	assert_int_equal(netoops_decode_packet(p.buf[2], p.len[2], &a), 0);
	assert_int_equal(netoops_decode_packet(p.buf[5], p.len[5], &b), 0);
	nd = reassemble(&p, skip, 2);
	assert_false(nd->complete);
	assert_false(nd->authenticated);
	nd->auth_key_id = 42;	/* meaningless when not authenticated */
	assert_int_equal(nstore_record_from_dump(nd, 0, &d, &perr), 0);
	netoops_dump_free(nd);
	assert_false(d->authenticated);
	assert_int_equal(d->auth_key_id, 0);
	assert_int_equal(perr, 0);
	assert_false(d->complete);
	assert_int_equal(d->pkt_received, p.n - 2);
	/* Gaps in log coordinates: the first at its payload offset, the
	 * second moved back by the bytes the first one lacks.
	 */
	assert_int_equal(d->nr_gaps, 2);
	assert_int_equal(d->gaps[0].off, a.payload_off);
	assert_int_equal(d->gaps[0].len, a.chunk_len);
	assert_int_equal(d->gaps[1].off, b.payload_off - a.chunk_len);
	assert_int_equal(d->gaps[1].len, b.chunk_len);
	assert_int_equal(d->log_len, len - a.chunk_len - b.chunk_len);
	assert_memory_equal(d->log, log, a.payload_off);
	assert_memory_equal(d->log + d->gaps[1].off,
			    log + b.payload_off + b.chunk_len,
			    len - b.payload_off - b.chunk_len);
	nstore_dump_free(d);
	gen_pkts_free(&p);
	free(log);
}

static void test_deflate_gap(void **state)
{
	struct gen_opts o = { .hostname = "h", .release = "r", .reason = 1,
			      .compress = true, .max_pkt = 512 };
	struct netoops_dump *nd;
	struct nstore_dump *d;
	struct gen_pkts p;
	int skip[1] = { 3 }, perr = -1;
	size_t len;
	char *log;

	(void)state;
	log = gen_log(64 * 1024, "deflate_func", 3, &len);
	assert_int_equal(gen_dump(&p, boot, 7, &o, log, len), 0);
	assert_true(p.n > 5);
	nd = reassemble(&p, skip, 1);
	assert_int_equal(nstore_record_from_dump(nd, 0, &d, &perr), 0);
	netoops_dump_free(nd);
	assert_int_equal(perr, 0);	/* a hole is not a payload error */
	assert_false(d->complete);
	/* What precedes the hole inflates; the rest is one gap whose length
	 * is known from orig_len.
	 */
	assert_true(d->log_len > 0 && d->log_len < len);
	assert_memory_equal(d->log, log, d->log_len);
	assert_int_equal(d->nr_gaps, 1);
	assert_int_equal(d->gaps[0].off, d->log_len);
	assert_int_equal(d->gaps[0].len, len - d->log_len);
	nstore_dump_free(d);
	gen_pkts_free(&p);
	free(log);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_complete_deflate),
		cmocka_unit_test(test_wall_sec_range),
		cmocka_unit_test(test_plain_gaps),
		cmocka_unit_test(test_deflate_gap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
