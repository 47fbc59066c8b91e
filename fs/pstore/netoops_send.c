// SPDX-License-Identifier: GPL-2.0
/*
 * netoops transmit path: build the metadata of a dump, cut it into
 * datagrams with the shared encoder and push every datagram to every
 * enabled target through netpoll_xmit.
 *
 * Crash-path rules (they apply to everything reachable from
 * netoops_send_dump() for a crash dump): no allocation, no sleeping, no
 * printk, locks only tried, and every loop bounded -- per datagram by
 * xmit_timeout_us, per dump by dump_timeout_ms.  Soft dumps run in process
 * context with the targets pinned, not locked, so that a crash meanwhile
 * is sent in full.
 *
 * Authentication and FEC use only what was prepared in process context:
 * the target's keyed hmac(sha256) transform and descriptor (netoops_cfs.c)
 * and the sender's FEC scratch buffer (struct netoops_txbuf).
 */
#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/kernel.h>
#include <linux/netpoll.h>
#include <linux/nmi.h>
#include <linux/netpoll_targets.h>
#include <linux/netpoll_xmit.h>
#include <linux/random.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/panic.h>
#include <linux/processor.h>
#include <linux/timekeeping.h>
#include <linux/utsname.h>
#include <linux/vmalloc.h>

#include "netoops_enc.h"
#include "netoops_internal.h"

struct netoops_stats netoops_stats;

/*
 * Boot identifier.  Written only from the parameter store (process
 * context, serialised by the parameter lock); read by dumps.  A dump racing
 * with a store may see a mix of old and new bytes: acceptable for an
 * operator action that is done once at boot.
 */
static u8 netoops_boot_id[16];

/* Last dump id handed out; ids strictly increase within a boot. */
static atomic64_t netoops_last_dump_id;

/*
 * One-shot state: 0 armed, 1 fired.  See netoops_oneshot.  The pstore
 * oops counter of the dump that fired is kept so that its later parts
 * (pstore may split a dump) still go out.
 */
static atomic_t netoops_fired;
static u32 netoops_fired_count;

void netoops_boot_id_get(u8 out[16])
{
	memcpy(out, netoops_boot_id, 16);
}

void netoops_boot_id_set(const u8 in[16])
{
	memcpy(netoops_boot_id, in, 16);
}

void netoops_rearm(void)
{
	atomic_set(&netoops_fired, 0);
}

/* Realtime nanoseconds at the dump, bumped to stay strictly increasing. */
static u64 netoops_next_dump_id(void)
{
	u64 now = ktime_get_real_fast_ns();
	s64 last = atomic64_read(&netoops_last_dump_id);

	do {
		if (now <= (u64)last)
			now = (u64)last + 1;
	} while (!atomic64_try_cmpxchg(&netoops_last_dump_id, &last, now));
	return now;
}

static u64 netoops_taint(void)
{
	u64 mask = 0;
	unsigned int i;

	for (i = 0; i < TAINT_FLAGS_COUNT && i < 64; i++)
		if (test_taint(i))
			mask |= BIT_ULL(i);
	return mask;
}

static void netoops_put_cpu(struct netoops_tlv_buf *b)
{
#ifdef CONFIG_X86
	const struct cpuinfo_x86 *c = &cpu_data(raw_smp_processor_id());

	netoops_tlv_put_cpu_x86(b, c->x86_vendor_id, c->x86, c->x86_model,
				c->x86_stepping, c->microcode);
#endif
}

/*
 * Metadata every target gets.  The per-target user fields are appended
 * after it by netoops_target_dump().
 */
static int netoops_meta_common(const struct netoops_dump *d,
			       struct netoops_tlv_buf *b)
{
	const struct new_utsname *uts = &init_uts_ns.name;
	u64 wall = ktime_get_real_fast_ns();
	u64 mono = ktime_get_mono_fast_ns();
	u32 wall_nsec = do_div(wall, NSEC_PER_SEC);	/* wall is now in s */

