// SPDX-License-Identifier: GPL-2.0
/*
 * Spool tests (store/spool.h): every field of a record survives the round
 * trip; a cut or corrupt record or batch file is refused, never read
 * wrong; batches in order across a reopen; one process per spool; what a
 * crash left half written is removed; resume files merge datagrams.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include <linux/netoops.h>

#include "gen_dump.h"
#include "store/spool.h"

struct fx {
	char dir[64];
	char spool[96];
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	strcpy(f->dir, "/tmp/netoops-test-spool-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->spool, sizeof(f->spool), "%s/s", f->dir);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	char cmd[160];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	assert_int_equal(system(cmd), 0);
	free(f);
	return 0;
}

/* A record with every field set, and a log holding NUL bytes. */
static struct nstore_dump *full_record(uint8_t boot, uint64_t dump_id)
{
	static const char log[] = "line one\n\0binary\xff\nBUG: oops\n";
	struct nstore_dump *d = nstore_dump_new();
	int i;

	assert_non_null(d);
	memset(d->boot_id, boot, 16);
	d->boot_id[15] = 0x5a;
	d->dump_id = dump_id;
	d->hostname = strdup("spool-host");
	d->release = strdup("6.12.0");
	d->version = strdup("#1 SMP");
	d->arch = NULL;		/* not sent */
	d->collectors = strdup("collector-a");
	d->pieces = malloc(5);
	memcpy(d->pieces, "NOPS\0", 5);	/* opaque to the spool */
	d->pieces_len = 5;
	d->reason = NETOOPS_REASON_PANIC;
	d->oops_count = 3;
	d->part = 1;
	d->cpu = 7;
	d->have_time = true;
	d->wall_sec = -5;
	d->wall_nsec = 999999999;
	d->uptime_ns = UINT64_MAX - 1;
	d->have_taint = true;
	d->taint = 0x8001;
	d->cpu_desc = strdup("GenuineIntel family 6");
	d->regs_arch = NETOOPS_ARCH_X86_64;
	d->regs_context = 1;
	d->nr_regs = 21;
	d->regs = calloc(21, sizeof(*d->regs));
	for (i = 0; i < 21; i++)
		d->regs[i] = 0x1111111111111111ull * i;
	assert_int_equal(nstore_dump_add_user(d, "rack", 4, "r42", 3), 0);
	assert_int_equal(nstore_dump_add_user(d, "empty", 5, "", 0), 0);
	d->complete = false;
	d->pkt_count = 9;
	d->pkt_received = 5;
	d->compression = NETOOPS_COMPRESS_DEFLATE;
	d->payload_total = 4000;
	assert_int_equal(nstore_dump_add_gap(d, 10, 100), 0);
	assert_int_equal(nstore_dump_add_gap(d, 200, 0), 0);
	d->log_len = sizeof(log) - 1;
	d->log = malloc(d->log_len);
	memcpy(d->log, log, d->log_len);
	d->log_z = malloc(5);
	memcpy(d->log_z, "\x01\x02\x00\x03\x04", 5);
	d->log_z_len = 5;
	d->src = strdup("192.0.2.7");
	d->received_ms = 1764756000123LL;
	d->stored_ms = 1764756000456LL;
	d->sig_title = strdup("BUG: oops");
	d->sig_frames = strdup("f1\nf2");
	d->sig_hash = strdup("abcdef");
	d->authenticated = true;
	d->auth_key_id = 77;
	return d;
}

static void assert_str(const char *a, const char *b)
{
	if (!a || !b)
		assert_true(a == b);
	else
		assert_string_equal(a, b);
}

