// SPDX-License-Identifier: GPL-2.0
/*
 * netoops: a pstore backend that sends every dump over the network.
 *
 * pstore hands us each dmesg record (deflate-compressed unless pstore.compress
 * is off); we encode it in the netoops wire format (include/uapi/linux/
 * netoops.h) and send it with netpoll to every enabled target under
 * /sys/kernel/config/netoops/.  The last @records records are also kept in
 * RAM so that a mounted /sys/fs/pstore shows them (and can erase them) for
 * as long as the machine keeps running, e.g. after a non-fatal oops.
 *
 * How much of the log a record holds: pstore fills one record of at most
 * pstore_info.bufsize bytes: with compression, a header and the newest
 * bufsize * 100 / 60 bytes of text deflated into bufsize (text that does
 * not fit compressed is stored uncompressed, cut to bufsize bytes: 6.12
 * keeps the header and the oldest of that text, 6.1 the header and the
 * newest); without, the header and the newest bufsize bytes of text.  It
 * only starts another, older, part while the bytes written so far stay
 * below pstore's kmsg_bytes
 * (CONFIG_PSTORE_DEFAULT_KMSG_BYTES, 10240 on Debian; the pstore
 * "kmsg_bytes" mount option changes it).  So the first part is always
 * written, and we size bufsize to the whole kernel log buffer
 * (1 << CONFIG_LOG_BUF_SHIFT by default; set record_size when the log was
 * enlarged with log_buf_len=): the first part then holds the whole log.
 *
 * Module parameters (root only):
 *   records, record_size, max_reason, pkt_size, targets	at load time
 *   oneshot, repeat, pace_us, xmit_timeout_us, dump_timeout_ms, boot_id,
 *   fec_k, fec_m					at any time
 *   rearm, dump (write-only), stats (read-only)		controls
 */
#define pr_fmt(fmt) "netoops: " fmt

#include <linux/kernel.h>
#include <linux/kmsg_dump.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/pstore.h>
#include <linux/random.h>
#include <linux/reboot.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/uuid.h>
#include <linux/vmalloc.h>

#include "netoops_enc.h"
#include "netoops_internal.h"

#define NETOOPS_RECORDS_MAX	64

static unsigned int records = 4;
module_param(records, uint, 0444);
MODULE_PARM_DESC(records,
		 "records kept in RAM for /sys/fs/pstore (0-64, default 4)");

static unsigned long record_size = 1UL << CONFIG_LOG_BUF_SHIFT;
module_param(record_size, ulong, 0444);
MODULE_PARM_DESC(record_size,
		 "pstore record size in bytes (default: the log buffer size)");

/**
 * netoops_record_size() - largest payload of a dump
 *
 * Return: the pstore record size, fixed at load.
 */
size_t netoops_record_size(void)
{
	return record_size;
}

static int max_reason = KMSG_DUMP_OOPS;
module_param(max_reason, int, 0444);
MODULE_PARM_DESC(max_reason,
		 "highest kmsg_dump reason to send: 1 panic, 2 oops (default), 3 emergency restart, 4 shutdown");

static char *targets;
module_param(targets, charp, 0400);
MODULE_PARM_DESC(targets,
		 "targets to create at load, netconsole syntax, ';'-separated");

unsigned int netoops_pkt_size = NETOOPS_PKT_DEFAULT;
module_param_named(pkt_size, netoops_pkt_size, uint, 0444);
MODULE_PARM_DESC(pkt_size,
		 "largest UDP payload (256-65507, default 1472; capped by the MTU)");

bool netoops_oneshot;
module_param_named(oneshot, netoops_oneshot, bool, 0644);
MODULE_PARM_DESC(oneshot,
		 "send only the first dump until re-armed through 'rearm'");

/*
 * Run-time parameters that bound the crash path: a value outside its range
 * is refused with -EINVAL and the old one kept, at load as at run time.
 */
