// SPDX-License-Identifier: GPL-2.0
/*
 * Golden vectors (tests/vectors/): the encoder must reproduce the committed
 * packets byte for byte from the same inputs, and the decoder must read them
 * back.  Files are named as vector_name.h says, and a vector has no other
 * file.  A format change that alters the bytes fails here; regenerate with
 * `make -C tools/netoops vectors` only when the change is intended.
 *
 * Directory: $NETOOPS_VECTORS, else ../../tests/vectors.
 */
#include <dirent.h>
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
#include "vector_name.h"

static const char *vec_dir(void)
{
	const char *d = getenv("NETOOPS_VECTORS");

	return d && *d ? d : "../../tests/vectors";
}

static const struct tu_vector *find(const char *name)
{
	for (size_t i = 0; i < tu_nr_vectors; i++)
		if (!strcmp(tu_vectors[i].name, name))
			return &tu_vectors[i];
	return NULL;
}

/* Files of vector @name in the directory: <name>-*.bin. */
static size_t count_files(const char *name)
{
	size_t n = 0, nl = strlen(name), fl;
	DIR *dir = opendir(vec_dir());
	struct dirent *de;

	if (!dir)
		fail_msg("%s: cannot list", vec_dir());
	while ((de = readdir(dir))) {
		fl = strlen(de->d_name);
		if (fl > nl + 5 && !strncmp(de->d_name, name, nl) &&
		    de->d_name[nl] == '-' && !strcmp(de->d_name + fl - 4, ".bin"))
			n++;
	}
	closedir(dir);
	return n;
}

/* Compare every committed file of a vector with a fresh encoding. */
static void compare_files(const struct tu_vector *v, struct tu_dump *d)
{
	char path[4096];
	uint8_t *buf;
	size_t len, i;

	assert_int_equal(v->build(d), 0);
	for (i = 0; i < d->n; i++) {
		assert_true(tu_vector_path(path, sizeof(path), vec_dir(),
					   v->name, d->pkt[i], d->len[i]) > 0);
		if (tu_read_file(path, &buf, &len))
			fail_msg("%s: cannot read (run from tools/netoops or "
				 "set NETOOPS_VECTORS)", path);
		assert_int_equal(len, d->len[i]);
		assert_memory_equal(buf, d->pkt[i], len);
		free(buf);
	}
	/* no stale extra packet file */
	assert_int_equal(count_files(v->name), d->n);
}

static void test_small(void **state)
{
	struct netoops_packet *p = malloc(sizeof(*p));
	struct tu_dump d;
	(void)state;

	assert_non_null(p);
	compare_files(find("small"), &d);
	assert_int_equal(d.n, 1);
	assert_int_equal(netoops_decode_packet(d.pkt[0], d.len[0], p), 0);
	assert_int_equal(p->pkt_count, 1);
	assert_int_equal(p->dump_id, 1);
	assert_int_equal(p->flags, NETOOPS_F_META);
	assert_true(p->has_meta);
	assert_int_equal(p->meta.reason, NETOOPS_REASON_PANIC);
	assert_int_equal(p->meta.wall_sec, 1796292000);
	assert_string_equal(p->meta.release, "6.12.118+deb12-amd64");
	assert_string_equal(p->meta.arch, "x86_64");
	assert_string_equal(p->meta.hostname, "guest-1");
	assert_int_equal(p->meta.compression, NETOOPS_COMPRESS_NONE);
	assert_int_equal(p->payload_total, p->chunk_len);
	assert_int_equal(p->meta.orig_len, p->chunk_len);
	assert_memory_equal(p->chunk, "Kernel panic - not syncing", 26);
	tu_dump_clear(&d);
	free(p);
}

static void test_compressed(void **state)
{
	struct netoops_packet *p = malloc(sizeof(*p));
	struct netoops_reasm *r;
	struct netoops_dump *x = NULL;
	uint8_t text[6000], out[6000];
	struct tu_dump d;
	size_t n;
	(void)state;

	assert_non_null(p);
	compare_files(find("compressed"), &d);
	assert_true(d.n >= 3);
	assert_int_equal(netoops_reasm_new(NULL, &r), 0);
	/* reverse order */
	for (size_t i = d.n; i-- > 0;) {
		assert_int_equal(netoops_decode_packet(d.pkt[i], d.len[i], p),
				 0);
		assert_int_equal(p->has_meta, i == 0 || i == d.n - 1);
		assert_true(d.len[i] <= 512);
		netoops_reasm_add(r, "v", 1, p, 0, &x, NULL);
	}
	assert_non_null(x);
	assert_true(x->complete);
	assert_int_equal(x->meta.compression, NETOOPS_COMPRESS_DEFLATE);
	assert_int_equal(x->meta.orig_len, sizeof(text));
	assert_int_equal(netoops_dump_text(x, out, sizeof(out), &n), 0);
	assert_int_equal(n, sizeof(text));
	tu_text(text, sizeof(text), 42);
	assert_memory_equal(out, text, sizeof(text));
	netoops_dump_free(x);
	netoops_reasm_free(r);
	tu_dump_clear(&d);
	free(p);
}