static void assert_same(const struct nstore_dump *a,
			const struct nstore_dump *b)
{
	size_t i;

	assert_memory_equal(a->boot_id, b->boot_id, 16);
	assert_int_equal(a->dump_id, b->dump_id);
	assert_str(a->hostname, b->hostname);
	assert_str(a->release, b->release);
	assert_str(a->version, b->version);
	assert_str(a->arch, b->arch);
	assert_int_equal(a->reason, b->reason);
	assert_int_equal(a->oops_count, b->oops_count);
	assert_int_equal(a->part, b->part);
	assert_int_equal(a->cpu, b->cpu);
	assert_int_equal(a->have_time, b->have_time);
	assert_int_equal(a->wall_sec, b->wall_sec);
	assert_int_equal(a->wall_nsec, b->wall_nsec);
	assert_int_equal(a->uptime_ns, b->uptime_ns);
	assert_int_equal(a->have_taint, b->have_taint);
	assert_int_equal(a->taint, b->taint);
	assert_str(a->cpu_desc, b->cpu_desc);
	assert_int_equal(a->regs_arch, b->regs_arch);
	assert_int_equal(a->regs_context, b->regs_context);
	assert_int_equal(a->nr_regs, b->nr_regs);
	for (i = 0; i < a->nr_regs; i++)
		assert_int_equal(a->regs[i], b->regs[i]);
	assert_int_equal(a->nr_user, b->nr_user);
	for (i = 0; i < a->nr_user; i++) {
		assert_str(a->user[i].key, b->user[i].key);
		assert_str(a->user[i].value, b->user[i].value);
	}
	assert_int_equal(a->complete, b->complete);
	assert_int_equal(a->pkt_count, b->pkt_count);
	assert_int_equal(a->pkt_received, b->pkt_received);
	assert_int_equal(a->compression, b->compression);
	assert_int_equal(a->payload_total, b->payload_total);
	assert_int_equal(a->nr_gaps, b->nr_gaps);
	for (i = 0; i < a->nr_gaps; i++) {
		assert_int_equal(a->gaps[i].off, b->gaps[i].off);
		assert_int_equal(a->gaps[i].len, b->gaps[i].len);
	}
	assert_int_equal(a->log_len, b->log_len);
	assert_int_equal(!a->log, !b->log);
	if (a->log)
		assert_memory_equal(a->log, b->log, a->log_len);
	assert_int_equal(a->log_z_len, b->log_z_len);
	assert_int_equal(!a->log_z, !b->log_z);
	if (a->log_z)
		assert_memory_equal(a->log_z, b->log_z, a->log_z_len);
	assert_str(a->src, b->src);
	assert_int_equal(a->received_ms, b->received_ms);
	assert_int_equal(a->stored_ms, b->stored_ms);
	assert_str(a->sig_title, b->sig_title);
	assert_str(a->sig_frames, b->sig_frames);
	assert_str(a->sig_hash, b->sig_hash);
	assert_int_equal(a->authenticated, b->authenticated);
	assert_int_equal(a->auth_key_id, b->auth_key_id);
	assert_str(a->collectors, b->collectors);
	assert_int_equal(a->pieces_len, b->pieces_len);
	if (a->pieces_len)
		assert_memory_equal(a->pieces, b->pieces, a->pieces_len);
}

static void test_record_roundtrip(void **state)
{
	struct nstore_dump *a = full_record(1, 42), *b, *empty;
	uint8_t *buf;
	size_t len, i;

	(void)state;
	assert_int_equal(nspool_encode(a, &buf, &len), 0);
	assert_int_equal(nspool_decode(buf, len, &b), 0);
	assert_same(a, b);
	nstore_dump_free(b);
	/* every cut is refused, never read as something else */
	for (i = 0; i < len; i++)
		assert_int_equal(nspool_decode(buf, i, &b), -EBADMSG);
	/* flipped bytes: refused or read, never a crash (ASan watches) */
	for (i = 0; i < len; i++) {
		buf[i] ^= 0xa5;
		if (!nspool_decode(buf, len, &b))
			nstore_dump_free(b);
		buf[i] ^= 0xa5;
	}
	free(buf);
	/* a record with nothing set, log kept compressed only (log NULL) */
	empty = nstore_dump_new();
	empty->log_len = 123;
	assert_int_equal(nspool_encode(empty, &buf, &len), 0);
	assert_int_equal(nspool_decode(buf, len, &b), 0);
	assert_same(empty, b);
	assert_null(b->log);
	nstore_dump_free(b);
	free(buf);
	nstore_dump_free(empty);
	nstore_dump_free(a);
}

