// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers shared by the wire-format library tests and the golden-vector
 * generator.  Everything is deterministic: same inputs, same bytes.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "lib_test_util.h"

const uint8_t tu_boot_id[16] = {
	0x6e, 0x65, 0x74, 0x6f, 0x6f, 0x70, 0x73, 0x2d,
	0xb0, 0x07, 0x1d, 0x00, 0x01, 0x23, 0x45, 0x67,
};

const __u64 tu_x86_regs[NETOOPS_X86_64_NR_REGS] = {
	[NETOOPS_X86_64_REG_R15] = 0xffff888003a1f000ull,
	[NETOOPS_X86_64_REG_R14] = 0x0000000000000063ull,
	[NETOOPS_X86_64_REG_R13] = 0xffffffff82b5e3a0ull,
	[NETOOPS_X86_64_REG_R12] = 0x0000000000000000ull,
	[NETOOPS_X86_64_REG_RBP] = 0xffffc90000c1fd88ull,
	[NETOOPS_X86_64_REG_RBX] = 0x0000000000000063ull,
	[NETOOPS_X86_64_REG_R11] = 0x0000000000000000ull,
	[NETOOPS_X86_64_REG_R10] = 0x0000000000000001ull,
	[NETOOPS_X86_64_REG_R9] = 0x0000000000000000ull,
	[NETOOPS_X86_64_REG_R8] = 0x0000000000000000ull,
	[NETOOPS_X86_64_REG_RAX] = 0x0000000000000000ull,
	[NETOOPS_X86_64_REG_RCX] = 0x0000000000000000ull,
	[NETOOPS_X86_64_REG_RDX] = 0x0000000000000000ull,
	[NETOOPS_X86_64_REG_RSI] = 0xffffffff82540c3eull,
	[NETOOPS_X86_64_REG_RDI] = 0x0000000000000063ull,
	[NETOOPS_X86_64_REG_ORIG_RAX] = 0xffffffffffffffffull,
	[NETOOPS_X86_64_REG_RIP] = 0xffffffff81a9b0c6ull,
	[NETOOPS_X86_64_REG_CS] = 0x0000000000000010ull,
	[NETOOPS_X86_64_REG_EFLAGS] = 0x0000000000010246ull,
	[NETOOPS_X86_64_REG_RSP] = 0xffffc90000c1fd60ull,
	[NETOOPS_X86_64_REG_SS] = 0x0000000000000018ull,
};

void tu_dump_clear(struct tu_dump *d)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		free(d->pkt[i]);
	free(d->pkt);
	free(d->len);
	memset(d, 0, sizeof(*d));
}

int tu_encode_opts(const uint8_t boot_id[16], uint64_t dump_id,
		   const void *meta, size_t meta_len, const void *payload,
		   size_t payload_len, const struct netoops_enc_opts *o,
		   struct tu_dump *out)
{
	struct netoops_enc_opts opts = *o;
	struct netoops_enc e;
	uint8_t *scratch = NULL;
	size_t i, max_pkt = o->max_pkt;
	int err;

	memset(out, 0, sizeof(*out));
	if (opts.fec_k && !opts.scratch) {
		opts.scratch_len = NETOOPS_ENC_FEC_SCRATCH(opts.fec_m, max_pkt);
		scratch = malloc(opts.scratch_len);
		if (!scratch)
			return -ENOMEM;
		opts.scratch = scratch;
	}
	err = netoops_enc_init_opts(&e, boot_id, dump_id, meta, meta_len,
				    payload, payload_len, &opts);
	if (err)
		goto out;
	err = -ENOMEM;
	out->pkt = calloc(e.total_pkts, sizeof(*out->pkt));
	out->len = calloc(e.total_pkts, sizeof(*out->len));
	if (!out->pkt || !out->len)
		goto out;
	for (i = 0; i < e.total_pkts; i++) {
		out->pkt[i] = malloc(max_pkt);
		if (!out->pkt[i])
			goto out;
		out->n++;
		err = netoops_enc_next(&e, out->pkt[i], max_pkt);
		if (err <= 0) {
			err = err ? err : -EPROTO;
			goto out;
		}
		out->len[i] = (size_t)err;
	}
	/* the packetizer must say it is done exactly now */
	err = netoops_enc_next(&e, out->pkt[0], max_pkt) ? -EPROTO : 0;
out:
	free(scratch);
	if (err)
		tu_dump_clear(out);
	return err;
}

