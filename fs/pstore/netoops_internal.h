/* SPDX-License-Identifier: GPL-2.0 */
/*
 * netoops internals shared by the files of netoops.ko:
 *
 *   netoops_main.c	module init/exit, parameters, the pstore backend and
 *			the in-memory ring of recent records
 *   netoops_send.c	metadata and transmission of a dump to every target
 *   netoops_regs.c	register capture (die notifier, dumper context)
 *   netoops_cfs.c	the configfs target set and per-target user fields
 *   netoops_enc.c	the wire-format encoder (shared with userspace)
 */
#ifndef _NETOOPS_INTERNAL_H
#define _NETOOPS_INTERNAL_H

#include <linux/atomic.h>
#include <linux/netoops.h>
#include <linux/netpoll_targets.h>
#include <linux/spinlock.h>
#include <linux/types.h>

struct netoops_enc_opts;
struct netoops_tlv_buf;

/* Default FEC: k data datagrams, then m parity (bench/loss/RESULTS.txt). */
#define NETOOPS_FEC_K_DEFAULT		32
#define NETOOPS_FEC_M_DEFAULT		13
/* MAC keys: 16 to 64 bytes (a SHA-256 block; longer keys gain nothing). */
#define NETOOPS_AUTH_KEY_MIN		16
#define NETOOPS_AUTH_KEY_MAX		64

/* Room for the user fields of one target in the metadata of a dump. */
#define NETOOPS_USERFIELDS_BUDGET	640
/* Metadata common to all targets; see netoops_meta_common(). */
#define NETOOPS_META_COMMON_MAX		768
#define NETOOPS_META_MAX \
	(NETOOPS_META_COMMON_MAX + NETOOPS_USERFIELDS_BUDGET)
/* Most skbs one target keeps for dumps (see netoops_target_pool_want()). */
#define NETOOPS_POOL_SLOTS		4096

/**
 * struct netoops_dump - one dump to send, as the transmit path sees it
 * @reason:	NETOOPS_REASON_*
 * @oops_count:	pstore's oops counter of the record (0 for soft dumps)
 * @part:	pstore's part number of the record (1 for soft dumps)
 * @compression: NETOOPS_COMPRESS_*
 * @orig_len:	uncompressed length if known, else 0
 * @payload:	the record's bytes, as pstore handed them over
 * @len:	bytes at @payload
 * @crash:	true on a crash path: targets' lock only tried
 */
struct netoops_dump {
	u32		reason;
	u32		oops_count;
	u32		part;
	u32		compression;
	u32		orig_len;
	const void	*payload;
	size_t		len;
	bool		crash;
};

/**
 * struct netoops_txbuf - preallocated working memory of one sender
 * @meta:	metadata blob, NETOOPS_META_MAX bytes
 * @pkt:	one datagram, @pkt_cap bytes
 * @pkt_cap:	size of @pkt
 * @fec_lock:	protects @fec, @fec_len, @fec_k and @fec_m.  The sender
 *		holds it for a whole dump (the crash path only tries it and
 *		sends without parity if it is busy); netoops_txbuf_set_fec()
 *		takes it only to swap the pointer, polling with sleeps so that
 *		it never spins for the length of a dump.  Raw: taken under
 *		pstore's buf_lock, which is raw on 6.12.
 * @fec:	FEC scratch, NETOOPS_ENC_FEC_SCRATCH(@fec_m, @pkt_cap) bytes,
 *		or NULL without FEC
 * @fec_len:	size of @fec
 * @fec_k:	data datagrams per parity group, 0 without FEC
 * @fec_m:	parity datagrams per full group
 *
 * The pstore path and the soft-dump path each own one, so an operator's
 * soft dump never makes a crash wait for a buffer.
 */
struct netoops_txbuf {
	u8		*meta;
	u8		*pkt;
	size_t		pkt_cap;
	raw_spinlock_t	fec_lock;	/* see above: crash path trylocks */
	u8		*fec;
	size_t		fec_len;
	unsigned int	fec_k;
	unsigned int	fec_m;
};

