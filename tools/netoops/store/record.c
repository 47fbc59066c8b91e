// SPDX-License-Identifier: GPL-2.0
/*
 * Reassembled dump -> store record.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"
#include "sig/signature.h"

static int dup_meta_str(char **dst, const char *s)
{
	if (!*s)
		return 0;
	*dst = strdup(s);
	return *dst ? 0 : -ENOMEM;
}

static int copy_meta(struct nstore_dump *d, const struct netoops_meta *m)
{
	char buf[128];
	unsigned int i;
	int r;

	r = dup_meta_str(&d->hostname, m->hostname);
	if (!r)
		r = dup_meta_str(&d->release, m->release);
	if (!r)
		r = dup_meta_str(&d->version, m->version);
	if (!r)
		r = dup_meta_str(&d->arch, m->arch);
	if (r)
		return r;
	d->reason = m->reason;
	d->oops_count = m->oops_count;
	d->part = m->part;
	d->cpu = m->cpu;
	/* a time out of range (sender-chosen) is no time: store.h */
	if ((m->present & NETOOPS_META_HAS(NETOOPS_TLV_TIME)) &&
	    nstore_wall_sec_ok(m->wall_sec)) {
		d->have_time = true;
		d->wall_sec = m->wall_sec;
		d->wall_nsec = m->wall_nsec;
		d->uptime_ns = m->uptime_ns;
	}
	if (m->present & NETOOPS_META_HAS(NETOOPS_TLV_TAINT)) {
		d->have_taint = true;
		d->taint = m->taint;
	}
	buf[0] = 0;
	if (m->present & NETOOPS_META_HAS(NETOOPS_TLV_CPU_X86))
		snprintf(buf, sizeof(buf),
			 "%s family %u model %u stepping %u microcode 0x%x",
			 m->x86_vendor, m->x86_family, m->x86_model,
			 m->x86_stepping, m->x86_microcode);
	else if (m->present & NETOOPS_META_HAS(NETOOPS_TLV_CPU_ARM64))
		snprintf(buf, sizeof(buf), "midr 0x%llx",
			 (unsigned long long)m->arm64_midr);
	r = dup_meta_str(&d->cpu_desc, buf);
	if (r)
		return r;
	if ((m->present & NETOOPS_META_HAS(NETOOPS_TLV_REGS)) && m->regs_kept) {
		d->regs = malloc(m->regs_kept * sizeof(uint64_t));
		if (!d->regs)
			return -ENOMEM;
		memcpy(d->regs, m->regs, m->regs_kept * sizeof(uint64_t));
		d->nr_regs = m->regs_kept;
		d->regs_arch = m->regs_arch;
		d->regs_context = m->regs_context;
	}
	for (i = 0; i < m->nr_user; i++) {
		r = nstore_dump_add_user(d, m->user[i].key,
					 strlen(m->user[i].key),
					 m->user[i].value,
					 strlen(m->user[i].value));
		if (r)
			return r;
	}
	d->compression = m->compression;
	return 0;
}

/* Plain payload: the log is the payload without the holes. */
static int plain_text(struct nstore_dump *d, const struct netoops_dump *nd)
{
	size_t pos = 0, out = 0, i;
	int r;

	d->log = malloc(nd->payload_len + 1);
	if (!d->log)
		return -ENOMEM;
	for (i = 0; i < nd->nr_gaps; i++) {
		const struct netoops_gap *g = &nd->gaps[i];

		if (g->off > pos) {
			memcpy(d->log + out, nd->payload + pos, g->off - pos);
			out += g->off - pos;
		}
		r = nstore_dump_add_gap(d, out, g->len);
		if (r)
			return r;
		pos = (size_t)g->off + g->len;
	}
	if (nd->payload_len > pos) {
		memcpy(d->log + out, nd->payload + pos, nd->payload_len - pos);
		out += nd->payload_len - pos;
	}
	d->log[out] = 0;
	d->log_len = out;
	return 0;
}

