// SPDX-License-Identifier: GPL-2.0
/*
 * Differential test of the signature scan (cmocka, ASan+UBSan):
 * sig/signature.c must give exactly what the reference implementation
 * (signature_ref.c, the scan before it was made faster) gives -- same
 * return value, same struct netoops_sig byte for byte -- over:
 *
 * - every file of the signature corpus (tests/signatures/ and nocrash/),
 *   whole and from every line on;
 * - generated storm logs (gen_log(): 8 crashes, several sizes and seeds);
 * - mutations of both: tokens of every rule (report openers, prefixes,
 *   markers, line ends, NULs) inserted, bytes flipped, ranges deleted or
 *   repeated, lines made longer than the 511-byte window.
 *
 *   NETOOPS_SIG_CORPUS=tests/signatures build-san/tests-sig/test_sig_diff
 */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "gen_dump.h"
#include "lib_test_util.h"
#include "sig/signature.h"

int netoops_signature_ref(const char *log, size_t len,
			  struct netoops_sig *ret_sig);

#define MAX_FILES	256
#define MUTATIONS	6000	/* rounds over the corpus and storm logs */

static char *inputs[MAX_FILES + 64];
static size_t input_len[MAX_FILES + 64];
static size_t ninputs;
static unsigned long compared;

static uint32_t rnd_state = 0x6b8b4567;

static uint32_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 17;
	rnd_state ^= rnd_state << 5;
	return rnd_state;
}

/* Both implementations on @log; fails with the input saved on a difference. */
static void same(const char *log, size_t len)
{
	struct netoops_sig a, b;
	int ra, rb;

	ra = netoops_signature(log, len, &a);
	rb = netoops_signature_ref(log, len, &b);
	compared++;
	if (ra == rb && !memcmp(&a, &b, sizeof(a)))
		return;
	{
		FILE *f = fopen("build-san/sig-diff-input.txt", "wb");

		if (f) {
			fwrite(log, 1, len, f);
			fclose(f);
		}
	}
	fail_msg("signatures differ (input in build-san/sig-diff-input.txt): %d \"%s\""
		 " %s vs reference %d \"%s\" %s", ra, a.text, a.kind, rb,
		 b.text, b.kind);
}

