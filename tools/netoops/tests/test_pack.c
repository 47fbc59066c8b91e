// SPDX-License-Identifier: GPL-2.0
/*
 * Packed dumps (lib/netoops_pack.c): zero-run squeezing round-trips any
 * buffer within its bound and refuses malformed input; a dump packed and
 * unpacked is the dump it was (every field, gaps, payload, metadata byte
 * for byte); slabs are shared, kept for reuse up to NETOOPS_PACK_KEEP,
 * unmapped past that; a dump larger than a slab gets a mapping of its own;
 * blocks are released from other threads.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "netoops_pack.h"

static uint32_t seed = 2463534242u;

static uint32_t rnd(void)
{
	seed ^= seed << 13;
	seed ^= seed >> 17;
	seed ^= seed << 5;
	return seed;
}

/* @len bytes, zero with probability @zero_pct, in runs. */
static void fill(uint8_t *b, size_t len, unsigned int zero_pct)
{
	size_t i = 0;

	while (i < len) {
		size_t run = 1 + rnd() % (rnd() % 8 ? 16 : 70000);
		bool zero = rnd() % 100 < zero_pct;

		for (; run-- && i < len; i++)
			b[i] = zero ? 0 : (uint8_t)(1 + rnd() % 255);
	}
}

static void test_squeeze(void **state)
{
	static const size_t lens[] = {
		0, 1, 2, 3, 4, 5, 7, 8, 9, 100, 11136, 65535, 65536, 65537,
		140000, 300000,
	};
	size_t li, bound, n;
	(void)state;

	for (li = 0; li < sizeof(lens) / sizeof(*lens); li++) {
		for (unsigned int pct = 0; pct <= 100; pct += 10) {
			size_t len = lens[li];
			uint8_t *in = malloc(len + 1), *back = malloc(len + 1);
			uint8_t *out;

			bound = netoops_squeeze_bound(len);
			out = malloc(bound);
			assert_non_null(in);
			assert_non_null(back);
			assert_non_null(out);
			fill(in, len, pct);
			n = netoops_squeeze(in, len, out);
			assert_true(n <= bound);
			memset(back, 0xaa, len + 1);
			assert_int_equal(netoops_unsqueeze(out, n, back, len), 0);
			assert_memory_equal(back, in, len);
			assert_int_equal(back[len], 0xaa);	/* no overrun */
			/* mostly zeros: much smaller */
			if (pct == 100)
				assert_true(n <= 4 * (len / 65535 + 1));
			/* the wrong length, or cut short: refused */
			if (len) {
				assert_int_equal(netoops_unsqueeze(out, n, back,
								   len - 1),
						 -EBADMSG);
				assert_int_equal(netoops_unsqueeze(out, n - 1,
								   back, len),
						 -EBADMSG);
			}
			free(in);
			free(back);
			free(out);
		}
	}
}

/* Garbage never writes past @len. */
static void test_unsqueeze_garbage(void **state)
{
	uint8_t in[64], out[100];
	(void)state;

	for (int round = 0; round < 20000; round++) {
		size_t n = rnd() % sizeof(in), len = rnd() % 90;

		for (size_t i = 0; i < n; i++)
			in[i] = (uint8_t)(rnd() % 4 ? rnd() % 8 : rnd());
		memset(out, 0x55, sizeof(out));
		(void)netoops_unsqueeze(in, n, out, len);
		for (size_t i = len; i < sizeof(out); i++)
			assert_int_equal(out[i], 0x55);
	}
}

static struct netoops_dump *make_dump(size_t payload_len, size_t nr_gaps,
				      bool meta)
{
	struct netoops_dump *d = calloc(1, sizeof(*d));
	size_t i;

	assert_non_null(d);
	d->src_key_len = 1 + rnd() % NETOOPS_SRC_KEY_MAX;
	for (i = 0; i < d->src_key_len; i++)
		d->src_key[i] = (uint8_t)rnd();
	for (i = 0; i < 16; i++)
		d->boot_id[i] = (uint8_t)rnd();
	d->dump_id = (uint64_t)rnd() << 32 | rnd();
	d->complete = !nr_gaps;
	d->has_meta = meta;
	if (meta) {
		fill((uint8_t *)&d->meta, sizeof(d->meta), 90);
		snprintf(d->meta.hostname, sizeof(d->meta.hostname), "h%u",
			 rnd());
	}
	d->payload_len = payload_len;
	d->payload = payload_len ? malloc(payload_len) : NULL;
	for (i = 0; i < payload_len; i++)
		d->payload[i] = (uint8_t)rnd();
	d->nr_gaps = nr_gaps;
	d->gaps = nr_gaps ? calloc(nr_gaps, sizeof(*d->gaps)) : NULL;
	for (i = 0; i < nr_gaps; i++) {
		d->gaps[i].off = rnd();
		d->gaps[i].len = rnd();
	}
	d->missing_bytes = rnd();
	d->pkt_count = rnd();
	d->pkts_received = rnd();
	d->duplicates = rnd();
	d->pkts_rebuilt = rnd();
	d->first_ms = (uint64_t)rnd() << 20;
	d->last_ms = (uint64_t)rnd() << 21;
	d->authenticated = rnd() % 2;
	d->auth_key_id = rnd();
	return d;
}