/* Compressed payload: inflate up to the first hole. */
static int inflated_text(struct nstore_dump *d, const struct netoops_dump *nd,
			 uint32_t orig_len, int *payload_err)
{
	size_t cap, len = 0;
	char *buf;
	int r;

	cap = orig_len ? orig_len : nd->payload_len * 4 + 4096;
	if (cap > NETOOPS_INFLATE_MAX)
		cap = NETOOPS_INFLATE_MAX;
	for (;;) {
		buf = malloc(cap + 1);
		if (!buf)
			return -ENOMEM;
		r = netoops_dump_text(nd, buf, cap, &len);
		if (r != -EMSGSIZE || cap >= NETOOPS_INFLATE_MAX)
			break;
		free(buf);
		cap = cap * 2 > NETOOPS_INFLATE_MAX ? NETOOPS_INFLATE_MAX :
						     cap * 2;
	}
	buf[len] = 0;
	d->log = buf;
	d->log_len = len;
	if (r == -ENOMEM)
		return r;
	if (r == 0) {
		/* Whole and verified: the store may keep it compressed. */
		d->log_z = malloc(nd->payload_len);
		if (!d->log_z)
			return -ENOMEM;
		memcpy(d->log_z, nd->payload, nd->payload_len);
		d->log_z_len = nd->payload_len;
		return 0;
	}
	/* Everything after the first hole (or the corruption) is lost. */
	if (r != -ENODATA || nd->complete)
		*payload_err = r;
	return nstore_dump_add_gap(d, len, orig_len > len ? orig_len - len : 0);
}

int nstore_record_sign(struct nstore_dump *d)
{
	struct netoops_sig sig;
	size_t len = 0, i;
	int r;

	r = netoops_signature(d->log ? d->log : "", d->log_len, &sig);
	if (r < 0 && r != -ENOENT)
		return r;
	for (i = 0; i < sig.nframes; i++)
		len += strlen(sig.frames[i]) + 1;
	free(d->sig_title);
	free(d->sig_hash);
	free(d->sig_frames);
	d->sig_title = strdup(sig.title);
	d->sig_hash = strdup(sig.hash);
	d->sig_frames = malloc(len + 1);
	if (!d->sig_title || !d->sig_hash || !d->sig_frames)
		return -ENOMEM;
	d->sig_frames[0] = 0;
	for (i = 0; i < sig.nframes; i++) {
		if (i)
			strcat(d->sig_frames, "\n");
		strcat(d->sig_frames, sig.frames[i]);
	}
	return 0;
}

int nstore_record_from_dump(const struct netoops_dump *nd,
			    int64_t first_wall_ms, struct nstore_dump **ret,
			    int *ret_payload_err)
{
	struct nstore_dump *d;
	uint32_t orig_len = 0;
	int r, perr = 0;

	d = nstore_dump_new();
	if (!d)
		return -ENOMEM;
	memcpy(d->boot_id, nd->boot_id, sizeof(d->boot_id));
	d->dump_id = nd->dump_id;
	if (nd->has_meta) {
		r = copy_meta(d, &nd->meta);
		if (r)
			goto fail;
		orig_len = nd->meta.orig_len;
	}
	d->complete = nd->complete;
	d->pkt_count = nd->pkt_count;
	d->pkt_received = nd->pkts_received;
	d->payload_total = nd->payload_len;
	d->received_ms = first_wall_ms;
	d->authenticated = nd->authenticated;
	d->auth_key_id = nd->authenticated ? nd->auth_key_id : 0;
	if (nd->has_meta && nd->meta.compression == NETOOPS_COMPRESS_DEFLATE)
		r = inflated_text(d, nd, orig_len, &perr);
	else
		r = plain_text(d, nd);
	if (r)
		goto fail;
	r = nstore_record_sign(d);
	if (r)
		goto fail;
	*ret = d;
	if (ret_payload_err)
		*ret_payload_err = perr;
	return 0;
fail:
	nstore_dump_free(d);
	return r;
}
