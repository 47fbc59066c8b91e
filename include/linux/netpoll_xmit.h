/* SPDX-License-Identifier: GPL-2.0 */
/*
 * netpoll_xmit: get every datagram of a crash dump onto the wire.
 *
 * Stock netpoll_send_skb() tries the device for one jiffy and then parks the
 * skb on npinfo->txq for a delayed work item; every later skb queues behind
 * it.  After a panic (other CPUs stopped) or while the caller keeps
 * interrupts disabled, that work never runs and the tail of the dump is
 * lost.  These helpers wait, bounded, until the device can take a packet,
 * drain npinfo->txq themselves when nothing else can, and only then hand the
 * datagram to netpoll.
 */
#ifndef _LINUX_NETPOLL_XMIT_H
#define _LINUX_NETPOLL_XMIT_H

#include <linux/llist.h>
#include <linux/mutex.h>
#include <linux/time64.h>
#include <linux/types.h>

struct netpoll;
struct sk_buff;

/**
 * struct netpoll_xmit_pool - skbs set aside for one netpoll destination
 * @slot:	@nr slots; see netpoll_xmit.c for their states
 * @nr:		number of slots
 * @want:	skbs netpoll_xmit_pool_fill() keeps
 * @headroom:	headroom of each skb it allocates
 * @room:	tailroom of each skb it allocates
 * @txq:	index of the tx queue the last datagram sent from the pool
 *		went out on (see netpoll_xmit_pool_flush())
 * @held:	an skb sent from the pool that it keeps a reference to, for
 *		netpoll_xmit_pool_flush(), or NULL (see netpoll_xmit.c)
 * @spent:	skbs sent from the pool that nothing else refers to any more,
 *		freed by netpoll_xmit_pool_fill() and _destroy()
 * @fill_lock:	one filler at a time; senders take no lock
 */
struct netpoll_xmit_pool {
	struct sk_buff	**slot;
	unsigned int	nr;
	unsigned int	want;
	unsigned int	headroom;
	unsigned int	room;
	unsigned int	txq;
	struct sk_buff	*held;
	struct llist_head spent;
	struct mutex	fill_lock;	/* process context only */
};

/* Granularity of the busy-wait between two polls of the device. */
#define NETPOLL_XMIT_POLL_US	20

/* Upper bound accepted for @timeout_us, so a bad caller cannot hang a crash. */
#define NETPOLL_XMIT_MAX_TIMEOUT_US	(10 * USEC_PER_SEC)

/*
 * Most skbs netpoll_xmit_udp_park() leaves in netpoll's backlog: enough
 * for netconsole's replay of a 128 KiB log (at most 4096 records), a
 * record a datagram.
 */
#define NETPOLL_XMIT_BACKLOG_MAX	4096
/* How long, in 1 us tries, it tries the backlog's lock. */
#define NETPOLL_XMIT_PARK_LOCK_TRIES	1000

int netpoll_xmit_wait_ready(struct netpoll *np, unsigned int timeout_us);
int netpoll_xmit_udp(struct netpoll *np, const void *msg, int len,
		     unsigned int timeout_us);
int netpoll_xmit_udp_park(struct netpoll *np, const void *msg, int len);

int netpoll_xmit_pool_init(struct netpoll_xmit_pool *pool, unsigned int slots);
void netpoll_xmit_pool_destroy(struct netpoll_xmit_pool *pool);
void netpoll_xmit_pool_size(struct netpoll_xmit_pool *pool, unsigned int want,
			    const struct netpoll *np, unsigned int max_len);
int netpoll_xmit_pool_fill(struct netpoll_xmit_pool *pool);
unsigned int netpoll_xmit_pool_avail(const struct netpoll_xmit_pool *pool);
int netpoll_xmit_udp_pooled(struct netpoll *np, struct netpoll_xmit_pool *pool,
			    const void *msg, int len, unsigned int timeout_us);
int netpoll_xmit_pool_flush(struct netpoll *np, struct netpoll_xmit_pool *pool,
			    unsigned int timeout_us);

#endif /* _LINUX_NETPOLL_XMIT_H */
