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
#include <linux/types.h>

struct netoops_tlv_buf;

/* Room for the user fields of one target in the metadata of a dump. */
#define NETOOPS_USERFIELDS_BUDGET	640
/* Metadata common to all targets; see netoops_meta_common(). */
#define NETOOPS_META_COMMON_MAX		768
#define NETOOPS_META_MAX \
	(NETOOPS_META_COMMON_MAX + NETOOPS_USERFIELDS_BUDGET)

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
 *
 * The pstore path and the soft-dump path each own one, so an operator's
 * soft dump never makes a crash wait for a buffer.
 */
struct netoops_txbuf {
	u8		*meta;
	u8		*pkt;
	size_t		pkt_cap;
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
 */
struct netoops_stats {
	atomic64_t	dumps;
	atomic64_t	packets;
	atomic64_t	bytes;
	atomic64_t	errors;
	atomic64_t	skipped;
};

extern struct netoops_stats netoops_stats;

/* Parameters (netoops_main.c) read by the transmit path. */
extern unsigned int netoops_pkt_size;
extern unsigned int netoops_repeat;
extern unsigned int netoops_pace_us;
extern unsigned int netoops_xmit_timeout_us;
extern unsigned int netoops_dump_timeout_ms;
extern bool netoops_oneshot;

/* netoops_send.c */
void netoops_boot_id_get(u8 out[16]);
void netoops_boot_id_set(const u8 in[16]);
int netoops_send_dump(const struct netoops_dump *d, struct netoops_txbuf *tb);
void netoops_rearm(void);
int netoops_txbuf_alloc(struct netoops_txbuf *tb);
void netoops_txbuf_free(struct netoops_txbuf *tb);

/* netoops_regs.c */
int netoops_regs_init(void);
void netoops_regs_exit(void);
int netoops_put_regs(struct netoops_tlv_buf *b);

/* netoops_cfs.c */
int netoops_cfs_init(const char *cmdline_targets);
void netoops_cfs_exit(void);
int netoops_for_each_target(netpoll_target_fn fn, void *data, bool crash);
int netoops_put_userfields(struct netpoll_target *nt,
			   struct netoops_tlv_buf *b, bool crash);

#endif /* _NETOOPS_INTERNAL_H */