#define NETOOPS_UINT_PARAM(name, var, lo, hi)				\
static int netoops_##name##_set(const char *val,			\
				const struct kernel_param *kp)		\
{									\
	return param_set_uint_minmax(val, kp, lo, hi) ? -EINVAL : 0;	\
}									\
static const struct kernel_param_ops netoops_##name##_ops = {		\
	.set	= netoops_##name##_set,					\
	.get	= param_get_uint,					\
};									\
module_param_cb(name, &netoops_##name##_ops, &(var), 0644)

unsigned int netoops_repeat = 1;
NETOOPS_UINT_PARAM(repeat, netoops_repeat, 1, 16);
MODULE_PARM_DESC(repeat, "send every dump this many times (1-16, default 1)");

unsigned int netoops_pace_us;
NETOOPS_UINT_PARAM(pace_us, netoops_pace_us, 0, 10000);
MODULE_PARM_DESC(pace_us, "busy-wait between two datagrams, us (0-10000)");

unsigned int netoops_xmit_timeout_us = 200 * USEC_PER_MSEC;
NETOOPS_UINT_PARAM(xmit_timeout_us, netoops_xmit_timeout_us, 1,
		   10 * USEC_PER_SEC);
MODULE_PARM_DESC(xmit_timeout_us,
		 "longest wait for the device per datagram, us (1-10000000, default 200000)");

unsigned int netoops_dump_timeout_ms = 10 * MSEC_PER_SEC;
NETOOPS_UINT_PARAM(dump_timeout_ms, netoops_dump_timeout_ms, 1,
		   600 * MSEC_PER_SEC);
MODULE_PARM_DESC(dump_timeout_ms,
		 "longest time one dump may take, ms (1-600000, default 10000)");

unsigned int netoops_fec_k = NETOOPS_FEC_K_DEFAULT;
unsigned int netoops_fec_m = NETOOPS_FEC_M_DEFAULT;

/**
 * struct netoops_slot - one record kept in RAM
 * @id:		pstore record id, unique within the boot, 0 if free
 * @reason:	kmsg_dump reason
 * @count:	pstore oops counter
 * @part:	pstore part number
 * @compressed:	the bytes are deflate-compressed
 * @time:	when pstore made the record
 * @size:	bytes in @data
 * @data:	record_size bytes inside netoops_ctx.ring_mem
 */
struct netoops_slot {
	u64			id;
	enum kmsg_dump_reason	reason;
	unsigned int		count;
	unsigned int		part;
	bool			compressed;
	struct timespec64	time;
	size_t			size;
	u8			*data;
};

/**
 * struct netoops_ctx - the backend
 * @pstore:	what pstore sees; buf is record_size bytes
 * @ring_lock:	protects @slots, @next_id and @read_pos.  Raw: pstore calls
 *		write() with its own buf_lock held and interrupts off, in any
 *		context; the crash path only tries it.
 * @slots:	@records slots
 * @ring_mem:	storage of the slots' data
 * @next_id:	id of the next record stored
 * @read_pos:	id after the last record returned by read()
 * @pstore_tx:	buffers of the pstore path (serialised by pstore's buf_lock)
 * @soft_tx:	buffers of the soft-dump path (serialised by @soft_mutex)
 * @soft_buf:	log text of a soft dump, record_size bytes
 * @soft_mutex:	one soft dump at a time; a mutex as it runs in process
 *		context only (the "dump" parameter).  Also serialises changes
 *		of fec_k/fec_m with each other and with init and exit.
 * @tx_ready:	@pstore_tx and @soft_tx are allocated; under @soft_mutex
 * @registered:	pstore_register() succeeded
 */
struct netoops_ctx {
	struct pstore_info	pstore;
	raw_spinlock_t		ring_lock;
	struct netoops_slot	*slots;
	u8			*ring_mem;
	u64			next_id;
	u64			read_pos;
	struct netoops_txbuf	pstore_tx;
	struct netoops_txbuf	soft_tx;
	char			*soft_buf;
	struct mutex		soft_mutex;	/* see above: process context only */
	bool			tx_ready;
	bool			registered;
};

static struct netoops_ctx netoops_ctx = {
	.ring_lock	= __RAW_SPIN_LOCK_UNLOCKED(netoops_ctx.ring_lock),
	.next_id	= 1,
	.soft_mutex	= __MUTEX_INITIALIZER(netoops_ctx.soft_mutex),
};

static u32 netoops_map_reason(enum kmsg_dump_reason reason)
{
	switch (reason) {
	case KMSG_DUMP_PANIC:
		return NETOOPS_REASON_PANIC;
	case KMSG_DUMP_OOPS:
		return NETOOPS_REASON_OOPS;
	case KMSG_DUMP_EMERG:
		return NETOOPS_REASON_EMERG;
	case KMSG_DUMP_SHUTDOWN:
		switch (system_state) {
		case SYSTEM_RESTART:
			return NETOOPS_REASON_RESTART;
		case SYSTEM_HALT:
			return NETOOPS_REASON_HALT;
		case SYSTEM_POWER_OFF:
			return NETOOPS_REASON_POWEROFF;
		default:
			return NETOOPS_REASON_UNKNOWN;
		}
	default:
		return NETOOPS_REASON_UNKNOWN;
	}
}

/* Keep a copy for /sys/fs/pstore, overwriting the oldest slot if needed. */
static void netoops_ring_store(const struct pstore_record *record)
{
	struct netoops_slot *slot, *oldest = NULL;
	unsigned long flags;
	unsigned int i;

	if (!records || !raw_spin_trylock_irqsave(&netoops_ctx.ring_lock, flags))
		return;
	for (i = 0; i < records; i++) {
		slot = &netoops_ctx.slots[i];
		if (!oldest || slot->id < oldest->id)
			oldest = slot;
	}
	oldest->id = netoops_ctx.next_id++;
	oldest->reason = record->reason;
	oldest->count = record->count;
	oldest->part = record->part;
	oldest->compressed = record->compressed;
	oldest->time = record->time;
	oldest->size = min_t(size_t, record->size, record_size);
	memcpy(oldest->data, record->buf, oldest->size);
	raw_spin_unlock_irqrestore(&netoops_ctx.ring_lock, flags);
}

/*
 * pstore write: called with pstore's buf_lock held and interrupts off, from
 * any context up to panic.  Everything below is preallocated.
 */
static int netoops_pstore_write(struct pstore_record *record)
{
	struct netoops_dump d = {
		.reason		= netoops_map_reason(record->reason),
		.oops_count	= record->count,
		.part		= record->part,
		.compression	= record->compressed ? NETOOPS_COMPRESS_DEFLATE :
						       NETOOPS_COMPRESS_NONE,
		.orig_len	= record->compressed ? 0 : record->size,
		.payload	= record->buf,
		.len		= record->size,
		.crash		= true,
	};

	if (record->type != PSTORE_TYPE_DMESG)
		return -EINVAL;
	netoops_ring_store(record);
	/*
	 * pstore treats an error as "not stored"; the record is stored in
	 * RAM whatever the network did, and failures are counted in stats.
	 */
	netoops_send_dump(&d, &netoops_ctx.pstore_tx);
	return 0;
}

static int netoops_pstore_open(struct pstore_info *psi)
{
	netoops_ctx.read_pos = 0;
	return 0;
}

static int netoops_pstore_close(struct pstore_info *psi)
{
	return 0;
}

/* Oldest stored record with an id above @after, or NULL.  Ring lock held. */
static struct netoops_slot *netoops_ring_next(u64 after)
{
	struct netoops_slot *best = NULL;
	unsigned int i;

	for (i = 0; i < records; i++) {
		struct netoops_slot *s = &netoops_ctx.slots[i];

		if (s->id > after && (!best || s->id < best->id))
			best = s;
	}
	return best;
}

static ssize_t netoops_pstore_read(struct pstore_record *record)
{
	struct netoops_slot *slot;
	unsigned long flags;
	unsigned int tries;
	size_t size;
	void *buf;
	u64 id;

	/*
	 * Peek at the size, allocate outside the lock, copy if the record is
	 * still the same; a writer may have recycled the slot meanwhile.
	 */
	for (tries = 0; tries < 3; tries++) {
		raw_spin_lock_irqsave(&netoops_ctx.ring_lock, flags);
		slot = netoops_ring_next(netoops_ctx.read_pos);
		id = slot ? slot->id : 0;
		size = slot ? slot->size : 0;
		raw_spin_unlock_irqrestore(&netoops_ctx.ring_lock, flags);
		if (!id)
			return 0;

		buf = kmalloc(max_t(size_t, size, 1), GFP_KERNEL);
		if (!buf)
			return -ENOMEM;

		raw_spin_lock_irqsave(&netoops_ctx.ring_lock, flags);
		slot = netoops_ring_next(netoops_ctx.read_pos);
		if (slot && slot->id == id && slot->size == size) {
			netoops_ctx.read_pos = slot->id;
			memcpy(buf, slot->data, size);
			record->type = PSTORE_TYPE_DMESG;
			record->id = slot->id;
			record->reason = slot->reason;
			record->count = slot->count;
			record->part = slot->part;
			record->compressed = slot->compressed;
			record->time = slot->time;
			record->ecc_notice_size = 0;
			raw_spin_unlock_irqrestore(&netoops_ctx.ring_lock,
						   flags);
			record->buf = buf;
			record->size = size;
			return size;
		}
		raw_spin_unlock_irqrestore(&netoops_ctx.ring_lock, flags);
		kfree(buf);
	}
	return -EAGAIN;
}

static int netoops_pstore_erase(struct pstore_record *record)
{
	unsigned long flags;
	unsigned int i;
	int ret = -ENOENT;

	raw_spin_lock_irqsave(&netoops_ctx.ring_lock, flags);
	for (i = 0; i < records; i++) {
		struct netoops_slot *s = &netoops_ctx.slots[i];

		if (s->id && s->id == record->id) {
			s->id = 0;
			s->size = 0;
			ret = 0;
			break;
		}
	}
	raw_spin_unlock_irqrestore(&netoops_ctx.ring_lock, flags);
	return ret;
}

/* ---- controls ---------------------------------------------------------- */

/*
 * Soft dump: the whole log, uncompressed, sent as NETOOPS_REASON_SOFT
 * without going through pstore (pstore has no such reason, and a soft dump
 * must not take pstore's buf_lock, which a real crash may need).  Runs in
 * process context; the sending itself is the same bounded path as a crash.
 */
static int netoops_soft_dump(void)
{
	struct kmsg_dump_iter iter;
	struct netoops_dump d = {
		.reason		= NETOOPS_REASON_SOFT,
		.part		= 1,
		.compression	= NETOOPS_COMPRESS_NONE,
		.crash		= false,
	};
	size_t len = 0;
	int ret;

	mutex_lock(&netoops_ctx.soft_mutex);
	/* Parameters outlive module_exit(): refuse once torn down. */
	if (!netoops_ctx.registered) {
		mutex_unlock(&netoops_ctx.soft_mutex);
		return -ENODEV;
	}
	kmsg_dump_rewind(&iter);
	kmsg_dump_get_buffer(&iter, true, netoops_ctx.soft_buf, record_size,
			     &len);
	d.payload = netoops_ctx.soft_buf;
	d.len = len;
	d.orig_len = len;
	ret = netoops_send_dump(&d, &netoops_ctx.soft_tx);
	mutex_unlock(&netoops_ctx.soft_mutex);
	if (ret < 0)
		return ret;
	return ret ? 0 : -ENOTCONN;	/* no enabled target got it */
}

static int netoops_dump_set(const char *val, const struct kernel_param *kp)
{
	bool go;
	int ret;

	ret = kstrtobool(val, &go);
	if (ret)
		return ret;
	if (!go)
		return 0;
	return netoops_soft_dump();
}

static const struct kernel_param_ops netoops_dump_ops = {
	.set	= netoops_dump_set,
};
module_param_cb(dump, &netoops_dump_ops, NULL, 0200);
MODULE_PARM_DESC(dump,
		 "write 1: send the current log now (reason soft) to every enabled target");

static int netoops_rearm_set(const char *val, const struct kernel_param *kp)
{
	bool go;
	int ret;

	ret = kstrtobool(val, &go);
	if (ret)
		return ret;
	if (go)
		netoops_rearm();
	return 0;
}

static const struct kernel_param_ops netoops_rearm_ops = {
	.set	= netoops_rearm_set,
};
module_param_cb(rearm, &netoops_rearm_ops, NULL, 0200);
MODULE_PARM_DESC(rearm, "write 1: re-arm one-shot mode");

static int netoops_stats_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf,
			  "dumps %lld\npackets %lld\nbytes %lld\nerrors %lld\nskipped %lld\nsigned %lld\nparity %lld\nfec_busy %lld\nlocked %lld\nnobufs %lld\nunflushed %lld\ntimeouts %lld\n",
			  (long long)atomic64_read(&netoops_stats.dumps),
			  (long long)atomic64_read(&netoops_stats.packets),
			  (long long)atomic64_read(&netoops_stats.bytes),
			  (long long)atomic64_read(&netoops_stats.errors),
			  (long long)atomic64_read(&netoops_stats.skipped),
			  (long long)atomic64_read(&netoops_stats.signed_pkts),
			  (long long)atomic64_read(&netoops_stats.parity),
			  (long long)atomic64_read(&netoops_stats.fec_busy),
			  (long long)atomic64_read(&netoops_stats.locked),
			  (long long)atomic64_read(&netoops_stats.nobufs),
			  (long long)atomic64_read(&netoops_stats.unflushed),
			  (long long)atomic64_read(&netoops_stats.timeouts));
}