	netoops_tlv_put_dump_info(b, d->reason, d->oops_count, d->part,
				  raw_smp_processor_id());
	netoops_tlv_put_time(b, (s64)wall, wall_nsec, mono);
	/* init_uts_ns: the host's names, not the crashing task's namespace. */
	netoops_tlv_put_str(b, NETOOPS_TLV_RELEASE, uts->release);
	netoops_tlv_put_str(b, NETOOPS_TLV_VERSION, uts->version);
	netoops_tlv_put_str(b, NETOOPS_TLV_ARCH, uts->machine);
	netoops_tlv_put_str(b, NETOOPS_TLV_HOSTNAME, uts->nodename);
	netoops_put_cpu(b);
	netoops_put_regs(b, d->crash);
	netoops_tlv_put_taint(b, netoops_taint());
	netoops_tlv_put_payload_info(b, d->compression, d->orig_len);
	return netoops_tlv_error(b);
}

/* State of one dump while it visits the targets. */
struct netoops_tx {
	const struct netoops_dump	*d;
	struct netoops_txbuf		*tb;
	struct netoops_tlv_buf		meta;	/* common part, then user */
	size_t				common_len;
	u8				boot_id[16];
	u64				dump_id;
	u64				deadline_ns;
	int				crash_seq;	/* at a soft dump's start */
	unsigned int			sent_to;	/* targets reached */
	unsigned int			fec_k;		/* 0: no parity */
	unsigned int			fec_m;
	u8				*fec;
	size_t				fec_len;
};

/* Crash dumps started so far: a soft dump stops when it changes. */
static atomic_t netoops_crash_seq = ATOMIC_INIT(0);

/* Give up on a target after this many datagrams in a row failed. */
#define NETOOPS_MAX_CONSECUTIVE_ERRORS	4

/* Account for one datagram handed to a device. */
static void netoops_count_pkt(const u8 *pkt, int len)
{
	u16 flags = pkt[6] | (pkt[7] << 8);

	atomic64_inc(&netoops_stats.packets);
	atomic64_add(len, &netoops_stats.bytes);
	if (flags & NETOOPS_F_AUTH)
		atomic64_inc(&netoops_stats.signed_pkts);
	if (flags & NETOOPS_F_PARITY)
		atomic64_inc(&netoops_stats.parity);
}

static size_t netoops_target_pkt_size(struct netpoll_target *nt)
{
	struct net_device *dev = nt->np.dev;
	size_t hdrs = nt->np.ipv6 ? 48 : 28;
	size_t sz = netoops_pkt_size;

	if (dev && dev->mtu > hdrs && dev->mtu - hdrs < sz)
		sz = dev->mtu - hdrs;
	return max_t(size_t, sz, NETOOPS_PKT_MIN);
}

/*
 * Lay the dump out for @nt: common metadata plus the target's user fields,
 * signed with the target's key if it has one, with parity if FEC is on.
 * When that does not fit a datagram, the user fields are dropped first,
 * then the parity; never the dump.
 */
static int netoops_target_enc(struct netpoll_target *nt, struct netoops_tx *tx,
			      struct netoops_enc *enc)
{
	struct netoops_enc_opts o = {
		.max_pkt	= min(netoops_target_pkt_size(nt), tx->tb->pkt_cap),
		.fec_k		= tx->fec_k,
		.fec_m		= tx->fec_m,
		.scratch	= tx->fec,
		.scratch_len	= tx->fec_len,
	};
	int err;

	netoops_target_auth(nt, &o, !tx->d->crash);
	err = netoops_enc_init_opts(enc, tx->boot_id, tx->dump_id, tx->meta.buf,
				    tx->meta.len, tx->d->payload, tx->d->len,
				    &o);
	if (err != -EMSGSIZE)
		return err;
	if (tx->meta.len > tx->common_len) {
		err = netoops_enc_init_opts(enc, tx->boot_id, tx->dump_id,
					    tx->meta.buf, tx->common_len,
					    tx->d->payload, tx->d->len, &o);
		if (err != -EMSGSIZE)
			return err;
	}
	if (!o.fec_k)
		return err;
	o.fec_k = 0;
	return netoops_enc_init_opts(enc, tx->boot_id, tx->dump_id,
				     tx->meta.buf, tx->common_len,
				     tx->d->payload, tx->d->len, &o);
}

/**
 * netoops_target_pool_want() - skbs a target keeps for dumps
 * @nt:		an enabled target
 * @pkt:	set to the largest datagram sent to it
 *
 * Enough for two dumps of a full record with the target's MAC and the
 * current FEC parameters: an oops dump and the panic that follows it.
 * The most datagrams any layout netoops_target_enc() may choose takes,
 * over every metadata size up to NETOOPS_META_MAX: with parity where it
 * fits, else without.
 * Context: process; allocates nothing.
 *
 * Return: the number of skbs; more than NETOOPS_POOL_SLOTS if a pool
 * cannot hold two dumps.
 */