static void test_batches(void **state)
{
	struct fx *f = *state;
	struct nstore_dump *d[3], **got;
	struct nspool_file *list;
	struct nspool *sp, *other;
	uint64_t seq[3], size, size2;
	char path[192];
	size_t n, i;
	FILE *fp;
	int fd;

	assert_int_equal(nspool_open(f->spool, 0, &sp), 0);
	/* one netoopsd per spool */
	assert_int_equal(nspool_open(f->spool, 0, &other), -EBUSY);
	for (i = 0; i < 3; i++)
		d[i] = full_record(10 + i, i);
	assert_int_equal(nspool_batch_write(sp, d, 1, &seq[0], &size), 0);
	assert_int_equal(nspool_batch_write(sp, d, 3, &seq[1], &size), 0);
	assert_int_equal(nspool_batch_write(sp, d + 2, 1, &seq[2], &size2), 0);
	assert_true(seq[0] < seq[1] && seq[1] < seq[2]);
	assert_int_equal(nspool_batch_read(sp, seq[1], &got, &n), 0);
	assert_int_equal(n, 3);
	for (i = 0; i < 3; i++) {
		assert_same(d[i], got[i]);
		nstore_dump_free(got[i]);
	}
	free(got);
	assert_int_equal(nspool_batch_remove(sp, seq[0]), 0);
	assert_int_equal(nspool_batch_read(sp, seq[0], &got, &n), -ENOENT);
	nspool_close(sp);

	/* a half-written file of a crash goes at the next open; sequence
	 * numbers go on after the last one
	 */
	snprintf(path, sizeof(path), "%s/batch-00000000000000ff.nsp.tmp",
		 f->spool);
	fd = open(path, O_WRONLY | O_CREAT, 0644);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(nspool_open(f->spool, NSPOOL_NOSYNC, &sp), 0);
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(nspool_batch_list(sp, &list, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(list[0].seq, seq[1]);
	assert_int_equal(list[1].seq, seq[2]);
	free(list);
	assert_int_equal(nspool_batch_write(sp, d, 1, &seq[0], &size), 0);
	assert_true(seq[0] > seq[2]);

	/* one byte changed: the whole batch is refused, then set aside */
	snprintf(path, sizeof(path), "%s/batch-%016llx.nsp", f->spool,
		 (unsigned long long)seq[1]);
	fp = fopen(path, "r+");
	assert_non_null(fp);
	assert_int_equal(fseek(fp, 100, SEEK_SET), 0);
	fputc('!', fp);
	fclose(fp);
	assert_int_equal(nspool_batch_read(sp, seq[1], &got, &n), -EBADMSG);
	assert_int_equal(nspool_batch_set_aside(sp, seq[1]), 0);
	assert_int_equal(nspool_batch_list(sp, &list, &n), 0);
	assert_int_equal(n, 2);		/* seq[2] and the new one */
	free(list);
	/* cut short: refused too */
	snprintf(path, sizeof(path), "%s/batch-%016llx.nsp", f->spool,
		 (unsigned long long)seq[2]);
	assert_int_equal(truncate(path, size2 - 1), 0);
	assert_int_equal(nspool_batch_read(sp, seq[2], &got, &n), -EBADMSG);
	nspool_close(sp);
	for (i = 0; i < 3; i++)
		nstore_dump_free(d[i]);
}

static void test_resume_files(void **state)
{
	struct gen_opts o = { .hostname = "resume", .reason = 1,
			      .release = "r", .max_pkt = 512 };
	struct fx *f = *state;
	uint8_t boot[16], *buf, *got;
	struct nspool_file *list;
	struct gen_pkts p;
	size_t len, n, a, b, c, off;
	struct nspool *sp;
	uint64_t size;
	char *log;

	memset(boot, 0x77, sizeof(boot));
	log = gen_log(4000, "resume_fn", 1, &len);
	assert_int_equal(gen_dump(&p, boot, 9, &o, log, len), 0);
	assert_true(p.n >= 3);
	a = p.len[0];
	b = p.len[1];
	c = p.len[2];
	buf = malloc(a + b + c);
	memcpy(buf, p.buf[0], a);
	memcpy(buf + a, p.buf[1], b);
	memcpy(buf + a + b, p.buf[2], c);
	assert_int_equal(nspool_dgram_len(buf, a + b + c), a);
	assert_int_equal(nspool_dgram_len(buf, a - 1), 0);
	assert_int_equal(nspool_dgram_len("NOPE", 4), 0);

	assert_int_equal(nspool_open(f->spool, 0, &sp), 0);
	/* datagrams 0 and 1, then 1 and 2: kept once each, newest first */
	assert_int_equal(nspool_resume_write(sp, boot, 9, buf, a + b, &size),
			 0);
	assert_int_equal(size, a + b);
	assert_int_equal(nspool_resume_write(sp, boot, 9, buf + a, b + c,
					     &size), 0);
	assert_int_equal(size, a + b + c);
	assert_int_equal(nspool_resume_read(sp, boot, 9, &got, &n), 0);
	assert_int_equal(n, a + b + c);
	off = 0;
	assert_memory_equal(got + off, p.buf[1], b);
	off += b;
	assert_memory_equal(got + off, p.buf[2], c);
	off += c;
	assert_memory_equal(got + off, p.buf[0], a);
	free(got);
	/* not datagrams: refused */
	assert_int_equal(nspool_resume_write(sp, boot, 10, "garbage", 7,
					     &size), -EINVAL);
	assert_int_equal(nspool_resume_list(sp, &list, &n), 0);
	assert_int_equal(n, 1);
	assert_memory_equal(list[0].boot_id, boot, 16);
	assert_int_equal(list[0].dump_id, 9);
	assert_int_equal(list[0].size, a + b + c);
	free(list);
	assert_int_equal(nspool_resume_remove(sp, boot, 9), 0);
	assert_int_equal(nspool_resume_read(sp, boot, 9, &got, &n), -ENOENT);
	assert_int_equal(nspool_resume_list(sp, &list, &n), 0);
	assert_int_equal(n, 0);
	free(list);
	nspool_close(sp);
	free(buf);
	gen_pkts_free(&p);
	free(log);
}

static void test_open_errors(void **state)
{
	struct fx *f = *state;
	struct nspool *sp;
	char path[192];
	int fd;

	snprintf(path, sizeof(path), "%s/file", f->dir);
	fd = open(path, O_WRONLY | O_CREAT, 0644);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(nspool_open(path, 0, &sp), -ENOTDIR);
	snprintf(path, sizeof(path), "%s/no/such/dir", f->dir);
	assert_int_equal(nspool_open(path, 0, &sp), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_record_roundtrip),
		cmocka_unit_test_setup_teardown(test_batches, setup, teardown),
		cmocka_unit_test_setup_teardown(test_resume_files, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_open_errors, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