static const struct kernel_param_ops netoops_stats_ops = {
	.get	= netoops_stats_get,
};
module_param_cb(stats, &netoops_stats_ops, NULL, 0444);
MODULE_PARM_DESC(stats,
		 "counters: dumps, packets, bytes, errors, skipped, signed, parity, fec_busy, locked, nobufs, unflushed, timeouts");

/*
 * FEC parameters.  fec_k data datagrams are followed by fec_m parity
 * datagrams (NETOOPS_F_FEC); fec_k = 0 sends no parity.  A value is
 * refused with -EINVAL (the old one kept) unless fec_k <= 254 and, when
 * fec_k > 0, 1 <= fec_m and fec_k + fec_m <= NETOOPS_FEC_MAX.  Once the
 * module runs, a change reallocates each sender's scratch buffer (see
 * netoops_txbuf_set_fec()); -ENOMEM keeps the old parameters.
 */
static int netoops_fec_set(const char *val, const struct kernel_param *kp)
{
	unsigned int v, k, m;
	bool is_k = kp->arg == &netoops_fec_k;
	int ret;

	ret = kstrtouint(val, 0, &v);
	if (ret)
		return -EINVAL;
	mutex_lock(&netoops_ctx.soft_mutex);
	k = is_k ? v : netoops_fec_k;
	m = is_k ? netoops_fec_m : v;
	/* k < NETOOPS_FEC_MAX first: NETOOPS_FEC_MAX - k cannot wrap. */
	if (k >= NETOOPS_FEC_MAX || (k && (!m || m > NETOOPS_FEC_MAX - k))) {
		ret = -EINVAL;
		goto out;
	}
	if (netoops_ctx.tx_ready) {
		ret = netoops_txbuf_set_fec(&netoops_ctx.soft_tx, k, m);
		if (!ret)
			ret = netoops_txbuf_set_fec(&netoops_ctx.pstore_tx, k, m);
		if (ret) {
			/* put the soft path back in line with the params */
			netoops_txbuf_set_fec(&netoops_ctx.soft_tx,
					      netoops_fec_k, netoops_fec_m);
			goto out;
		}
	}
	*(unsigned int *)kp->arg = v;
	if (netoops_ctx.tx_ready)
		netoops_resize_pools();
out:
	mutex_unlock(&netoops_ctx.soft_mutex);
	return ret;
}