static void load_dir(const char *dir)
{
	struct dirent *de;
	char path[4096];
	DIR *d = opendir(dir);

	assert_non_null(d);
	while ((de = readdir(d)) && ninputs < MAX_FILES) {
		size_t n = strlen(de->d_name);

		if (n < 5 || strcmp(de->d_name + n - 4, ".txt"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		inputs[ninputs] = tu_read_text(path, &input_len[ninputs]);
		assert_non_null(inputs[ninputs]);
		ninputs++;
	}
	closedir(d);
}

static int setup(void **state)
{
	static const char *const funcs[] = {
		"ext4_find_extent", "tcp_v4_rcv", "nvme_complete_rq",
		"drm_atomic_commit", "kmem_cache_alloc", "xfs_inode_item_push",
		"mlx5e_napi_poll", "blk_mq_dispatch_rq_list",
	};
	const char *dir = getenv("NETOOPS_SIG_CORPUS");
	char path[4096];
	size_t before;
	int i;

	(void)state;
	if (!dir || !*dir)
		dir = "../../tests/signatures";
	load_dir(dir);
	snprintf(path, sizeof(path), "%s/nocrash", dir);
	before = ninputs;
	load_dir(path);
	if (ninputs < 40 || ninputs == before)
		return -1;	/* the corpus is missing: fail, do not skip */
	for (i = 0; i < 16; i++) {
		size_t size = i < 8 ? 131072 : 4096 << (i % 4);

		inputs[ninputs] = gen_log(size, funcs[i % 8], i + 1,
					  &input_len[ninputs]);
		if (!inputs[ninputs])
			return -1;
		ninputs++;
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	while (ninputs)
		free(inputs[--ninputs]);
	return 0;
}

static void test_corpus(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < ninputs; i++)
		same(inputs[i], input_len[i]);
	same("", 0);
	same(NULL, 0);
}

/*
 * Lines whose window the scan reads without making it (peek_first()):
 * bracket groups, blanks and report openers around the 48-byte bracket
 * limit and the 511-byte window, then a report so that both paths run.
 */
static void test_peek_shapes(void **state)
{
	static const char *const heads[] = {
		"[", "[ ", "[   12.345678]", "[   12.345678] ", "[1][2]",
		"[1] [2] [3] ", "[<ffffffff81000000>] ", "[1] [<ff>] ",
		"[1]\t", "[1] kernel: ", "[1] kernel:", "[1] \r", "[1]\r",
		"[T1] [C2] kernel:  ", "[1] watchdog: ", "[1] NMI watchdog: ",
		"[1] rcu: ", "[1] ]", "[]", "[1] [2", "[ 0.000000] [",
	};
	static const char *const tails[] = {
		"", " ", "BUG: kernel NULL pointer dereference, address: 0",
		"Oops: 0002 [#1] SMP", "x Watchdog detected hard LOCKUP on cpu 1",
		"INFO: rcu_sched self-detected stall on CPU", "kernel BUG at a.c:1!",
		"text", "\r", "wake", "Normal", "r",
	};
	static char buf[4096];
	size_t h, t, pad;
	(void)state;

	for (h = 0; h < sizeof(heads) / sizeof(*heads); h++)
		for (t = 0; t < sizeof(tails) / sizeof(*tails); t++)
			for (pad = 0; pad < 560; pad += pad < 60 ? 1 : 37) {
				size_t n, hl = strlen(heads[h]);

				/* a line before: the last non-empty one if
				 * the line looked at is empty
				 */
				n = (size_t)snprintf(buf, sizeof(buf),
						     "[ 0.5] earlier line\n");
				/* the head, then blanks or a bracket body */
				memcpy(buf + n, heads[h], hl);
				n += hl;
				memset(buf + n, pad % 3 ? ' ' : 'x', pad);
				n += pad;
				n += (size_t)snprintf(buf + n, sizeof(buf) - n,
						      "%s", tails[t]);
				/* alone: the last non-empty line, or not */
				same(buf, n);
				/* before another line, and a report */
				memcpy(buf + n, "\nplain\n", 7);
				same(buf, n + 7);
				n += (size_t)snprintf(buf + n, sizeof(buf) - n,
						      "\nBUG: x\nCall Trace:\n"
						      "f+0x1/0x2\n");
				same(buf, n);
			}
}

/* From every line on, and every prefix up to each line end. */
static void test_corpus_lines(void **state)
{
	size_t i, off;

	(void)state;
	for (i = 0; i < ninputs; i++) {
		const char *s = inputs[i];
		size_t n = input_len[i];

		/* the long storm logs: every 37th line, for time */
		size_t step = n > 20000 ? 37 : 1, k = 0;

		for (off = 0; off < n; off++) {
			if (s[off] != '\n')
				continue;
			if (k++ % step)
				continue;
			same(s + off + 1, n - off - 1);
			same(s, off);
			same(s, off + 1);
		}
	}
}

/* Tokens every rule of signature.c looks for, and what breaks lines. */
static const char *const tokens[] = {
	"\n", "\r\n", "\r", "", " ", "\t", "  ", "]", "[", "<", ">",
	"<4>", "<12>", "6,338,8483953,-;", "4,1,2,c;", "Dec  3 10:28:57 host"
	" kernel: ", "2026-12-03T10:28:57+0000 h kernel: ", "kernel: ",
	"[   12.345678] ", "[  T123] ", "[ C1] ", "[Thu Dec  3 10:28:57 2026] ",
	"[<ffffffff81234567>] ", "watchdog: ", "NMI watchdog: ", "rcu: ",
	"Kernel panic - not syncing: ", "Kernel panic - not syncing: stack-"
	"protector: Kernel stack is corrupted in: foo+0x1/0x2",
	"Out of memory", "hung_task: ", "softlockup: ", "Hard LOCKUP",
	"panic_on_warn set", "kernel BUG at lib/list_debug.c:29!",
	"kernel BUG at fs/foo.c:42!", "kernel BUG at /tmp/m/x.c:1!",
	"WARNING: CPU: 0 PID: 1 at drivers/x.c:42 wfunc+0x1a/0x30 [mod]",
	"WARNING: at ", "WARNING: ", " at ", "+0x", "+0x1a/0x50",
	"list_add corruption. ", "list_del corruption, ",
	"list_add double add", "NMI watchdog: Watchdog detected hard LOCKUP",
	"Watchdog detected hard LOCKUP on cpu 1", "INFO: task x:1 ",
	" blocked for more than 120 seconds.", "INFO: rcu_sched ",
	"detected", "stall", "PANIC: double fault", "UBSAN: shift-out-of-"
	"bounds in x.c:1", "BUG: ", "BUG: kernel NULL pointer dereference",
	"BUG: unable to handle page fault", "BUG: soft lockup - CPU#1",
	"BUG: scheduling while atomic", "BUG: sleeping function called from"
	" invalid context", "BUG: KASAN: slab-use-after-free in k+0x1/0x2",
	"BUG: stack guard page was hit", "BUG: Bad page state:", "Oops: ",
	"Oops: 0002 [#1] SMP", "Oops: int3: 0000 [#1]", "invalid opcode: ",
	"general protection fault", "double fault", "kernel stack overflow",
	"stack guard page", "RIP: 0010:", "RIP: 0033:", "RIP: 0010:f+0x1/0x2",
	"Call Trace:", "Call trace:", "<TASK>", "</TASK>", "<IRQ>",
	"</IRQ>", "<NMI>", "</NMI>", "<#DF>", "? ", "? bar+0x1/0x2",
	"baz.isra.0+0x10/0x20 [m]", "kmalloc_noprof+0x1/0x2",
	"do_syscall_64+0x1/0x2", "---[ end trace ]---", "Kernel Offset: ",
	"RSP: 0018:", "Code: ", "R13: ", "0x2a", "deadbeefcafe", "42",
	"sysrq_handle_crash+0x1/0x2", "ffffffff81000000",
};

/* One random change of @buf (@len bytes, room for @cap). */
static size_t mutate(char *buf, size_t len, size_t cap)
{
	size_t at = len ? rnd() % (len + 1) : 0, n, m;
	const char *t;

	switch (rnd() % 8) {
	case 0: case 1: case 2:		/* insert a token */
		t = tokens[rnd() % (sizeof(tokens) / sizeof(*tokens))];
		n = strlen(t);
		if (rnd() % 16 == 0)
			n++;		/* its NUL too */
		if (len + n > cap)
			return len;
		memmove(buf + at + n, buf + at, len - at);
		memcpy(buf + at, t, n);
		return len + n;
	case 3:				/* flip a byte */
		if (len)
			buf[rnd() % len] ^= (char)(1u << (rnd() % 8));
		return len;
	case 4:				/* delete a range */
		n = rnd() % 64;
		if (at + n > len)
			n = len - at;
		memmove(buf + at, buf + at + n, len - at - n);
		return len - n;
	case 5:				/* repeat a range */
		n = rnd() % 256;
		if (at + n > len)
			n = len - at;
		if (len + n > cap)
			return len;
		memmove(buf + at + n, buf + at, len - at);
		return len + n;
	case 6:				/* a line past the 511-byte window */
		n = 400 + rnd() % 200;
		if (len + n > cap)
			return len;
		memmove(buf + at + n, buf + at, len - at);
		for (m = 0; m < n; m++)
			buf[at + m] = (char)('a' + m % 26);
		return len + n;
	default:			/* truncate */
		return len ? rnd() % len + 1 : 0;
	}
}

static void test_mutations(void **state)
{
	size_t cap = 262144 + 65536, len;
	char *buf = malloc(cap);
	int round, k, nmut;

	(void)state;
	assert_non_null(buf);
	for (round = 0; round < MUTATIONS; round++) {
		size_t i = rnd() % ninputs;

		len = input_len[i];
		/* the storm logs are long: a window of them, for time */
		if (len > 16384) {
			size_t off = rnd() % (len - 16384);

			memcpy(buf, inputs[i] + off, 16384);
			len = 16384;
		} else {
			memcpy(buf, inputs[i], len);
		}
		nmut = 1 + rnd() % 12;
		for (k = 0; k < nmut; k++) {
			len = mutate(buf, len, cap);
			same(buf, len);
		}
	}
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_corpus),
		cmocka_unit_test(test_corpus_lines),
		cmocka_unit_test(test_peek_shapes),
		cmocka_unit_test(test_mutations),
	};
	int r = cmocka_run_group_tests(tests, setup, teardown);

	printf("sig-diff: %lu inputs compared\n", compared);
	return r;
}