/**
 * struct netoops_stats - counters shown by the "stats" parameter
 * @dumps:	dumps sent to at least one target
 * @packets:	datagrams handed to a device
 * @bytes:	UDP payload bytes of those datagrams
 * @errors:	datagrams that could not be sent (device not ready in time,
 *		down, or left queued when the budget ran out)
 * @skipped:	dumps not sent: one-shot already fired, targets' lock busy,
 *		no enabled target, or metadata that did not fit
 * @signed_pkts: datagrams sent with a MAC (subset of @packets)
 * @parity:	parity datagrams sent (subset of @packets)
 * @fec_busy:	crash dumps sent without parity because the FEC buffer was
 *		being replaced (fec_k/fec_m written) at that moment
 * @locked:	targets given up within a dump because a lock their device
 *		needs was held by the dumping CPU or by a CPU that panic()
 *		stopped
 * @nobufs:	targets given up within a dump because their preallocated
 *		skbs ran out
 * @unflushed:	targets of a crash dump whose device had not sent every
 *		datagram it took when the dump returned (budget spent, or
 *		the device could not be polled): a reset right after the
 *		dump loses them
 * @timeouts:	datagrams of @errors that the device did not take within
 *		xmit_timeout_us (not ready in time, or left queued in
 *		netpoll's backlog when the budget ran out)
 */
struct netoops_stats {
	atomic64_t	dumps;
	atomic64_t	packets;
	atomic64_t	bytes;
	atomic64_t	errors;
	atomic64_t	skipped;
	atomic64_t	signed_pkts;
	atomic64_t	parity;
	atomic64_t	fec_busy;
	atomic64_t	locked;
	atomic64_t	nobufs;
	atomic64_t	unflushed;
	atomic64_t	timeouts;
};

extern struct netoops_stats netoops_stats;

/* Parameters (netoops_main.c) read by the transmit path. */
extern unsigned int netoops_pkt_size;
extern unsigned int netoops_repeat;
extern unsigned int netoops_pace_us;
extern unsigned int netoops_xmit_timeout_us;
extern unsigned int netoops_dump_timeout_ms;
extern bool netoops_oneshot;
extern unsigned int netoops_fec_k;
extern unsigned int netoops_fec_m;

/* netoops_main.c */
size_t netoops_record_size(void);

/* netoops_send.c */
unsigned int netoops_target_pool_want(struct netpoll_target *nt,
				      unsigned int *pkt);
void netoops_boot_id_get(u8 out[16]);
void netoops_boot_id_set(const u8 in[16]);
int netoops_send_dump(const struct netoops_dump *d, struct netoops_txbuf *tb);
void netoops_rearm(void);
int netoops_txbuf_alloc(struct netoops_txbuf *tb);
void netoops_txbuf_free(struct netoops_txbuf *tb);
int netoops_txbuf_set_fec(struct netoops_txbuf *tb, unsigned int k,
			  unsigned int m);

/* netoops_regs.c */
int netoops_regs_init(void);
void netoops_regs_exit(void);
int netoops_put_regs(struct netoops_tlv_buf *b, bool crash);

/* netoops_cfs.c */
int netoops_cfs_init(const char *cmdline_targets);
void netoops_cfs_exit(void);
int netoops_walk_targets(netpoll_target_fn fn, void *data, bool crash);
int netoops_walk_targets_pinned(netpoll_target_fn fn, void *data);
int netoops_put_userfields(struct netpoll_target *nt,
			   struct netoops_tlv_buf *b, bool crash);
void netoops_target_auth(struct netpoll_target *nt,
			 struct netoops_enc_opts *o, bool soft);
struct netpoll_xmit_pool *netoops_target_pool(struct netpoll_target *nt);
void netoops_target_refill(struct netpoll_target *nt);
void netoops_resize_pools(void);

#endif /* _NETOOPS_INTERNAL_H */