int tu_encode(const uint8_t boot_id[16], uint64_t dump_id, const void *meta,
	      size_t meta_len, const void *payload, size_t payload_len,
	      size_t max_pkt, struct tu_dump *out)
{
	struct netoops_enc e;
	size_t i;
	int err;

	memset(out, 0, sizeof(*out));
	err = netoops_enc_init(&e, boot_id, dump_id, meta, meta_len, payload,
			       payload_len, max_pkt);
	if (err)
		return err;
	out->pkt = calloc(e.pkt_count, sizeof(*out->pkt));
	out->len = calloc(e.pkt_count, sizeof(*out->len));
	if (!out->pkt || !out->len) {
		tu_dump_clear(out);
		return -ENOMEM;
	}
	for (i = 0; i < e.pkt_count; i++) {
		out->pkt[i] = malloc(max_pkt);
		if (!out->pkt[i]) {
			tu_dump_clear(out);
			return -ENOMEM;
		}
		out->n++;
		err = netoops_enc_next(&e, out->pkt[i], max_pkt);
		if (err <= 0) {
			tu_dump_clear(out);
			return err ? err : -EPROTO;
		}
		out->len[i] = (size_t)err;
	}
	/* the packetizer must say it is done exactly now */
	if (netoops_enc_next(&e, out->pkt[0], max_pkt) != 0) {
		tu_dump_clear(out);
		return -EPROTO;
	}
	return 0;
}

uint64_t tu_rand(uint64_t *state)
{
	uint64_t x = *state ? *state : 0x9e3779b97f4a7c15ull;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545f4914f6cdd1dull;
}

void tu_shuffle(size_t *idx, size_t n, uint64_t seed)
{
	size_t i, j, t;

	for (i = 0; i < n; i++)
		idx[i] = i;
	for (i = n; i > 1; i--) {
		j = (size_t)(tu_rand(&seed) % i);
		t = idx[i - 1];
		idx[i - 1] = idx[j];
		idx[j] = t;
	}
}

void tu_text(uint8_t *buf, size_t len, uint64_t seed)
{
	static const char *const words[] = {
		"BUG:", "kernel", "NULL", "pointer", "dereference,",
		"address:", "0000000000000008", "#PF:", "supervisor", "read",
		"access", "in", "mode", "RIP:", "0010:sysrq_handle_crash+0x16/0x20",
		"Call", "Trace:", "<TASK>", "__handle_sysrq", "write_sysrq_trigger",
		"proc_reg_write", "vfs_write", "ksys_write", "do_syscall_64",
		"entry_SYSCALL_64_after_hwframe", "</TASK>", "CPU:", "0", "PID:",
		"Comm:", "bash", "Tainted:", "G", "E", "6.12.118+deb12-amd64",
	};
	const size_t nw = sizeof(words) / sizeof(words[0]);
	uint64_t ts = 1000000, st = seed + 1;
	size_t pos = 0;
	char line[256];

	while (pos < len) {
		int n = snprintf(line, sizeof(line), "<%u>[%6llu.%06llu] ",
				 (unsigned int)(tu_rand(&st) % 8),
				 (unsigned long long)(ts / 1000000),
				 (unsigned long long)(ts % 1000000));
		unsigned int k, nwl = 3 + (unsigned int)(tu_rand(&st) % 8);

		for (k = 0; k < nwl && n < 180; k++)
			n += snprintf(line + n, sizeof(line) - (size_t)n, "%s ",
				      words[tu_rand(&st) % nw]);
		line[n - 1] = '\n';
		ts += tu_rand(&st) % 5000;
		for (k = 0; k < (unsigned int)n && pos < len; k++)
			buf[pos++] = (uint8_t)line[k];
	}
}

