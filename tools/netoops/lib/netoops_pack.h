/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Finished dumps kept packed while they wait for a finisher: the payload,
 * the gap list and the metadata (zero runs squeezed out: 11 KiB of struct,
 * a few hundred bytes of it used) in one contiguous block, carved from
 * slabs of their own.
 *
 * Why: a struct netoops_dump is 11 KiB before its payload, and a crash
 * storm holds thousands of finished dumps at once; carved from 2 MiB
 * slabs, they do not fragment the heap, and an emptied slab is used
 * again without faulting its pages in anew.
 *
 * One arena per receive thread: only that thread packs (no lock); any
 * thread releases (a slab's count is atomic).  An emptied slab is kept
 * for reuse (a few) or unmapped.
 *
 *   struct netoops_packed *p = netoops_dump_pack(arena, nd);
 *   ...another thread...
 *   struct netoops_dump *view = netoops_dump_unpack(p, &buf);
 *   use(view);                   (payload and gaps point into @p)
 *   netoops_packed_release(p);
 */
#ifndef NETOOPS_PACK_H
#define NETOOPS_PACK_H

#include <stddef.h>
#include <stdint.h>

#include "netoops_decode.h"

#define NETOOPS_PACK_SLAB	(2u << 20)	/* bytes per slab */
#define NETOOPS_PACK_KEEP	4		/* empty slabs kept for reuse */
#define NETOOPS_PACK_PREFAULT	2		/* kept ones the filler keeps
						 * ready, faulted in */

struct netoops_pack_arena;
struct netoops_packed;

/**
 * struct netoops_pack_stats - what an arena holds
 * @slabs:	slabs mapped (shared ones and single large dumps)
 * @bytes:	bytes mapped
 * @free_slabs:	empty slabs kept for reuse (counted in @slabs)
 * @reused:	slabs taken again from the kept ones
 */
struct netoops_pack_stats {
	uint64_t slabs;
	uint64_t bytes;
	uint64_t free_slabs;
	uint64_t reused;
};

/* Return 0 or -ENOMEM. */
int netoops_pack_arena_new(struct netoops_pack_arena **ret);
/* Once every packed dump of it is released; NULL is fine. */
void netoops_pack_arena_free(struct netoops_pack_arena *a);
/*
 * Start the arena's filler thread: it keeps NETOOPS_PACK_PREFAULT empty
 * slabs with their pages faulted in, so that packing does not fault.
 * Stopped by netoops_pack_arena_free().  Return 0 or -errno.
 */
int netoops_pack_arena_prefault(struct netoops_pack_arena *a);
void netoops_pack_arena_stats(struct netoops_pack_arena *a,
			      struct netoops_pack_stats *ret);

/**
 * netoops_dump_pack() - copy a finished dump into the arena
 * @a:	the arena, used by one thread at a time
 * @d:	the dump, left as it is (free it after)
 *
 * Return: the packed dump, or NULL without memory.
 */
struct netoops_packed *netoops_dump_pack(struct netoops_pack_arena *a,
					 const struct netoops_dump *d);

/* Bytes it takes in its slab. */
size_t netoops_packed_size(const struct netoops_packed *p);

/**
 * netoops_dump_unpack() - the dump again, as it was packed
 * @p:	packed dump
 * @ret: filled in; its @payload and @gaps point into @p: valid until
 *	netoops_packed_release(), never to be given to netoops_dump_free()
 *
 * Return: @ret.
 */
struct netoops_dump *netoops_dump_unpack(const struct netoops_packed *p,
					 struct netoops_dump *ret);

/* Give back the packed dump's room; any thread.  NULL is fine. */
void netoops_packed_release(struct netoops_packed *p);

/*
 * Squeeze @len bytes at @in into @out (room for netoops_squeeze_bound()):
 * runs of zeros become counts.  Returns the bytes written.
 */
size_t netoops_squeeze(const void *in, size_t len, uint8_t *out);
size_t netoops_squeeze_bound(size_t len);
/* Undo it into exactly @len bytes at @out; -EBADMSG if @in is not that. */
int netoops_unsqueeze(const uint8_t *in, size_t in_len, void *out,
		      size_t len);

#endif /* NETOOPS_PACK_H */
