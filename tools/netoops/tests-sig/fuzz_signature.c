// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the crash signature library: any input must give
 * 0 or -ENOENT, well-formed strings, the same answer twice, and exactly
 * the answer of the reference implementation (signature_ref.c).
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "sig/signature.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int netoops_signature_ref(const char *log, size_t len,
			  struct netoops_sig *ret_sig);

static void check(int ok)
{
	if (!ok)
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct netoops_sig a, b;
	int ra, rb;

	ra = netoops_signature((const char *)data, size, &a);
	check(ra == 0 || ra == -ENOENT);
	check(memchr(a.title, 0, sizeof(a.title)) && a.title[0]);
	check(memchr(a.text, 0, sizeof(a.text)) != NULL);
	check(memchr(a.kind, 0, sizeof(a.kind)) && a.kind[0]);
	check(strlen(a.hash) == 16);
	check(a.nframes <= NETOOPS_SIG_MAX_FRAMES);
	for (unsigned int i = 0; i < a.nframes; i++)
		check(memchr(a.frames[i], 0, NETOOPS_SIG_FRAME_LEN) &&
		      a.frames[i][0]);
	rb = netoops_signature((const char *)data, size, &b);
	check(ra == rb && !strcmp(a.hash, b.hash) && !strcmp(a.text, b.text));
	rb = netoops_signature_ref((const char *)data, size, &b);
	check(ra == rb && !memcmp(&a, &b, sizeof(a)));
	return 0;
}