static const struct kernel_param_ops netoops_fec_ops = {
	.set	= netoops_fec_set,
	.get	= param_get_uint,
};
module_param_cb(fec_k, &netoops_fec_ops, &netoops_fec_k, 0644);
MODULE_PARM_DESC(fec_k,
		 "data datagrams per parity group (0 = no FEC, default 32; fec_k + fec_m <= 255)");
module_param_cb(fec_m, &netoops_fec_ops, &netoops_fec_m, 0644);
MODULE_PARM_DESC(fec_m,
		 "parity datagrams per group of fec_k (default 13: any 32 of 45 rebuild the group)");

/* 32 hex digits, or a UUID string; a trailing newline is ignored. */
static int netoops_boot_id_set_param(const char *val,
				     const struct kernel_param *kp)
{
	char s[UUID_STRING_LEN + 1];
	size_t len = strcspn(val, "\n");
	u8 id[16];
	uuid_t u;

	if (val[len] && strcmp(val + len, "\n"))
		return -EINVAL;		/* more after the newline */
	if (len == 32) {
		memcpy(s, val, len);
		s[len] = '\0';
		if (hex2bin(id, s, 16))
			return -EINVAL;
	} else if (len == UUID_STRING_LEN) {
		memcpy(s, val, len);
		s[len] = '\0';
		if (uuid_parse(s, &u))
			return -EINVAL;
		memcpy(id, u.b, 16);
	} else {
		return -EINVAL;
	}
	netoops_boot_id_set(id);
	return 0;
}

