// SPDX-License-Identifier: GPL-2.0
/*
 * netoops store: implementation choice and record helpers.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <linux/netoops.h>

#include "netoops_hex.h"
#include "store.h"

int nstore_open(const char *where, unsigned int flags, struct nstore **ret)
{
	if (!where || !*where || !ret)
		return -EINVAL;
	if (!strncmp(where, "sqlite:", 7))
		return nstore_sqlite_ops.open(where + 7, flags, ret);
	if (!strncmp(where, "postgresql://", 13) ||
	    !strncmp(where, "postgres://", 11))
		return nstore_pg_ops.open(where, flags, ret);
	if (!strncmp(where, "pg:", 3))
		return nstore_pg_ops.open(where + 3, flags, ret);
	if (strstr(where, "://"))
		return -EPROTONOSUPPORT;	/* e.g. mysql:// */
	return nstore_sqlite_ops.open(where, flags, ret);
}

const char *nstore_open_strerror(int err)
{
	switch (err) {
	case -EBADMSG:
		return "not a netoops database";
	case -EUCLEAN:
		return "database file is corrupt";
	case -EPROTONOSUPPORT:
		return "unsupported store location";
	case -EILSEQ:
		return "database encoding is neither UTF8 nor SQL_ASCII";
	default:
		return strerror(-err);
	}
}

void nstore_close(struct nstore *st)
{
	if (st)
		st->ops->close(st);
}

void nstore_filter_init(struct nstore_filter *f)
{
	memset(f, 0, sizeof(*f));
	f->reason = -1;
	f->complete = -1;
	f->authenticated = -1;
}

int nstore_glob_check(const char *glob)
{
	const char *p = glob;
	size_t wild = 0;

	if (strnlen(glob, NSTORE_GLOB_MAX_BYTES + 1) > NSTORE_GLOB_MAX_BYTES)
		return -ENAMETOOLONG;
	while (*p) {
		if (*p == '*' || *p == '?') {
			wild++;
			p++;
			continue;
		}
		if (*p++ != '[')
			continue;
		/* a set: "^" first inverts, a "]" first is a member */
		wild++;
		if (*p == '^')
			p++;
		if (*p == ']')
			p++;
		while (*p && *p != ']')
			p++;
		if (*p)
			p++;
	}
	return wild > NSTORE_GLOB_MAX_WILD ? -E2BIG : 0;
}

#define STR_(x)	#x
#define STR(x)	STR_(x)

const char *nstore_glob_strerror(int err)
{
	switch (err) {
	case -ENAMETOOLONG:
		return "glob too long (at most " STR(NSTORE_GLOB_MAX_BYTES)
		       " bytes)";
	case -E2BIG:
		return "glob too complex (at most " STR(NSTORE_GLOB_MAX_WILD)
		       " wildcards and [...] sets)";
	default:
		return strerror(-err);
	}
}

int nstore_filter_check(const struct nstore_filter *f, const char **ret_name)
{
	const char *name = NULL;
	int r = 0;

	if (!f)
		return 0;
	if (f->host && (r = nstore_glob_check(f->host)))
		name = "host";
	else if (f->kernel && (r = nstore_glob_check(f->kernel)))
		name = "kernel";
	else if (f->bucket && strnlen(f->bucket, NSTORE_GLOB_MAX_BYTES + 1) >
		 NSTORE_GLOB_MAX_BYTES) {
		r = -ENAMETOOLONG;
		name = "bucket";
	}
	if (ret_name)
		*ret_name = name;
	return r;
}

struct nstore_dump *nstore_dump_new(void)
{
	return calloc(1, sizeof(struct nstore_dump));
}

void nstore_dump_free(struct nstore_dump *d)
{
	size_t i;

	if (!d)
		return;
	free(d->hostname);
	free(d->release);
	free(d->version);
	free(d->arch);
	free(d->cpu_desc);
	free(d->regs);
	for (i = 0; i < d->nr_user; i++) {
		free(d->user[i].key);
		free(d->user[i].value);
	}
	free(d->user);
	free(d->gaps);
	free(d->log);
	free(d->log_z);
	free(d->src);
	free(d->sig_title);
	free(d->sig_frames);
	free(d->sig_hash);
	free(d->collectors);
	free(d->pieces);
	free(d);
}

