// SPDX-License-Identifier: GPL-2.0
/*
 * netoops-sig: print the crash signature of kernel log files.
 *
 *   netoops-sig FILE...     (- for stdin)
 *
 * A debugging aid for the signature library: kind, title, frames, the
 * canonical text and its hash, one block per file.  Exit status 0 when every
 * file has a crash report, 1 when one has none, 2 on errors.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "signature.h"

#define MAX_INPUT (64u << 20)

static int read_all(FILE *f, char **ret_buf, size_t *ret_len)
{
	size_t len = 0, cap = 0;
	char *buf = NULL;

	for (;;) {
		size_t n;

		if (cap - len < 65536) {
			char *nb;

			if (cap >= MAX_INPUT) {
				free(buf);
				return -EFBIG;
			}
			cap = cap ? cap * 2 : 65536;
			nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				return -ENOMEM;
			}
			buf = nb;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
		if (n == 0)
			break;
	}
	if (ferror(f)) {
		free(buf);
		return -EIO;
	}
	*ret_buf = buf;
	*ret_len = len;
	return 0;
}

int main(int argc, char **argv)
{
	int status = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE...  (- for stdin)\n", argv[0]);
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		struct netoops_sig sig;
		FILE *f = strcmp(argv[i], "-") ? fopen(argv[i], "rb") : stdin;
		char *buf = NULL;
		size_t len = 0;
		int err;

		if (!f) {
			fprintf(stderr, "%s: cannot open: %s\n", argv[i],
				strerror(errno));
			status = 2;
			continue;
		}
		err = read_all(f, &buf, &len);
		if (f != stdin)
			fclose(f);
		if (err < 0) {
			fprintf(stderr, "%s: cannot read: %s\n", argv[i],
				strerror(-err));
			status = 2;
			continue;
		}
		err = netoops_signature(buf, len, &sig);
		free(buf);
		if (err < 0 && err != -ENOENT) {
			fprintf(stderr, "%s: %s\n", argv[i], strerror(-err));
			status = 2;
			continue;
		}
		if (err == -ENOENT && status == 0)
			status = 1;
		printf("FILE: %s\n", argv[i]);
		printf("TITLE: %s\nKIND: %s\nFRAMES:", sig.title, sig.kind);
		for (unsigned int j = 0; j < sig.nframes; j++)
			printf(" %s", sig.frames[j]);
		printf("\nTEXT: %s\nHASH: %s\n%s", sig.text, sig.hash,
		       i + 1 < argc ? "\n" : "");
	}
	return status;
}
