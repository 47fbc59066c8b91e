// SPDX-License-Identifier: GPL-2.0
/*
 * Test and benchmark traffic generator helpers.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include <linux/netoops.h>

#include "gen_dump.h"
#include "netoops_enc.h"

int gen_deflate(const void *in, size_t len, int level, uint8_t **ret,
		size_t *ret_len)
{
	z_stream z;
	uint8_t *out;
	size_t cap;
	int r;

	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY))
		return -ENOMEM;
	cap = deflateBound(&z, len);
	out = malloc(cap);
	if (!out) {
		deflateEnd(&z);
		return -ENOMEM;
	}
	z.next_in = (Bytef *)in;
	z.avail_in = len;
	z.next_out = out;
	z.avail_out = cap;
	r = deflate(&z, Z_FINISH);
	*ret_len = cap - z.avail_out;
	deflateEnd(&z);
	if (r != Z_STREAM_END) {
		free(out);
		return -EIO;
	}
	*ret = out;
	return 0;
}

void gen_pkts_free(struct gen_pkts *p)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		free(p->buf[i]);
	free(p->buf);
	free(p->len);
	memset(p, 0, sizeof(*p));
}

int gen_dump_payload(struct gen_pkts *out, const uint8_t boot_id[16],
		     uint64_t dump_id, const struct gen_opts *o,
		     const void *payload, size_t plen, size_t orig_len)
{
	uint8_t meta[2048], pkt[NETOOPS_PKT_MAX], *scratch = NULL;
	size_t max_pkt = o->max_pkt ? o->max_pkt : NETOOPS_PKT_DEFAULT;
	struct netoops_enc_opts eo = { .max_pkt = max_pkt,
				       .fec_k = o->fec_k, .fec_m = o->fec_m,
				       .mac = o->mac, .mac_ctx = o->mac_ctx,
				       .key_id = o->key_id };
	__u64 regs[NETOOPS_X86_64_NR_REGS];
	struct netoops_tlv_buf tb;
	struct netoops_enc enc;
	size_t i;
	int r, len;

	memset(out, 0, sizeof(*out));
	netoops_tlv_init(&tb, meta, sizeof(meta));
	netoops_tlv_put_dump_info(&tb, o->reason, 1, 1, 0);
	netoops_tlv_put_time(&tb, 1764756000, 123456789, 42000000000ull);
	if (o->release)
		netoops_tlv_put_str(&tb, NETOOPS_TLV_RELEASE, o->release);
	netoops_tlv_put_str(&tb, NETOOPS_TLV_VERSION, o->version ?:
			    "#1 SMP PREEMPT_DYNAMIC Debian");
	netoops_tlv_put_str(&tb, NETOOPS_TLV_ARCH, "x86_64");
	if (o->hostname)
		netoops_tlv_put_str(&tb, NETOOPS_TLV_HOSTNAME, o->hostname);
	if (o->regs) {
		for (i = 0; i < NETOOPS_X86_64_NR_REGS; i++)
			regs[i] = 0x1000 + i;
		regs[NETOOPS_X86_64_REG_RIP] = 0xffffffffc0ffee00ull;
		netoops_tlv_put_cpu_x86(&tb, o->cpu_vendor ?: "GenuineIntel",
					6, 85, 7, 0x5003604);
		netoops_tlv_put_regs(&tb, NETOOPS_ARCH_X86_64,
				     NETOOPS_REGS_OOPS, regs,
				     NETOOPS_X86_64_NR_REGS);
		netoops_tlv_put_taint(&tb, 0x1001);
	}
	if (o->user_key)
		netoops_tlv_put_user(&tb, o->user_key, o->user_value);
	netoops_tlv_put_payload_info(&tb, o->compress ?
				     NETOOPS_COMPRESS_DEFLATE :
				     NETOOPS_COMPRESS_NONE,
				     orig_len);
	r = netoops_tlv_error(&tb);
	if (r)
		return r;
	if (o->fec_k) {
		eo.scratch_len = NETOOPS_ENC_FEC_SCRATCH(o->fec_m, max_pkt);
		eo.scratch = scratch = malloc(eo.scratch_len);
		if (!scratch)
			return -ENOMEM;
	}
	r = netoops_enc_init_opts(&enc, boot_id, dump_id, tb.buf, tb.len,
				  payload, plen, &eo);
	if (r) {
		free(scratch);
		return r;
	}
	out->buf = calloc(enc.total_pkts, sizeof(*out->buf));
	out->len = calloc(enc.total_pkts, sizeof(*out->len));
	if (!out->buf || !out->len) {
		r = -ENOMEM;
		goto out;
	}
	while ((len = netoops_enc_next(&enc, pkt, sizeof(pkt))) > 0) {
		out->buf[out->n] = malloc(len);
		if (!out->buf[out->n]) {
			r = -ENOMEM;
			goto out;
		}
		memcpy(out->buf[out->n], pkt, len);
		out->len[out->n++] = len;
	}
	r = len < 0 ? len : 0;
out:
	free(scratch);
	if (r)
		gen_pkts_free(out);
	return r;
}

int gen_dump(struct gen_pkts *out, const uint8_t boot_id[16],
	     uint64_t dump_id, const struct gen_opts *o, const char *log,
	     size_t log_len)
{
	uint8_t *payload = NULL;
	size_t plen = log_len;
	int r;

	if (o->compress) {
		r = gen_deflate(log, log_len, 6, &payload, &plen);
		if (r)
			return r;
	}
	r = gen_dump_payload(out, boot_id, dump_id, o,
			     payload ? (const void *)payload :
				       (const void *)log, plen, log_len);
	free(payload);
	return r;
}

static const char *const noise[] = {
	"systemd[1]: Started session-%u.scope - Session %u of User root.",
	"e1000e 0000:00:1f.6 eno1: NIC Link is Up 1000 Mbps Full Duplex",
	"EXT4-fs (sda1): mounted filesystem %08x-1c2d ro with ordered data",
	"audit: type=1400 audit(%u.120:%u): apparmor=\"STATUS\" profile",
	"TCP: request_sock_TCP: Possible SYN flooding on port %u.",
	"usb 1-1: new high-speed USB device number %u using xhci_hcd",
	"nvme nvme0: I/O %u QID 3 timeout, completion polled",
	"IPv6: ADDRCONF(NETDEV_CHANGE): veth%u: link becomes ready",
};

char *gen_log(size_t size, const char *func, unsigned int seed,
	      size_t *ret_len)
{
	size_t cap = size + 4096, len = 0;
	unsigned int x = seed * 2654435761u + 1, t = 0;
	char *buf = malloc(cap);

	if (!buf)
		return NULL;
	while (len + 2048 < size) {
		x = x * 1103515245u + 12345;
		t += x % 5000;
		len += snprintf(buf + len, cap - len, "[%5u.%06u] ",
				t / 1000, (t % 1000) * 1000 + x % 1000);
		len += snprintf(buf + len, cap - len, noise[(x >> 8) % 8],
				x % 9973, x % 613);
		buf[len++] = '\n';
	}
	len += snprintf(buf + len, cap - len,
		"[%5u.000001] BUG: kernel NULL pointer dereference, address: 0000000000000008\n"
		"[%5u.000002] #PF: supervisor read access in kernel mode\n"
		"[%5u.000003] Oops: 0000 [#1] PREEMPT SMP NOPTI\n"
		"[%5u.000004] CPU: %u PID: %u Comm: kworker/u8:2 Not tainted 6.12.118+deb12-amd64 #1\n"
		"[%5u.000005] RIP: 0010:%s+0x%x/0x200 [netoops_test]\n"
		"[%5u.000006] Call Trace:\n"
		"[%5u.000007]  <TASK>\n"
		"[%5u.000008]  %s+0x%x/0x200 [netoops_test]\n"
		"[%5u.000009]  process_one_work+0x174/0x330\n"
		"[%5u.000010]  worker_thread+0x251/0x390\n"
		"[%5u.000011]  kthread+0xd2/0x100\n"
		"[%5u.000012]  ret_from_fork+0x34/0x50\n"
		"[%5u.000013]  </TASK>\n",
		t / 1000, t / 1000, t / 1000, t / 1000, x % 8, x % 30000,
		t / 1000, func, x % 256, t / 1000, t / 1000, t / 1000,
		func, x % 256, t / 1000, t / 1000, t / 1000, t / 1000,
		t / 1000);
	*ret_len = len;
	return buf;
}

void gen_noise(char *buf, size_t len, unsigned int seed)
{
	uint32_t x = 2463534242u + seed;
	size_t i;

	for (i = 0; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		buf[i] = 'a' + x % 26;
	}
	buf[len] = 0;
}