static void same_dump(const struct netoops_dump *a,
		      const struct netoops_dump *b)
{
	assert_int_equal(a->src_key_len, b->src_key_len);
	assert_memory_equal(a->src_key, b->src_key, a->src_key_len);
	assert_memory_equal(a->boot_id, b->boot_id, 16);
	assert_true(a->dump_id == b->dump_id);
	assert_int_equal(a->complete, b->complete);
	assert_int_equal(a->has_meta, b->has_meta);
	assert_memory_equal(&a->meta, &b->meta, sizeof(a->meta));
	assert_int_equal(a->payload_len, b->payload_len);
	if (a->payload_len)
		assert_memory_equal(a->payload, b->payload, a->payload_len);
	assert_int_equal(a->nr_gaps, b->nr_gaps);
	if (a->nr_gaps)
		assert_memory_equal(a->gaps, b->gaps,
				    a->nr_gaps * sizeof(*a->gaps));
	assert_int_equal(a->missing_bytes, b->missing_bytes);
	assert_int_equal(a->pkt_count, b->pkt_count);
	assert_int_equal(a->pkts_received, b->pkts_received);
	assert_int_equal(a->duplicates, b->duplicates);
	assert_int_equal(a->pkts_rebuilt, b->pkts_rebuilt);
	assert_true(a->first_ms == b->first_ms);
	assert_true(a->last_ms == b->last_ms);
	assert_int_equal(a->authenticated, b->authenticated);
	assert_int_equal(a->auth_key_id, b->auth_key_id);
}

static void test_roundtrip(void **state)
{
	struct netoops_pack_arena *a;
	struct netoops_dump *view = malloc(sizeof(*view));
	(void)state;

	assert_non_null(view);
	assert_int_equal(netoops_pack_arena_new(&a), 0);
	for (int round = 0; round < 300; round++) {
		size_t plen = round % 7 == 0 ? 0 : rnd() % 40000;
		struct netoops_dump *d = make_dump(plen, rnd() % 4 ? 0 :
						   rnd() % 40, rnd() % 3 != 0);
		struct netoops_packed *p = netoops_dump_pack(a, d);

		assert_non_null(p);
		/* the metadata costs what it holds, not 11 KiB */
		assert_true(netoops_packed_size(p) <
			    plen + d->nr_gaps * 8 + 256 +
			    netoops_squeeze_bound(sizeof(d->meta)));
		memset(view, 0xee, sizeof(*view));
		same_dump(d, netoops_dump_unpack(p, view));
		netoops_packed_release(p);
		netoops_dump_free(d);
	}
	free(view);
	netoops_pack_arena_free(a);
}

/* The filler keeps slabs ready; packing takes them and still works. */
static void test_prefault(void **state)
{
	enum { N = 300 };
	struct netoops_packed **p = calloc(N, sizeof(*p));
	struct netoops_dump *d = make_dump(23000, 2, true);
	struct netoops_dump *view = malloc(sizeof(*view));
	struct timespec ms = { 0, 1000 * 1000 };
	struct netoops_pack_stats st;
	struct netoops_pack_arena *a;
	size_t i;
	int waited;
	(void)state;

	assert_non_null(p);
	assert_non_null(view);
	assert_int_equal(netoops_pack_arena_new(&a), 0);
	assert_int_equal(netoops_pack_arena_prefault(a), 0);
	assert_int_equal(netoops_pack_arena_prefault(a), 0);	/* once */
	for (waited = 0; waited < 10000; waited++) {
		netoops_pack_arena_stats(a, &st);
		if (st.free_slabs >= NETOOPS_PACK_PREFAULT)
			break;
		nanosleep(&ms, NULL);
	}
	assert_int_equal(st.free_slabs, NETOOPS_PACK_PREFAULT);
	assert_int_equal(st.slabs, NETOOPS_PACK_PREFAULT);
	for (i = 0; i < N; i++)
		assert_non_null(p[i] = netoops_dump_pack(a, d));
	netoops_pack_arena_stats(a, &st);
	assert_true(st.reused >= 1);		/* a ready slab was taken */
	for (i = 0; i < N; i++) {
		memset(view, 0xee, sizeof(*view));
		same_dump(d, netoops_dump_unpack(p[i], view));
		netoops_packed_release(p[i]);
	}
	netoops_pack_arena_stats(a, &st);
	assert_true(st.free_slabs <= NETOOPS_PACK_KEEP);
	netoops_dump_free(d);
	free(view);
	free(p);
	netoops_pack_arena_free(a);		/* stops the filler */
}

