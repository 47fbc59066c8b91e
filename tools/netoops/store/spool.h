/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The spool: dumps on their way to the store, kept in a directory so that
 * neither a store that fails (locked, disk full) nor a restart loses them.
 *
 *   DIR/lock                       flock(): one netoopsd per spool
 *   DIR/batch-<seq>.nsp            one file per group commit: the records
 *                                  of up to --batch dumps, removed once the
 *                                  store has committed them
 *   DIR/resume/<boot_id>-<dump_id>.dgrams
 *                                  the datagrams of a dump stored partial,
 *                                  as received (the format of netoopsd
 *                                  --archive: `netoops decode` reads it),
 *                                  to complete it when the rest arrives
 *
 * Every file is written to "NAME.tmp", flushed (fdatasync unless
 * NSPOOL_NOSYNC), renamed into place, then the directory is flushed: a file
 * that exists is whole.  A batch file is a header ("NOSPOOL\n", le32
 * version, le32 count) and per record le32 length, le32 CRC-32, the record
 * (nspool_encode()).
 *
 * Rules as store.h: 0 or a negative errno, no logging.  Different files may
 * be used from different threads at once; the sequence numbers of batches
 * are handed out by nspool_batch_write() alone.
 */
#ifndef NETOOPS_SPOOL_H
#define NETOOPS_SPOOL_H

#include <stddef.h>
#include <stdint.h>

#include "store.h"

struct nspool;

/* nspool_open() flags */
#define NSPOOL_NOSYNC	0x1	/* no fdatasync (--sync normal) */

/**
 * nspool_open() - open a spool directory, creating it if needed
 * @dir:	the directory (its parent must exist)
 * @flags:	NSPOOL_*
 * @ret:	the spool
 *
 * Takes DIR/lock and removes any "*.tmp" left by a crash.
 *
 * Return: 0; -EBUSY if another process holds the spool; the system's errno
 * (-EACCES, -ENOTDIR...).
 */
int nspool_open(const char *dir, unsigned int flags, struct nspool **ret);
void nspool_close(struct nspool *sp);

/* One record: a store dump, every field, in a self-describing order. */
int nspool_encode(const struct nstore_dump *d, uint8_t **ret, size_t *ret_len);
/* -EBADMSG for anything nspool_encode() did not write. */
int nspool_decode(const void *buf, size_t len, struct nstore_dump **ret);

/**
 * struct nspool_file - a file of the spool
 * @seq:	batch sequence number (batches)
 * @boot_id:	the dump's boot (resume files)
 * @dump_id:	the dump (resume files)
 * @size:	bytes on disk
 * @mtime_ns:	last written, for oldest-first orders
 */
struct nspool_file {
	uint64_t seq;
	uint8_t boot_id[16];
	uint64_t dump_id;
	uint64_t size;
	int64_t mtime_ns;
};

/**
 * nspool_batch_write() - write @n records as the next batch file
 * @sp:		the spool
 * @d:		the records
 * @n:		their number, >= 1
 * @ret_seq:	its sequence number
 * @ret_size:	its size on disk
 *
 * Return: 0, or -ENOSPC, -EDQUOT, -EIO... (nothing is left behind).
 */
int nspool_batch_write(struct nspool *sp, struct nstore_dump *const *d,
		       size_t n, uint64_t *ret_seq, uint64_t *ret_size);
/* Its records (each nstore_dump_free(), then free(*ret)); -EBADMSG if the
 * file is not whole.
 */
int nspool_batch_read(struct nspool *sp, uint64_t seq,
		      struct nstore_dump ***ret, size_t *ret_n);
int nspool_batch_remove(struct nspool *sp, uint64_t seq);
/* Renames a batch that cannot be read to "batch-<seq>.bad" for a human. */
int nspool_batch_set_aside(struct nspool *sp, uint64_t seq);
/* The batch files, lowest sequence first (free(*ret)). */
int nspool_batch_list(struct nspool *sp, struct nspool_file **ret,
		      size_t *ret_n);

/**
 * nspool_resume_write() - keep the datagrams of a partial dump
 * @sp:		the spool
 * @boot_id:	the dump's boot_id
 * @dump_id:	its dump_id
 * @dgrams:	its datagrams, concatenated as received
 * @len:	bytes at @dgrams
 * @ret_size:	the size of the file written
 *
 * A file already kept for the dump is merged in: its datagrams that are
 * not among @dgrams (byte for byte) are kept after them.
 *
 * Return: 0, -EINVAL (not datagrams), or the system's errno.
 */
int nspool_resume_write(struct nspool *sp, const uint8_t boot_id[16],
			uint64_t dump_id, const void *dgrams, size_t len,
			uint64_t *ret_size);
int nspool_resume_read(struct nspool *sp, const uint8_t boot_id[16],
		       uint64_t dump_id, uint8_t **ret, size_t *ret_len);
int nspool_resume_remove(struct nspool *sp, const uint8_t boot_id[16],
			 uint64_t dump_id);
/* The resume files, oldest first (free(*ret)). */
int nspool_resume_list(struct nspool *sp, struct nspool_file **ret,
		       size_t *ret_n);

/*
 * Length of the datagram at the start of @buf (hdr_len + tlv_len of its
 * header), or 0 if @buf does not start with a whole one.
 */
size_t nspool_dgram_len(const void *buf, size_t len);

#endif /* NETOOPS_SPOOL_H */