size_t tu_deflate(const void *in, size_t len, uint8_t *out, size_t cap)
{
	z_stream zs;
	size_t n;

	memset(&zs, 0, sizeof(zs));
	if (deflateInit2(&zs, 6, Z_DEFLATED, -MAX_WBITS, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return 0;
	zs.next_in = (Bytef *)(uintptr_t)in;
	zs.avail_in = (uInt)len;
	zs.next_out = out;
	zs.avail_out = (uInt)cap;
	if (deflate(&zs, Z_FINISH) != Z_STREAM_END) {
		deflateEnd(&zs);
		return 0;
	}
	n = zs.total_out;
	deflateEnd(&zs);
	return n;
}

int tu_meta_full(uint8_t *buf, size_t cap, uint32_t compression,
		 uint32_t orig_len)
{
	struct netoops_tlv_buf b;

	netoops_tlv_init(&b, buf, cap);
	netoops_tlv_put_dump_info(&b, NETOOPS_REASON_PANIC, 3, 1, 2);
	netoops_tlv_put_time(&b, 1796292000, 123456789, 98765432100ull);
	netoops_tlv_put_str(&b, NETOOPS_TLV_RELEASE, "6.12.118+deb12-amd64");
	netoops_tlv_put_str(&b, NETOOPS_TLV_VERSION,
			    "#1 SMP PREEMPT_DYNAMIC Debian 6.12.118-1");
	netoops_tlv_put_str(&b, NETOOPS_TLV_ARCH, "x86_64");
	netoops_tlv_put_str(&b, NETOOPS_TLV_HOSTNAME, "guest-1");
	netoops_tlv_put_cpu_x86(&b, "GenuineIntel", 6, 85, 7, 0x5003604);
	netoops_tlv_put_cpu_arm64(&b, 0x410fd083ull);
	netoops_tlv_put_regs(&b, NETOOPS_ARCH_X86_64, NETOOPS_REGS_OOPS,
			     tu_x86_regs, NETOOPS_X86_64_NR_REGS);
	netoops_tlv_put_taint(&b, 0x3001);
	netoops_tlv_put_user(&b, "rack", "b12");
	netoops_tlv_put_user(&b, "build.id", "");
	netoops_tlv_put_payload_info(&b, compression, orig_len);
	if (netoops_tlv_error(&b))
		return netoops_tlv_error(&b);
	return (int)b.len;
}

int tu_meta_full_check(const struct netoops_meta *m, uint32_t compression,
		       uint32_t orig_len)
{
	unsigned int i;
	int f = 0;

	if (m->present != 0x1ffe)
		return ++f;
	if (++f, m->reason != NETOOPS_REASON_PANIC || m->oops_count != 3 ||
	    m->part != 1 || m->cpu != 2)
		return f;
	if (++f, m->wall_sec != 1796292000 || m->wall_nsec != 123456789 ||
	    m->uptime_ns != 98765432100ull)
		return f;
	if (++f, strcmp(m->release, "6.12.118+deb12-amd64") ||
	    strcmp(m->version, "#1 SMP PREEMPT_DYNAMIC Debian 6.12.118-1") ||
	    strcmp(m->arch, "x86_64") || strcmp(m->hostname, "guest-1"))
		return f;
	if (++f, strcmp(m->x86_vendor, "GenuineIntel") || m->x86_family != 6 ||
	    m->x86_model != 85 || m->x86_stepping != 7 ||
	    m->x86_microcode != 0x5003604)
		return f;
	if (++f, m->arm64_midr != 0x410fd083ull)
		return f;
	if (++f, m->regs_arch != NETOOPS_ARCH_X86_64 ||
	    m->regs_context != NETOOPS_REGS_OOPS ||
	    m->regs_nr != NETOOPS_X86_64_NR_REGS ||
	    m->regs_kept != NETOOPS_X86_64_NR_REGS)
		return f;
	for (i = 0; i < NETOOPS_X86_64_NR_REGS; i++)
		if (m->regs[i] != tu_x86_regs[i])
			return f;
	if (++f, m->taint != 0x3001)
		return f;
	if (++f, m->nr_user != 2 || m->user_dropped ||
	    strcmp(m->user[0].key, "rack") || strcmp(m->user[0].value, "b12") ||
	    strcmp(m->user[1].key, "build.id") || m->user[1].value[0])
		return f;
	if (++f, m->compression != compression || m->orig_len != orig_len)
		return f;
	return 0;
}

/* ---- golden vectors ---------------------------------------------------- */

#define SMALL_TEXT \
	"Kernel panic - not syncing: sysrq triggered crash\n" \
	"CPU: 0 PID: 1 Comm: sh Not tainted 6.12.118+deb12-amd64 #1\n"

static int vec_small(struct tu_dump *out)
{
	uint8_t meta[256];
	struct netoops_tlv_buf b;

	netoops_tlv_init(&b, meta, sizeof(meta));
	netoops_tlv_put_dump_info(&b, NETOOPS_REASON_PANIC, 1, 1, 0);
	netoops_tlv_put_time(&b, 1796292000, 5000, 4200000000ull);
	netoops_tlv_put_str(&b, NETOOPS_TLV_RELEASE, "6.12.118+deb12-amd64");
	netoops_tlv_put_str(&b, NETOOPS_TLV_ARCH, "x86_64");
	netoops_tlv_put_str(&b, NETOOPS_TLV_HOSTNAME, "guest-1");
	netoops_tlv_put_payload_info(&b, NETOOPS_COMPRESS_NONE,
				     sizeof(SMALL_TEXT) - 1);
	if (netoops_tlv_error(&b))
		return netoops_tlv_error(&b);
	return tu_encode(tu_boot_id, 1, meta, b.len, SMALL_TEXT,
			 sizeof(SMALL_TEXT) - 1, NETOOPS_PKT_DEFAULT, out);
}

#define COMP_TEXT_LEN	6000

static int vec_user_regs(struct tu_dump *out)
{
	uint8_t meta[1024];
	int ml = tu_meta_full(meta, sizeof(meta), NETOOPS_COMPRESS_NONE,
			      sizeof(SMALL_TEXT) - 1);

	if (ml < 0)
		return ml;
	return tu_encode(tu_boot_id, 3, meta, (size_t)ml, SMALL_TEXT,
			 sizeof(SMALL_TEXT) - 1, NETOOPS_PKT_DEFAULT, out);
}

static int vec_tlv_extra(struct tu_dump *out, uint16_t type)
{
	uint8_t meta[128];
	struct netoops_tlv_buf b;

	netoops_tlv_init(&b, meta, sizeof(meta));
	netoops_tlv_put_dump_info(&b, NETOOPS_REASON_SOFT, 4, 1, 0);
	netoops_tlv_put(&b, type, "acme:site=7", 11);
	netoops_tlv_put_payload_info(&b, NETOOPS_COMPRESS_NONE, 4);
	if (netoops_tlv_error(&b))
		return netoops_tlv_error(&b);
	return tu_encode(tu_boot_id, 4, meta, b.len, "test", 4,
			 NETOOPS_PKT_DEFAULT, out);
}

static int vec_vendor(struct tu_dump *out)
{
	return vec_tlv_extra(out, NETOOPS_TLV_VENDOR_FIRST + 1);
}

static int vec_critical(struct tu_dump *out)
{
	return vec_tlv_extra(out, NETOOPS_TLV_CRITICAL | 0x0100);
}

const uint8_t tu_key[32] = "netoops golden vector key 0001!";
const uint32_t tu_key_id = 7;

/*
 * A deflate-compressed oops dump (dump id 2 for the plain golden vector),
 * optionally with a MAC (key tu_key, id tu_key_id) and/or FEC.
 */
static int vec_trust(struct tu_dump *out, bool auth, unsigned int k,
		     unsigned int m, uint64_t dump_id)
{
	static uint8_t text[COMP_TEXT_LEN], z[COMP_TEXT_LEN + 64];
	static struct netoops_key key = { tu_key, sizeof(tu_key) };
	struct netoops_enc_opts o = {
		.max_pkt = 512, .fec_k = k, .fec_m = m,
	};
	uint8_t meta[256];
	struct netoops_tlv_buf b;
	size_t zl;

	if (auth) {
		o.mac = netoops_hmac;
		o.mac_ctx = &key;
		o.key_id = tu_key_id;
	}
	tu_text(text, sizeof(text), 42);
	zl = tu_deflate(text, sizeof(text), z, sizeof(z));
	if (!zl)
		return -EMSGSIZE;
	netoops_tlv_init(&b, meta, sizeof(meta));
	netoops_tlv_put_dump_info(&b, NETOOPS_REASON_OOPS, 2, 1, 1);
	netoops_tlv_put_str(&b, NETOOPS_TLV_RELEASE, "6.1.0-57-amd64");
	netoops_tlv_put_payload_info(&b, NETOOPS_COMPRESS_DEFLATE,
				     COMP_TEXT_LEN);
	if (netoops_tlv_error(&b))
		return netoops_tlv_error(&b);
	return tu_encode_opts(tu_boot_id, dump_id, meta, b.len, z, zl, &o,
			      out);
}

static int vec_compressed(struct tu_dump *out)
{
	return vec_trust(out, false, 0, 0, 2);
}

static int vec_auth(struct tu_dump *out)
{
	return vec_trust(out, true, 0, 0, 5);
}

static int vec_parity(struct tu_dump *out)
{
	return vec_trust(out, false, 4, 2, 6);
}

static int vec_auth_parity(struct tu_dump *out)
{
	return vec_trust(out, true, 4, 2, 7);
}

const struct tu_vector tu_vectors[] = {
	{ "small", "one datagram, plain text, basic metadata", vec_small, 0 },
	{ "compressed", "deflate payload over several 512-byte datagrams",
	  vec_compressed, 0 },
	{ "user_regs", "every metadata TLV incl. user fields and x86 regs",
	  vec_user_regs, 0 },
	{ "vendor", "vendor TLV 0x7001 (not critical): skipped", vec_vendor,
	  0 },
	{ "critical", "unknown critical TLV 0x8100: refused", vec_critical,
	  1 },
	{ "auth", "compressed dump with a MAC (key tu_key, id 7)", vec_auth,
	  0 },
	{ "parity", "compressed dump, FEC k=4 m=2 (parity after each group)",
	  vec_parity, 0 },
	{ "auth_parity", "both: MAC on data and parity datagrams",
	  vec_auth_parity, 0 },
};
const size_t tu_nr_vectors = sizeof(tu_vectors) / sizeof(tu_vectors[0]);

int tu_read_file(const char *path, uint8_t **ret, size_t *ret_len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	long n;

	if (!f)
		return -errno;
	if (fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET)) {
		fclose(f);
		return -EIO;
	}
	buf = malloc((size_t)n + 1);
	if (!buf) {
		fclose(f);
		return -ENOMEM;
	}
	if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		fclose(f);
		return -EIO;
	}
	fclose(f);
	buf[n] = '\0';
	*ret = buf;
	*ret_len = (size_t)n;
	return 0;
}

char *tu_read_text(const char *path, size_t *ret_len)
{
	uint8_t *buf;

	return tu_read_file(path, &buf, ret_len) ? NULL : (char *)buf;
}

int tu_write_file(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "wb");

	if (!f)
		return -errno;
	if (fwrite(buf, 1, len, f) != len) {
		fclose(f);
		return -EIO;
	}
	return fclose(f) ? -errno : 0;
}