int nstore_dump_add_user(struct nstore_dump *d, const char *key, size_t klen,
			 const char *value, size_t vlen)
{
	struct nstore_kv *n;
	char *k, *v;

	n = realloc(d->user, (d->nr_user + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	d->user = n;
	k = strndup(key, klen);
	v = strndup(value, vlen);
	if (!k || !v) {
		free(k);
		free(v);
		return -ENOMEM;
	}
	d->user[d->nr_user].key = k;
	d->user[d->nr_user].value = v;
	d->nr_user++;
	return 0;
}

int nstore_dump_add_gap(struct nstore_dump *d, uint64_t off, uint64_t len)
{
	struct nstore_gap *n;

	n = realloc(d->gaps, (d->nr_gaps + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	d->gaps = n;
	d->gaps[d->nr_gaps].off = off;
	d->gaps[d->nr_gaps].len = len;
	d->nr_gaps++;
	return 0;
}

static const char *const reason_names[] = {
	[NETOOPS_REASON_UNKNOWN] = "unknown",
	[NETOOPS_REASON_PANIC] = "panic",
	[NETOOPS_REASON_OOPS] = "oops",
	[NETOOPS_REASON_EMERG] = "emergency",
	[NETOOPS_REASON_RESTART] = "restart",
	[NETOOPS_REASON_HALT] = "halt",
	[NETOOPS_REASON_POWEROFF] = "poweroff",
	[NETOOPS_REASON_SOFT] = "soft",
};

const char *nstore_reason_name(uint32_t reason)
{
	if (reason < sizeof(reason_names) / sizeof(reason_names[0]))
		return reason_names[reason];
	return "unknown";
}

int nstore_reason_parse(const char *s)
{
	unsigned int i;
	char *end;
	long v;

	for (i = 0; i < sizeof(reason_names) / sizeof(reason_names[0]); i++)
		if (!strcasecmp(s, reason_names[i]))
			return i;
	errno = 0;
	v = strtol(s, &end, 0);
	if (errno || *end || end == s || v < 0 || v > 0x7fffffff)
		return -EINVAL;
	return v;
}

void nstore_boot_id_hex(const uint8_t id[16], char ret[33])
{
	static const char hex[] = "0123456789abcdef";
	int i;

	for (i = 0; i < 16; i++) {
		ret[2 * i] = hex[id[i] >> 4];
		ret[2 * i + 1] = hex[id[i] & 15];
	}
	ret[32] = 0;
}

/* Accepts 32 hex digits, with or without the dashes of a UUID. */
int nstore_boot_id_parse(const char *s, uint8_t ret[16])
{
	int n = 0, hi = -1, v;

	for (; *s; s++) {
		if (*s == '-')
			continue;
		v = netoops_hexval(*s);
		if (v < 0 || n >= 16)
			return -EINVAL;
		if (hi < 0) {
			hi = v;
		} else {
			ret[n++] = hi << 4 | v;
			hi = -1;
		}
	}
	return n == 16 && hi < 0 ? 0 : -EINVAL;
}

static const char *const x86_64_regs[NETOOPS_X86_64_NR_REGS] = {
	"r15", "r14", "r13", "r12", "rbp", "rbx", "r11", "r10", "r9", "r8",
	"rax", "rcx", "rdx", "rsi", "rdi", "orig_rax", "rip", "cs", "eflags",
	"rsp", "ss",
};

static const char *const arm64_regs[] = {
	"x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9", "x10",
	"x11", "x12", "x13", "x14", "x15", "x16", "x17", "x18", "x19", "x20",
	"x21", "x22", "x23", "x24", "x25", "x26", "x27", "x28", "x29", "x30",
	"sp", "pc", "pstate",
};

/* NULL for a register this version does not know (a newer sender's). */
const char *nstore_reg_name(uint16_t arch, unsigned int idx)
{
	if (arch == NETOOPS_ARCH_X86_64 && idx < NETOOPS_X86_64_NR_REGS)
		return x86_64_regs[idx];
	if (arch == NETOOPS_ARCH_ARM64 && idx < NETOOPS_ARM64_NR_REGS)
		return arm64_regs[idx];
	return NULL;
}

int nstore_render_log(const struct nstore_dump *d, char **ret, size_t *ret_len)
{
	size_t cap, len = 0, pos = 0, i;
	char *out;

	cap = d->log_len + d->nr_gaps * 64 + 1;
	out = malloc(cap);
	if (!out)
		return -ENOMEM;
	for (i = 0; i <= d->nr_gaps; i++) {
		size_t end = i < d->nr_gaps ? d->gaps[i].off : d->log_len;

		if (end > d->log_len)
			end = d->log_len;
		if (end > pos) {
			memcpy(out + len, d->log + pos, end - pos);
			len += end - pos;
			pos = end;
		}
		if (i == d->nr_gaps)
			break;
		/* Put the marker on a line of its own. */
		if (len && out[len - 1] != '\n')
			out[len++] = '\n';
		if (d->gaps[i].len)
			len += snprintf(out + len, cap - len,
					"[... %llu bytes missing ...]\n",
					(unsigned long long)d->gaps[i].len);
		else
			len += snprintf(out + len, cap - len,
					"[... rest of the log missing ...]\n");
	}
	out[len] = 0;
	*ret = out;
	if (ret_len)
		*ret_len = len;
	return 0;
}

long nstore_slot_index(int64_t ms, int64_t start_ms, int64_t step_ms, long n)
{
	uint64_t off, i;

	if (step_ms <= 0 || n <= 0 || ms < start_ms)
		return -1;
	/* ms >= start_ms: the difference fits in 64 unsigned bits */
	off = (uint64_t)ms - (uint64_t)start_ms;
	i = off / (uint64_t)step_ms;
	return i < (uint64_t)n ? (long)i : -1;
}