static int netoops_boot_id_get_param(char *buf, const struct kernel_param *kp)
{
	u8 id[16];

	netoops_boot_id_get(id);
	return sysfs_emit(buf, "%pUb\n", id);
}

static const struct kernel_param_ops netoops_boot_id_ops = {
	.set	= netoops_boot_id_set_param,
	.get	= netoops_boot_id_get_param,
};
module_param_cb(boot_id, &netoops_boot_id_ops, NULL, 0644);
MODULE_PARM_DESC(boot_id,
		 "identifier of this boot in every packet: random at load; 32 hex digits or a UUID");

/* ---- init / exit ------------------------------------------------------- */

static int netoops_check_params(void)
{
	if (records > NETOOPS_RECORDS_MAX) {
		pr_err("records=%u: at most %u\n", records, NETOOPS_RECORDS_MAX);
		return -EINVAL;
	}
	/* read() hands pstore a kmalloc()ed copy: stay within its limit. */
	if (record_size < 4096 || record_size > KMALLOC_MAX_SIZE) {
		pr_err("record_size=%lu: must be 4096 to %lu bytes\n",
		       record_size, (unsigned long)KMALLOC_MAX_SIZE);
		return -EINVAL;
	}
	if (max_reason < KMSG_DUMP_PANIC || max_reason >= KMSG_DUMP_MAX) {
		pr_err("max_reason=%d: must be %d to %d\n", max_reason,
		       KMSG_DUMP_PANIC, KMSG_DUMP_MAX - 1);
		return -EINVAL;
	}
	if (netoops_pkt_size < NETOOPS_PKT_MIN ||
	    netoops_pkt_size > NETOOPS_PKT_MAX) {
		pr_err("pkt_size=%u: must be %u to %u\n", netoops_pkt_size,
		       NETOOPS_PKT_MIN, NETOOPS_PKT_MAX);
		return -EINVAL;
	}
	return 0;
}