unsigned int netoops_target_pool_want(struct netpoll_target *nt,
				      unsigned int *pkt)
{
	struct netoops_enc_opts o = {
		.max_pkt	= min_t(size_t, netoops_target_pkt_size(nt),
					netoops_pkt_size),
		.fec_k		= READ_ONCE(netoops_fec_k),
		.fec_m		= READ_ONCE(netoops_fec_m),
	};
	size_t rec = netoops_record_size(), meta;
	long n, most = 0;

	netoops_target_auth(nt, &o, false);
	*pkt = o.max_pkt;
	for (meta = 0; meta <= NETOOPS_META_MAX; meta += NETOOPS_TLV_ALIGN) {
		n = netoops_enc_count(meta, rec, &o);
		if (n == -EMSGSIZE && o.fec_k) {
			struct netoops_enc_opts plain = o;

			plain.fec_k = 0;
			n = netoops_enc_count(meta, rec, &plain);
		}
		most = max(most, n);
	}
	return 2 * most;
}

/*
 * Send the datagram of @len bytes in @tx's buffer to @nt.  A crash dump
 * goes out in the target's preallocated skbs.  A soft dump runs in process
 * context with the target pinned: netpoll allocates the skb, interrupts
 * are off for this datagram only, and -ECANCELED says that a crash dump
 * has started since.
 */
static int netoops_send_pkt(struct netpoll_target *nt, struct netoops_tx *tx,
			    int len)
{
	unsigned long flags;
	int err;

	touch_nmi_watchdog();
	if (tx->d->crash)
		return netpoll_xmit_udp_pooled(&nt->np, netoops_target_pool(nt),
					       tx->tb->pkt, len,
					       netoops_xmit_timeout_us);
	if (atomic_read(&netoops_crash_seq) != tx->crash_seq)
		return -ECANCELED;
	local_irq_save(flags);
	err = netpoll_xmit_udp(&nt->np, tx->tb->pkt, len,
			       netoops_xmit_timeout_us);
	local_irq_restore(flags);
	cond_resched();
	return err;
}

static int netoops_target_dump(struct netpoll_target *nt, void *data)
{
	struct netpoll_xmit_pool *pool = netoops_target_pool(nt);
	struct netoops_tx *tx = data;
	struct netoops_txbuf *tb = tx->tb;
	unsigned int r, bad = 0;
	struct netoops_enc enc;
	bool any = false;
	int len, err, stop = 0;
	u64 now, left_us;

	/* Common metadata, then this target's user fields. */
	tx->meta.len = tx->common_len;
	tx->meta.err = 0;
	netoops_put_userfields(nt, &tx->meta, tx->d->crash);
	if (netoops_tlv_error(&tx->meta)) {
		/* Fields that do not fit are dropped, not the dump. */
		tx->meta.len = tx->common_len;
		tx->meta.err = 0;
	}

	err = netoops_target_enc(nt, tx, &enc);
	if (err) {
		atomic64_inc(&netoops_stats.errors);
		return 0;
	}

	for (r = 0; r < max(netoops_repeat, 1U); r++) {
		/* Repeats only from skbs a following dump will not need. */
		if (r && tx->d->crash && netpoll_xmit_pool_avail(pool) <
			 enc.total_pkts + READ_ONCE(pool->want) / 2)
			break;
		netoops_enc_rewind(&enc);
		while ((len = netoops_enc_next(&enc, tb->pkt, tb->pkt_cap)) > 0) {
			if (ktime_get_mono_fast_ns() > tx->deadline_ns) {
				stop = 1;	/* dump budget spent */
				goto out;
			}
			err = netoops_send_pkt(nt, tx, len);
			if (err == -ECANCELED) {
				stop = 1;	/* a crash dump started */
				goto out;
			}
			if (err == -EDEADLK) {
				/* never call into a driver whose lock is stuck */
				atomic64_inc(&netoops_stats.locked);
				goto out;
			}
			if (err == -ENOBUFS) {
				atomic64_inc(&netoops_stats.nobufs);
				goto out;
			}
			if (err) {
				atomic64_inc(&netoops_stats.errors);
				if (err == -ETIMEDOUT || err == -EINPROGRESS)
					atomic64_inc(&netoops_stats.timeouts);
				if (err == -ENODEV ||
				    ++bad >= NETOOPS_MAX_CONSECUTIVE_ERRORS)
					goto out;
			} else {
				netoops_count_pkt(tb->pkt, len);
				bad = 0;
				any = true;
			}
			if (netoops_pace_us)
				udelay(netoops_pace_us);
		}
		if (len < 0) {
			/* the MAC failed: better nothing than unsigned */
			atomic64_inc(&netoops_stats.errors);
			goto out;
		}
	}
out:
	/*
	 * The driver took the datagrams; have the device send them before
	 * whatever follows a crash dump resets the machine (within what is
	 * left of the dump's budget).
	 */
	now = ktime_get_mono_fast_ns();
	left_us = now < tx->deadline_ns ?
		  div_u64(tx->deadline_ns - now, NSEC_PER_USEC) : 0;
	if (any && tx->d->crash &&
	    netpoll_xmit_pool_flush(&nt->np, pool,
				    min_t(u64, netoops_xmit_timeout_us, left_us)))
		atomic64_inc(&netoops_stats.unflushed);
	if (any)
		tx->sent_to++;
	/* only an oops lives on to refill; a panic or a reboot does not */
	if (tx->d->reason == NETOOPS_REASON_OOPS)
		netoops_target_refill(nt);
	return stop;
}