/* What a storm does: many dumps in, released in another order. */
static void test_slabs(void **state)
{
	enum { N = 600 };
	struct netoops_packed **p = calloc(N, sizeof(*p));
	struct netoops_dump *d = make_dump(23000, 0, true);
	struct netoops_pack_stats st;
	struct netoops_pack_arena *a;
	size_t i, per_slab;
	(void)state;

	assert_non_null(p);
	assert_int_equal(netoops_pack_arena_new(&a), 0);
	for (i = 0; i < N; i++)
		assert_non_null(p[i] = netoops_dump_pack(a, d));
	netoops_pack_arena_stats(a, &st);
	per_slab = NETOOPS_PACK_SLAB / netoops_packed_size(p[0]);
	/* packed tight: one slab per per_slab dumps, plus the last */
	assert_true(st.slabs <= N / per_slab + 1);
	assert_true(st.bytes == st.slabs * NETOOPS_PACK_SLAB);
	/* shuffled release: memory comes back, a few slabs kept */
	for (i = N - 1; i > 0; i--) {
		size_t j = rnd() % (i + 1);
		struct netoops_packed *t = p[i];

		p[i] = p[j];
		p[j] = t;
	}
	for (i = 0; i < N; i++)
		netoops_packed_release(p[i]);
	netoops_pack_arena_stats(a, &st);
	assert_true(st.free_slabs <= NETOOPS_PACK_KEEP);
	assert_int_equal(st.slabs, st.free_slabs + 1);	/* + current */
	/* the next ones reuse kept slabs */
	for (i = 0; i < N; i++)
		assert_non_null(p[i] = netoops_dump_pack(a, d));
	netoops_pack_arena_stats(a, &st);
	assert_true(st.reused >= 1);
	for (i = 0; i < N; i++)
		netoops_packed_release(p[i]);
	netoops_dump_free(d);

	/* larger than a slab: its own mapping, gone when released */
	d = make_dump(NETOOPS_PACK_SLAB + 12345, 3, true);
	netoops_pack_arena_stats(a, &st);
	{
		uint64_t before = st.slabs;
		struct netoops_packed *big = netoops_dump_pack(a, d);
		struct netoops_dump *view = malloc(sizeof(*view));

		assert_non_null(big);
		assert_non_null(view);
		netoops_pack_arena_stats(a, &st);
		assert_int_equal(st.slabs, before + 1);
		same_dump(d, netoops_dump_unpack(big, view));
		netoops_packed_release(big);
		netoops_pack_arena_stats(a, &st);
		assert_int_equal(st.slabs, before);
		free(view);
	}
	netoops_dump_free(d);
	free(p);
	netoops_pack_arena_free(a);
}

struct rel {
	struct netoops_packed **p;
	size_t from, n;
};

static void *release_some(void *arg)
{
	struct rel *r = arg;

	for (size_t i = r->from; i < r->from + r->n; i++)
		netoops_packed_release(r->p[i]);
	return NULL;
}

/* Packed by one thread, released by two others at the same time. */
static void test_threads(void **state)
{
	enum { N = 4000 };
	struct netoops_packed **p = calloc(N, sizeof(*p));
	struct netoops_dump *d = make_dump(5000, 1, true);
	struct netoops_pack_arena *a;
	struct netoops_pack_stats st;
	struct rel r[2] = { { p, 0, N / 2 }, { p, N / 2, N / 2 } };
	pthread_t t[2];
	(void)state;

	assert_non_null(p);
	assert_int_equal(netoops_pack_arena_new(&a), 0);
	for (size_t i = 0; i < N; i++)
		assert_non_null(p[i] = netoops_dump_pack(a, d));
	assert_int_equal(pthread_create(&t[0], NULL, release_some, &r[0]), 0);
	assert_int_equal(pthread_create(&t[1], NULL, release_some, &r[1]), 0);
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	netoops_pack_arena_stats(a, &st);
	assert_int_equal(st.slabs, st.free_slabs + 1);
	netoops_dump_free(d);
	free(p);
	netoops_pack_arena_free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_squeeze),
		cmocka_unit_test(test_unsqueeze_garbage),
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_slabs),
		cmocka_unit_test(test_prefault),
		cmocka_unit_test(test_threads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