static void netoops_tx_free(void)
{
	mutex_lock(&netoops_ctx.soft_mutex);
	netoops_ctx.tx_ready = false;
	netoops_txbuf_free(&netoops_ctx.soft_tx);
	netoops_txbuf_free(&netoops_ctx.pstore_tx);
	mutex_unlock(&netoops_ctx.soft_mutex);
}

static int __init netoops_init(void)
{
	unsigned int i;
	u8 id[16];
	int ret;

	ret = netoops_check_params();
	if (ret)
		return ret;

	get_random_bytes(id, sizeof(id));
	netoops_boot_id_set(id);

	ret = -ENOMEM;
	netoops_ctx.pstore.buf = vzalloc(record_size);
	if (!netoops_ctx.pstore.buf)
		goto out;
	netoops_ctx.soft_buf = vzalloc(record_size);
	if (!netoops_ctx.soft_buf)
		goto out_free_pstore_buf;
	if (records) {
		netoops_ctx.slots = kcalloc(records, sizeof(*netoops_ctx.slots),
					    GFP_KERNEL);
		if (!netoops_ctx.slots)
			goto out_free_soft_buf;
		netoops_ctx.ring_mem = vzalloc(array_size(records, record_size));
		if (!netoops_ctx.ring_mem)
			goto out_free_slots;
		for (i = 0; i < records; i++)
			netoops_ctx.slots[i].data =
				netoops_ctx.ring_mem + i * record_size;
	}
	/* Under soft_mutex: fec_k/fec_m may be written meanwhile. */
	mutex_lock(&netoops_ctx.soft_mutex);
	ret = netoops_txbuf_alloc(&netoops_ctx.pstore_tx);
	if (!ret) {
		ret = netoops_txbuf_alloc(&netoops_ctx.soft_tx);
		if (ret)
			netoops_txbuf_free(&netoops_ctx.pstore_tx);
	}
	netoops_ctx.tx_ready = !ret;
	mutex_unlock(&netoops_ctx.soft_mutex);
	if (ret)
		goto out_free_ring;

	ret = netoops_regs_init();
	if (ret)
		goto out_free_soft_tx;
	ret = netoops_cfs_init(targets);
	if (ret)
		goto out_regs_exit;

	netoops_ctx.pstore.owner = THIS_MODULE;
	netoops_ctx.pstore.name = "netoops";
	netoops_ctx.pstore.bufsize = record_size;
	netoops_ctx.pstore.flags = PSTORE_FLAGS_DMESG;
	netoops_ctx.pstore.max_reason = max_reason;
	netoops_ctx.pstore.open = netoops_pstore_open;
	netoops_ctx.pstore.close = netoops_pstore_close;
	netoops_ctx.pstore.read = netoops_pstore_read;
	netoops_ctx.pstore.write = netoops_pstore_write;
	netoops_ctx.pstore.erase = netoops_pstore_erase;

	ret = pstore_register(&netoops_ctx.pstore);
	if (ret) {
		pr_err("pstore_register failed (%d): another backend holds pstore? see pstore.backend=\n",
		       ret);
		goto out_cfs_exit;
	}
	mutex_lock(&netoops_ctx.soft_mutex);
	netoops_ctx.registered = true;
	mutex_unlock(&netoops_ctx.soft_mutex);
	pr_info("registered: record_size %lu, %u records in RAM, max_reason %d\n",
		record_size, records, max_reason);
	return 0;

out_cfs_exit:
	netoops_cfs_exit();
out_regs_exit:
	netoops_regs_exit();
out_free_soft_tx:
	netoops_tx_free();
out_free_ring:
	vfree(netoops_ctx.ring_mem);
out_free_slots:
	kfree(netoops_ctx.slots);
out_free_soft_buf:
	vfree(netoops_ctx.soft_buf);
out_free_pstore_buf:
	vfree(netoops_ctx.pstore.buf);
out:
	return ret;
}

static void __exit netoops_exit(void)
{
	mutex_lock(&netoops_ctx.soft_mutex);
	netoops_ctx.registered = false;
	mutex_unlock(&netoops_ctx.soft_mutex);
	pstore_unregister(&netoops_ctx.pstore);
	netoops_cfs_exit();
	netoops_regs_exit();
	netoops_tx_free();
	vfree(netoops_ctx.ring_mem);
	kfree(netoops_ctx.slots);
	vfree(netoops_ctx.soft_buf);
	vfree(netoops_ctx.pstore.buf);
}

module_init(netoops_init);
module_exit(netoops_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("pstore backend sending kernel crash dumps over the network");