static void test_user_regs(void **state)
{
	struct netoops_packet *p = malloc(sizeof(*p));
	struct tu_dump d;
	(void)state;

	assert_non_null(p);
	compare_files(find("user_regs"), &d);
	assert_int_equal(d.n, 1);
	assert_int_equal(netoops_decode_packet(d.pkt[0], d.len[0], p), 0);
	assert_int_equal(tu_meta_full_check(&p->meta, NETOOPS_COMPRESS_NONE,
					    (uint32_t)p->chunk_len), 0);
	assert_int_equal(p->meta.regs[NETOOPS_X86_64_REG_RIP],
			 0xffffffff81a9b0c6ull);
	tu_dump_clear(&d);
	free(p);
}

static void test_vendor(void **state)
{
	struct netoops_packet *p = malloc(sizeof(*p));
	struct tu_dump d;
	(void)state;

	assert_non_null(p);
	compare_files(find("vendor"), &d);
	assert_int_equal(netoops_decode_packet(d.pkt[0], d.len[0], p), 0);
	assert_int_equal(p->skipped_tlvs, 1);
	assert_int_equal(p->meta.reason, NETOOPS_REASON_SOFT);
	assert_int_equal(p->chunk_len, 4);
	assert_memory_equal(p->chunk, "test", 4);
	tu_dump_clear(&d);
	free(p);
}

static void test_critical(void **state)
{
	struct netoops_packet *p = malloc(sizeof(*p));
	struct tu_dump d;
	(void)state;

	assert_non_null(p);
	compare_files(find("critical"), &d);
	assert_int_equal(netoops_decode_packet(d.pkt[0], d.len[0], p),
			 -EOPNOTSUPP);
	assert_int_equal(p->err, NETOOPS_ERR_TLV_CRITICAL_UNKNOWN);
	assert_int_equal(p->err_tlv, NETOOPS_TLV_CRITICAL | 0x0100);
	assert_true(find("critical")->refused);
	tu_dump_clear(&d);
	free(p);
}

static int vec_lookup(void *ctx, uint32_t key_id,
		      const struct netoops_packet *p, struct netoops_key *ret)
{
	(void)ctx;
	(void)p;
	if (key_id != tu_key_id)
		return -ENOKEY;
	ret->key = tu_key;
	ret->key_len = sizeof(tu_key);
	return 0;
}

/*
 * auth, parity, auth_parity: byte-exact, every datagram verifies (or has no
 * MAC), and with the first data datagram lost the dump is still rebuilt
 * complete when it has parity.
 */
static void check_trust_vector(const char *name, bool auth, bool parity)
{
	struct netoops_packet *p = malloc(sizeof(*p));
	struct netoops_reasm *r;
	struct netoops_dump *done = NULL;
	enum netoops_err why;
	struct tu_dump d;
	size_t i, npar = 0;
	int rc = -1;

	assert_non_null(p);
	compare_files(find(name), &d);
	assert_int_equal(netoops_reasm_new(NULL, &r), 0);
	assert_int_equal(netoops_reasm_enable_fec(r), 0);
	for (i = 0; i < d.n; i++) {
		assert_int_equal(netoops_decode_packet(d.pkt[i], d.len[i], p),
				 0);
		assert_int_equal(p->has_mac, auth);
		assert_int_equal(netoops_auth_check(p, auth, vec_lookup, NULL,
						    &why), 0);
		npar += p->is_parity;
		assert_int_equal(!!(p->flags & NETOOPS_F_FEC),
				 parity && !p->is_parity);
		if (i == 0 && parity)
			continue;	/* lost */
		rc = netoops_reasm_add(r, "v", 1, p, 1, &done, NULL);
		if (done)
			break;
	}
	assert_int_equal(rc, NETOOPS_REASM_COMPLETE);
	assert_true(done->complete);
	assert_int_equal(done->pkts_rebuilt, parity ? 1 : 0);
	assert_int_equal(done->meta.orig_len, 6000);
	if (parity)
		assert_true(npar >= 1);
	netoops_dump_free(done);
	netoops_reasm_free(r);
	tu_dump_clear(&d);
	free(p);
}

static void test_auth(void **state)
{
	(void)state;
	check_trust_vector("auth", true, false);
}

static void test_parity(void **state)
{
	(void)state;
	check_trust_vector("parity", false, true);
}

static void test_auth_parity(void **state)
{
	(void)state;
	check_trust_vector("auth_parity", true, true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_small),
		cmocka_unit_test(test_compressed),
		cmocka_unit_test(test_user_regs),
		cmocka_unit_test(test_vendor),
		cmocka_unit_test(test_critical),
		cmocka_unit_test(test_auth),
		cmocka_unit_test(test_parity),
		cmocka_unit_test(test_auth_parity),
	};

	return cmocka_run_group_tests_name("vectors", tests, NULL, NULL);
}