/*
 * Send to every target with @tb's parity settings; @tb->fec_lock held, or
 * for a soft dump the soft-dump mutex, which also orders FEC changes of
 * its buffers.
 */
static int netoops_send_fec(struct netoops_tx *tx, struct netoops_txbuf *tb)
{
	if (tb->fec) {
		tx->fec_k = tb->fec_k;
		tx->fec_m = tb->fec_m;
		tx->fec = tb->fec;
		tx->fec_len = tb->fec_len;
	}
	if (!tx->d->crash)
		return netoops_walk_targets_pinned(netoops_target_dump, tx);
	return netoops_walk_targets(netoops_target_dump, tx, true);
}

/**
 * netoops_send_dump() - send one dump to every enabled target
 * @d:	the dump
 * @tb:	the caller's preallocated buffers
 *
 * Context: with @d->crash, any, including panic: the targets' lock and
 * the FEC buffer's lock are only tried (without the latter the dump goes
 * out without parity), and nothing is allocated.  Without it (a soft
 * dump), process context with the soft-dump mutex held: the targets are
 * pinned instead of locked, interrupts are off one datagram at a time,
 * netpoll allocates the skbs, and a crash dump that starts ends the soft
 * dump.  Never prints.  Time is bounded by dump_timeout_ms (plus one
 * datagram's xmit_timeout_us).
 *
 * Return: number of targets that got at least one datagram, -EALREADY if
 * one-shot mode already fired, -EBUSY if the targets could not be locked,
 * or another negative errno if the metadata could not be built.
 */
int netoops_send_dump(const struct netoops_dump *d, struct netoops_txbuf *tb)
{
	struct netoops_tx tx = { .d = d, .tb = tb };
	unsigned long flags;
	int ret;

	/* Soft dumps are operator requests: they neither fire nor obey it. */
	if (netoops_oneshot && d->reason != NETOOPS_REASON_SOFT) {
		if (atomic_cmpxchg(&netoops_fired, 0, 1) == 0) {
			WRITE_ONCE(netoops_fired_count, d->oops_count);
		} else if (READ_ONCE(netoops_fired_count) != d->oops_count) {
			atomic64_inc(&netoops_stats.skipped);
			return -EALREADY;
		}
	}

	netoops_tlv_init(&tx.meta, tb->meta, NETOOPS_META_COMMON_MAX);
	ret = netoops_meta_common(d, &tx.meta);
	if (ret) {
		atomic64_inc(&netoops_stats.skipped);
		return ret;
	}
	tx.common_len = tx.meta.len;
	tx.meta.cap = NETOOPS_META_MAX;
	netoops_boot_id_get(tx.boot_id);
	tx.dump_id = netoops_next_dump_id();
	tx.deadline_ns = ktime_get_mono_fast_ns() +
			 (u64)netoops_dump_timeout_ms * NSEC_PER_MSEC;
	if (d->crash)
		atomic_inc(&netoops_crash_seq);
	else
		tx.crash_seq = atomic_read(&netoops_crash_seq);

	if (!d->crash) {
		ret = netoops_send_fec(&tx, tb);
	} else if (raw_spin_trylock_irqsave(&tb->fec_lock, flags)) {
		ret = netoops_send_fec(&tx, tb);
		raw_spin_unlock_irqrestore(&tb->fec_lock, flags);
	} else {
		/* the FEC buffer is being replaced: send without parity */
		atomic64_inc(&netoops_stats.fec_busy);
		ret = netoops_walk_targets(netoops_target_dump, &tx, true);
	}
	if (ret < 0 || !tx.sent_to) {
		atomic64_inc(&netoops_stats.skipped);
		return ret < 0 ? ret : 0;
	}
	atomic64_inc(&netoops_stats.dumps);
	return tx.sent_to;
}

