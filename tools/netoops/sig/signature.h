/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Crash signatures: find the first crash report in a kernel log and reduce
 * it to a stable, kernel-version independent signature.
 *
 * Pure library: no I/O, no allocation, no logging; errors are negative
 * errno.  The normalization rules are documented at the top of signature.c
 * and in tests/signatures/README.rst.
 *
 *   struct netoops_sig sig;
 *   int err = netoops_signature(log, len, &sig);
 *   if (err < 0 && err != -ENOENT)
 *           fail(err);
 *   store(sig.hash, sig.title, sig.text);
 *
 * Two logs of the same bug (different kernels, CPUs, PIDs, addresses,
 * module lists, timestamps) give the same text and hash; different bugs
 * give different ones.
 */
#ifndef NETOOPS_SIGNATURE_H
#define NETOOPS_SIGNATURE_H

#include <stddef.h>

#define NETOOPS_SIG_TITLE_LEN	256
#define NETOOPS_SIG_FRAME_LEN	128
#define NETOOPS_SIG_MAX_FRAMES	3
#define NETOOPS_SIG_TEXT_LEN	768
#define NETOOPS_SIG_HASH_LEN	17	/* 16 hex digits + NUL */
#define NETOOPS_SIG_KIND_LEN	32

/**
 * struct netoops_sig - signature of one crash report
 * @title:   normalized title, e.g. "BUG: kernel NULL pointer dereference in
 *           foo_bar", "WARNING in foo_func", "kernel BUG in fs/foo.c".
 *           Always NUL-terminated, never empty.
 * @frames:  up to NETOOPS_SIG_MAX_FRAMES meaningful frames, innermost first:
 *           bare function names (no offsets, no module, no compiler suffix).
 * @nframes: number of valid entries in @frames (0..NETOOPS_SIG_MAX_FRAMES).
 * @text:    canonical string "title | f1 | f2 | f3" (only the frames found),
 *           the input of @hash.
 * @hash:    64-bit FNV-1a of @text as 16 lowercase hex digits.
 * @kind:    short class of the crash: "null-deref", "page-fault", "gpf",
 *           "bug", "warn", "soft-lockup", "hard-lockup", "hung-task",
 *           "rcu-stall", "panic", "oom", "stack-protector",
 *           "list-corruption", "sched-atomic", "might-sleep", "kasan",
 *           "ubsan", "double-fault", "stack-overflow", "oops", or
 *           "unknown" when no report was found.
 */
struct netoops_sig {
	char title[NETOOPS_SIG_TITLE_LEN];
	char frames[NETOOPS_SIG_MAX_FRAMES][NETOOPS_SIG_FRAME_LEN];
	unsigned int nframes;
	char text[NETOOPS_SIG_TEXT_LEN];
	char hash[NETOOPS_SIG_HASH_LEN];
	char kind[NETOOPS_SIG_KIND_LEN];
};

/**
 * netoops_signature() - compute the signature of the first crash in a log
 * @log:     kernel log text; need not be NUL-terminated; may contain NULs,
 *           CRLF line ends, "[   12.345678]" timestamps, lines before the
 *           crash and several reports (only the first one counts).
 * @len:     bytes in @log.
 * @ret_sig: filled in on 0 and on -ENOENT.
 *
 * Return: 0 when a crash report was found; -ENOENT when none was (then
 * @ret_sig is still filled: kind "unknown", title from the last non-empty
 * line, or "unknown" for an empty log, and a hash of that); -EINVAL when
 * @ret_sig is NULL or @log is NULL with a non-zero @len.
 */
int netoops_signature(const char *log, size_t len, struct netoops_sig *ret_sig);

#endif /* NETOOPS_SIGNATURE_H */