static int netoops_fec_alloc(size_t pkt_cap, unsigned int k, unsigned int m,
			     u8 **buf, size_t *len)
{
	*buf = NULL;
	*len = 0;
	if (!k)
		return 0;
	*len = NETOOPS_ENC_FEC_SCRATCH(m, pkt_cap);
	*buf = vzalloc(*len);
	return *buf ? 0 : -ENOMEM;
}

/**
 * netoops_txbuf_alloc() - allocate a sender's buffers
 * @tb:	the sender's buffers, zeroed or freed before
 *
 * Sizes them for pkt_size and, with FEC on, for fec_m parity rows.
 * Context: process; the caller serialises it with netoops_txbuf_set_fec().
 *
 * Return: 0 or -ENOMEM (nothing left allocated).
 */
int netoops_txbuf_alloc(struct netoops_txbuf *tb)
{
	raw_spin_lock_init(&tb->fec_lock);
	tb->pkt_cap = netoops_pkt_size;
	tb->fec_k = netoops_fec_k;
	tb->fec_m = netoops_fec_m;
	tb->meta = vzalloc(NETOOPS_META_MAX);
	tb->pkt = vzalloc(tb->pkt_cap);
	if (!tb->meta || !tb->pkt ||
	    netoops_fec_alloc(tb->pkt_cap, tb->fec_k, tb->fec_m, &tb->fec,
			      &tb->fec_len)) {
		netoops_txbuf_free(tb);
		return -ENOMEM;
	}
	return 0;
}

/**
 * netoops_txbuf_free() - free what netoops_txbuf_alloc() allocated
 * @tb:	the sender's buffers, no longer used by any sender
 */
void netoops_txbuf_free(struct netoops_txbuf *tb)
{
	vfree(tb->meta);
	vfree(tb->pkt);
	vfree(tb->fec);
	tb->meta = NULL;
	tb->pkt = NULL;
	tb->fec = NULL;
	tb->fec_len = 0;
}

/**
 * netoops_txbuf_set_fec() - change the FEC parameters of a sender
 * @tb:	the sender's buffers
 * @k:	data datagrams per parity group, 0 to send no parity
 * @m:	parity datagrams per full group (ignored when @k is 0)
 *
 * Allocates the new scratch buffer first, then swaps it in under
 * @tb->fec_lock and frees the old one, so a sender sees either the old or
 * the new parameters with a buffer of the matching size, never a mix.  The
 * lock is polled with short sleeps: a sender may hold it for a whole dump.
 * Context: process, may sleep.  The caller validated @k and @m and
 * serialises calls.
 *
 * Return: 0, or -ENOMEM with the old parameters kept.
 */
int netoops_txbuf_set_fec(struct netoops_txbuf *tb, unsigned int k,
			  unsigned int m)
{
	unsigned long flags;
	size_t len;
	u8 *buf;

	if (netoops_fec_alloc(tb->pkt_cap, k, m, &buf, &len))
		return -ENOMEM;
	while (!raw_spin_trylock_irqsave(&tb->fec_lock, flags))
		usleep_range(500, 1000);
	swap(tb->fec, buf);
	swap(tb->fec_len, len);
	tb->fec_k = k;
	tb->fec_m = k ? m : 0;
	raw_spin_unlock_irqrestore(&tb->fec_lock, flags);
	vfree(buf);
	return 0;
}
