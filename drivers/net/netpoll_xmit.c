// SPDX-License-Identifier: GPL-2.0
/*
 * netpoll_xmit: bounded, reliable transmit of datagrams through netpoll from
 * crash context.
 *
 * Why this exists: netpoll_send_skb() gives the device one jiffy, then puts
 * the skb on npinfo->txq and schedules npinfo->tx_work.  Once an skb sits on
 * that queue, every later skb is queued behind it without even trying the
 * device.  In a panic the other CPUs are stopped and the work never runs;
 * with interrupts disabled on the dumping CPU (pstore calls its backend under
 * a spinlock taken with irqsave) the work cannot run there either.  The tail
 * of the dump is then silently lost.
 *
 * What we do instead, before each datagram:
 *   1. poll the device (netpoll_poll_dev() runs the driver's NAPI poll with a
 *      zero budget, which reaps completed transmissions and so wakes a queue
 *      stopped by the driver or by byte queue limits);
 *   2. if npinfo->txq is not empty and its work cannot run (interrupts off
 *      here, or a crash in progress), move its skbs to the driver ourselves,
 *      in order, with trylocks only (netpoll_flush_txq());
 *   3. once the backlog is empty and a tx queue of the device can take a
 *      packet, call netpoll_send_udp() (netpoll_xmit_udp()), or build the
 *      frame in an skb preallocated by the caller and hand it to the driver
 *      on the queue the stack would pick, with a trylock of that queue
 *      (netpoll_xmit_udp_pooled(): nothing is allocated);
 *   4. after the last datagram of a crash dump, wait until the device has
 *      sent what it took, by byte queue limits and, where the driver keeps
 *      none and the pool kept a reference to the last skb, by the driver
 *      letting go of it (netpoll_xmit_pool_flush()): the driver taking an
 *      skb only puts it in the device's ring, and the reset that follows a
 *      panic (panic=N, panic=-1, an emergency restart) drops what the
 *      device had not fetched yet -- the tail of the dump.
 *
 * The driver's tx poll, and netpoll_send_udp() when its trylock fails,
 * take the tx queue locks of the device and of the devices below it
 * (VLAN, bonding) with spin_lock.  So the device is given up (-EDEADLK)
 * when one of those locks, the device's tx_global_lock or netpoll's backlog
 * lock is held by this CPU or, once panic() has stopped the other CPUs, by
 * any CPU: the holder will never release it (netpoll_tx_check_locks()).
 * Pooled sends pick the queue themselves: a stuck lock of another queue
 * only stops the polling, and on a device whose traffic the stack spreads
 * over all its queues they leave a queue whose lock is stuck, or that is
 * stopped while the device may not be polled, for another one.  A lock
 * held by a CPU that runs is waited for, within the budget, before calling
 * into the driver, and the device is not polled meanwhile: its tx poll
 * may spin on that lock (virtio-net's does), with interrupts off here.
 * Not checked: locks a driver takes otherwise (e.g. virtio-net's
 * refill_lock when an atomic refill fails; e1000's disable_hardirq() in
 * its poll controller), the allocator's.
 *
 * Outside a crash, a sender that may not wait any longer can leave the
 * datagram to netpoll's tx work instead of dropping it
 * (netpoll_xmit_udp_park()): queued behind the backlog, it goes out once
 * the device takes packets.  In order, but for one case: netpoll's tx work
 * takes an skb off the backlog before it takes the queue's lock, and a
 * datagram sent meanwhile, from another CPU or an interrupt, goes first.
 * Once a crash is being reported, the parked datagrams are unlinked from
 * the backlog unsent: the crash's own come first.
 *
 * Time bounds: every wait is bounded by the caller's @timeout_us (capped at
 * NETPOLL_XMIT_MAX_TIMEOUT_US), measured with the NMI-safe monotonic clock
 * and, should that clock not advance, by an iteration count of
 * @timeout_us / NETPOLL_XMIT_POLL_US polls.  Nothing here sleeps or prints;
 * netpoll_xmit_udp() lets netpoll_send_udp() allocate the skb (GFP_ATOMIC,
 * else from netpoll's pool, which it refills); netpoll_xmit_udp_pooled()
 * allocates nothing.
 */

#include <linux/debug_locks.h>
#include <linux/export.h>
#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/llist.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/netpoll.h>
#include <linux/netpoll_crash.h>
#include <linux/netpoll_xmit.h>
#include <linux/notifier.h>
#include <linux/panic_notifier.h>
#include <linux/refcount.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/udp.h>
#include <linux/workqueue.h>
#include <net/checksum.h>
#include <net/ip6_checksum.h>
#include <net/ipv6.h>
#include <linux/timekeeping.h>

/*
 * The CPU reporting a panic, set by a panic notifier: panic() calls the
 * notifiers after it stopped the other CPUs and before kmsg_dump().
 * -1 until then.
 */
static int nx_panic_cpu = -1;

static int nx_panic_notify(struct notifier_block *nb, unsigned long ev,
			   void *buf)
{
	WRITE_ONCE(nx_panic_cpu, raw_smp_processor_id());
	/*
	 * The dump takes driver locks in whatever context panicked (a
	 * watchdog's hardirq, NMI), which lockdep reports as inconsistent
	 * although no other CPU runs any more.  panic() switches lock
	 * debugging off before it flushes the consoles; do it before the
	 * dump.  An oops has switched it off already (TAINT_DIE).
	 */
	debug_locks_off();
	return NOTIFY_DONE;
}

static struct notifier_block nx_panic_nb = {
	.notifier_call	= nx_panic_notify,
};

/* On the CPU reporting a panic, once the other CPUs were stopped. */
static bool nx_others_stopped(void)
{
	return READ_ONCE(nx_panic_cpu) == raw_smp_processor_id();
}

struct nx_deadline {
	u64 end_ns;		/* mono fast clock value at which to give up */
	unsigned long polls;	/* polls left, in case the clock stands still */
};

static void nx_deadline_init(struct nx_deadline *d, unsigned int timeout_us)
{
	timeout_us = min_t(unsigned int, timeout_us,
			   NETPOLL_XMIT_MAX_TIMEOUT_US);
	d->end_ns = ktime_get_mono_fast_ns() + (u64)timeout_us * NSEC_PER_USEC;
	d->polls = timeout_us / NETPOLL_XMIT_POLL_US + 1;
}

static bool nx_deadline_passed(struct nx_deadline *d)
{
	if (!d->polls)
		return true;
	d->polls--;
	return ktime_get_mono_fast_ns() > d->end_ns;
}

/*
 * End of a round of waiting on @dev: false once @d passed; else poll the
 * device unless @nopoll, which reaps completions and so wakes a stopped
 * queue, and let a moment pass.
 */
static bool nx_wait_more(struct net_device *dev, struct nx_deadline *d,
			 bool nopoll)
{
	if (nx_deadline_passed(d))
		return false;
	if (!nopoll)
		netpoll_poll_dev(dev);
	udelay(NETPOLL_XMIT_POLL_US);
	return true;
}

/*
 * True if a tx queue of @dev can take a packet (not stopped by the driver
 * or by BQL).  netpoll picks the queue; should it pick a stopped one, the
 * datagram is parked on npinfo->txq and netpoll_flush_txq() hands it over
 * once that queue wakes.
 */
static bool nx_txqs_ready(struct net_device *dev)
{
	unsigned int i;

	for (i = 0; i < dev->real_num_tx_queues; i++)
		if (!netif_xmit_frozen_or_stopped(netdev_get_tx_queue(dev, i)))
			return true;
	return false;
}

/*
 * Can npinfo->tx_work still drain the backlog on its own?  Not with
 * interrupts disabled on this CPU (the work was queued here and we are not
 * going to return to the scheduler for a while) and not once a crash is
 * being reported (oops_in_progress is raised by bust_spinlocks() in panic()).
 */
static bool nx_backlog_is_ours(void)
{
	return irqs_disabled() || oops_in_progress;
}

/*
 * Whether @txq takes a packet.  With @drv, only the driver's stop counts,
 * not byte queue limits': BQL's stop lifts when completions are reaped,
 * which a crash dump that may not poll the device (a stopped CPU holds
 * another queue's lock) only gets from the driver's own transmit (as
 * virtio-net reaps in ndo_start_xmit).  The ring's room is the driver's
 * stop; direct transmit (dev_direct_xmit()) ignores BQL the same way.
 */
static bool nx_txq_runs(const struct netdev_queue *txq, bool drv)
{
	return drv ? !netif_xmit_frozen_or_drv_stopped(txq) :
		     !netif_xmit_frozen_or_stopped(txq);
}

/*
 * What netpoll_xmit_udp_park() writes in the control buffer of the skbs it
 * queues, which are nobody else's until netpoll hands them to the driver.
 */
struct nx_park_cb {
	u32 magic;
};

#define NX_PARK_MAGIC	0x6e787061	/* "nxpa" */
#define NX_PARK_CB(skb)	((struct nx_park_cb *)(skb)->cb)

/*
 * Once a crash is being reported, the datagrams parked before it are old
 * log lines (a dump holds the log anyway): unlink them from the backlog so
 * that the crash's own datagrams get the device.  They are not freed (the
 * allocator's locks may be held by the crashed context or a stopped CPU);
 * the backlog's lock is only tried.
 */
static void nx_unlink_parked(struct netpoll_info *npinfo)
{
	struct sk_buff *skb, *tmp;
	unsigned long flags;

	if (!oops_in_progress || skb_queue_empty_lockless(&npinfo->txq) ||
	    !spin_trylock_irqsave(&npinfo->txq.lock, flags))
		return;
	skb_queue_walk_safe(&npinfo->txq, skb, tmp) {
		if (NX_PARK_CB(skb)->magic == NX_PARK_MAGIC)
			__skb_unlink(skb, &npinfo->txq);
	}
	spin_unlock_irqrestore(&npinfo->txq.lock, flags);
}

/*
 * One step of waiting: returns 0 when the backlog of @dev is empty and, if
 * @need_txq, @txq (any queue if NULL) can take a packet; -EAGAIN when not
 * yet (*@nopoll when the device must not be polled: a lock its handlers
 * take is held elsewhere); -ENODEV or -EDEADLK when never.  Must run under
 * rcu_read_lock().
 */
static int nx_ready_step(struct net_device *dev, bool need_txq,
			 struct netdev_queue *txq, bool *nopoll)
{
	struct netpoll_info *npinfo = rcu_dereference_bh(dev->npinfo);
	unsigned int flags;
	bool empty;
	int err;

	*nopoll = false;
	if (!npinfo || !netif_running(dev) || !netif_device_present(dev))
		return -ENODEV;
	flags = nx_others_stopped() ? NETPOLL_TX_OTHERS_STOPPED : 0;
	err = netpoll_tx_check_locks(dev, npinfo, txq, flags, nopoll);
	if (err) {
		*nopoll = true;
		return err;
	}

	nx_unlink_parked(npinfo);
	empty = skb_queue_empty_lockless(&npinfo->txq);
	if (!empty && nx_backlog_is_ours())
		empty = netpoll_flush_txq(dev, npinfo);

	if (!empty || !need_txq)
		return empty ? 0 : -EAGAIN;
	if (txq)
		return nx_txq_runs(txq, true) ? 0 : -EAGAIN;
	return nx_txqs_ready(dev) ? 0 : -EAGAIN;
}

static int nx_wait(struct netpoll *np, struct nx_deadline *d, bool need_txq)
{
	struct net_device *dev = np->dev;
	bool nopoll;
	int err;

	if (!dev)
		return -ENODEV;

	rcu_read_lock();
	for (;;) {
		err = nx_ready_step(dev, need_txq, NULL, &nopoll);
		if (err != -EAGAIN)
			break;
		if (nx_deadline_passed(d)) {
			err = -ETIMEDOUT;
			break;
		}
		/* Reap completions: this is what wakes a stopped queue. */
		if (!nopoll) {
			netpoll_poll_dev(dev);
			if (nx_ready_step(dev, need_txq, NULL, &nopoll) == 0) {
				err = 0;
				break;
			}
		}
		udelay(NETPOLL_XMIT_POLL_US);
	}
	rcu_read_unlock();
	return err;
}

/**
 * netpoll_xmit_wait_ready - wait, bounded, until a netpoll device can send
 * @np: a netpoll that has been set up (np->dev valid)
 * @timeout_us: longest time to wait, in microseconds (capped at
 *	NETPOLL_XMIT_MAX_TIMEOUT_US)
 *
 * Polls the device and, when its tx work cannot run (interrupts disabled
 * or a crash in progress), drains npinfo->txq itself, until the backlog is
 * empty and a tx queue of the device can take a packet.  While a lock the
 * driver may take is held elsewhere it only waits (see the top of this
 * file).
 *
 * Context: any, including panic and NMI-like contexts; does not sleep,
 * allocate or print.  The caller keeps @np set up for the duration of the
 * call.
 *
 * Return: 0 when the device can take a packet, -ENODEV if it is down or has
 * no netpoll info, -EDEADLK if a lock the driver takes is held by this CPU
 * or by a CPU stopped by panic() (never call into the driver then),
 * -ETIMEDOUT if it did not become ready in time.
 */
int netpoll_xmit_wait_ready(struct netpoll *np, unsigned int timeout_us)
{
	struct nx_deadline d;

	nx_deadline_init(&d, timeout_us);
	return nx_wait(np, &d, true);
}
EXPORT_SYMBOL_GPL(netpoll_xmit_wait_ready);

/**
 * netpoll_xmit_udp - send one UDP datagram through netpoll without losing it
 * @np: a netpoll that has been set up (np->dev valid)
 * @msg: UDP payload
 * @len: bytes at @msg
 * @timeout_us: budget for this datagram, in microseconds (capped at
 *	NETPOLL_XMIT_MAX_TIMEOUT_US): time to wait for the device before the
 *	send plus time to push the datagram out of the backlog after it
 *
 * Waits until the device can take a packet (see netpoll_xmit_wait_ready()),
 * sends with netpoll_send_udp() and, if netpoll parked the datagram on
 * npinfo->txq anyway, keeps draining until it has left or the budget is
 * spent.
 *
 * Context: as netpoll_xmit_wait_ready(); netpoll_send_udp() allocates the
 * skb with GFP_ATOMIC, else takes it from netpoll's pool.  Never prints.
 *
 * Return: 0 when the datagram was handed to the driver, -ENODEV if the
 * device is down, -EDEADLK as netpoll_xmit_wait_ready() (nothing was sent),
 * -ETIMEDOUT if the device never became ready (nothing was sent),
 * -EINPROGRESS if the datagram is still queued in netpoll's backlog when the
 * budget ran out (it may still leave later, if the tx work runs).
 */
int netpoll_xmit_udp(struct netpoll *np, const void *msg, int len,
		     unsigned int timeout_us)
{
	struct nx_deadline d;
	int err;

	nx_deadline_init(&d, timeout_us);
	err = nx_wait(np, &d, true);
	if (err)
		return err;

	netpoll_send_udp(np, msg, len);

	/*
	 * Usually returns at once: the datagram was queued only if the driver
	 * refused it.  Only the backlog matters here, not whether the queue
	 * has room for the next datagram.
	 */
	err = nx_wait(np, &d, false);
	return err == -ETIMEDOUT || err == -EDEADLK ? -EINPROGRESS : err;
}
EXPORT_SYMBOL_GPL(netpoll_xmit_udp);

/*
 * Preallocated skbs.  A slot is NULL (empty: only the filler writes it),
 * an skb (free: a sender may claim it) or NX_SLOT_BUSY (a sender holds
 * the skb it had; it puts the skb back, or NULL once the driver took it).
 * Every transition is one cmpxchg/xchg, so senders on several CPUs, in
 * NMI or with a stopped CPU in the middle of a claim, need no lock.
 */
#define NX_SLOT_BUSY	ERR_PTR(-EBUSY)

/*
 * Bytes the driver took on @txq so far, and whether the device has
 * reported the first @mark of them sent, by the driver's byte queue
 * limits accounting (cumulative counts; a queue completes in order).  A driver
 * that keeps none shows 0 taken and 0 sent: nothing to wait for.
 */
static unsigned int nx_txq_queued(struct netdev_queue *txq)
{
#ifdef CONFIG_BQL
	return READ_ONCE(txq->dql.num_queued);
#else
	return 0;
#endif
}

static bool nx_txq_sent(struct netdev_queue *txq, unsigned int mark)
{
#ifdef CONFIG_BQL
	return (int)(READ_ONCE(txq->dql.num_completed) - mark) >= 0;
#else
	return true;
#endif
}

/*
 * Room the pool's skbs get beyond what the device declares, on a device
 * that lets them be shared: a driver that adds a header of up to
 * NX_POOL_HEADROOM bytes it did not declare (ch9200 adds 64), pads a
 * frame (up to VLAN_ETH_ZLEN) or appends the FCS then does so in place
 * instead of reallocating the skb's head, which it must not do to a
 * shared skb.
 */
#define NX_POOL_HEADROOM	max_t(unsigned int, NET_SKB_PAD, 64)
#define NX_POOL_TAILROOM	(VLAN_ETH_ZLEN + ETH_FCS_LEN)

/* No tx queue of @dev has accounted a byte to byte queue limits. */
static bool nx_dev_no_bql(struct net_device *dev)
{
	unsigned int i;

	for (i = 0; i < dev->real_num_tx_queues; i++)
		if (nx_txq_queued(netdev_get_tx_queue(dev, i)))
			return false;
	return true;
}

/*
 * A datagram sent by a driver that accounts no bytes to byte queue limits
 * (or without CONFIG_BQL) gives netpoll_xmit_pool_flush() nothing to wait
 * for.  There the pool keeps a reference to the skb it last sent
 * (pool->held): a driver that keeps the skb until the device reports it
 * sent drops its own then; one that copies the frame or drops it does at
 * once (nothing is waited for); one that reaps its completions only in
 * its transmit (virtio_net without tx NAPI), from an interrupt (USB) or
 * on a device netpoll does not poll does not while netpoll polls (the
 * flush waits out its budget).  Only on a device that lets the skbs it
 * transmits be shared (IFF_TX_SKB_SHARING) and with the room above left
 * in the skb, its headers built.
 */
static bool nx_pool_may_hold(struct net_device *dev,
			     const struct sk_buff *skb)
{
	return (dev->priv_flags & IFF_TX_SKB_SHARING) &&
	       skb_headroom(skb) >= NX_POOL_HEADROOM +
				    LL_RESERVED_SPACE(dev) - ETH_HLEN &&
	       skb_tailroom(skb) >= NX_POOL_TAILROOM + dev->needed_tailroom &&
	       nx_dev_no_bql(dev);
}

/*
 * Drop the pool's reference to @skb.  Whoever takes an skb out of
 * pool->held (xchg) owns that reference.  An skb nothing else refers to
 * any more is not freed here (the allocator's locks may be held by the
 * crashed context or a stopped CPU) but kept on pool->spent until
 * netpoll_xmit_pool_fill() or netpoll_xmit_pool_destroy().  The driver's
 * last access to it comes before its decrement; our store into it comes
 * after the read that saw 1 (control dependency).
 */
static void nx_pool_release(struct netpoll_xmit_pool *pool,
			    struct sk_buff *skb)
{
	if (!refcount_dec_not_one(&skb->users))
		llist_add(&skb->ll_node, &pool->spent);
}

/* Make @skb, with a reference taken for the pool, the held one (or none). */
static void nx_pool_hold(struct netpoll_xmit_pool *pool, struct sk_buff *skb)
{
	struct sk_buff *old = xchg(&pool->held, skb);

	if (old)
		nx_pool_release(pool, old);
}

/* Free what nx_pool_release() kept; process context. */
static void nx_pool_free_spent(struct netpoll_xmit_pool *pool)
{
	struct llist_node *list = llist_del_all(&pool->spent);
	struct sk_buff *skb, *next;

	llist_for_each_entry_safe(skb, next, list, ll_node)
		consume_skb(skb);
}

/**
 * netpoll_xmit_pool_init - set up an empty skb pool
 * @pool: the pool, zeroed
 * @slots: most skbs it will ever hold
 *
 * Context: process, may sleep.
 *
 * Return: 0 or -ENOMEM.
 */
int netpoll_xmit_pool_init(struct netpoll_xmit_pool *pool, unsigned int slots)
{
	pool->slot = kvcalloc(slots, sizeof(*pool->slot), GFP_KERNEL);
	if (!pool->slot)
		return -ENOMEM;
	pool->nr = slots;
	pool->held = NULL;
	init_llist_head(&pool->spent);
	mutex_init(&pool->fill_lock);
	return 0;
}
EXPORT_SYMBOL_GPL(netpoll_xmit_pool_init);

/**
 * netpoll_xmit_pool_destroy - free a pool and the skbs it holds
 * @pool: a pool no sender uses any more
 *
 * Context: process.
 */
void netpoll_xmit_pool_destroy(struct netpoll_xmit_pool *pool)
{
	unsigned int i;

	for (i = 0; i < pool->nr; i++) {
		struct sk_buff *skb = xchg(&pool->slot[i], NULL);

		/* a held skb is a sender still running: it would be leaked */
		WARN_ON_ONCE(skb == NX_SLOT_BUSY);
		if (!IS_ERR_OR_NULL(skb))
			consume_skb(skb);
	}
	nx_pool_hold(pool, NULL);
	nx_pool_free_spent(pool);
	kvfree(pool->slot);
	pool->slot = NULL;
	pool->nr = 0;
	mutex_destroy(&pool->fill_lock);
}
EXPORT_SYMBOL_GPL(netpoll_xmit_pool_destroy);

/* Headroom for the Ethernet, IP and UDP headers of @np's datagrams. */
static unsigned int nx_headroom(const struct netpoll *np,
				const struct net_device *dev)
{
	return LL_RESERVED_SPACE(dev) + sizeof(struct udphdr) +
	       (np->ipv6 ? sizeof(struct ipv6hdr) : sizeof(struct iphdr));
}

/**
 * netpoll_xmit_pool_size - set what netpoll_xmit_pool_fill() keeps
 * @pool: the pool
 * @want: skbs to keep (at most the pool's slots)
 * @np: the destination they are for, set up; sizes the headroom for its
 *	device's link layer header and IPv4 or IPv6
 * @max_len: largest UDP payload to be sent
 *
 * The new sizes apply from the next netpoll_xmit_pool_fill(); one running
 * meanwhile may use some of the old ones.
 * Context: any; allocates nothing.
 */
void netpoll_xmit_pool_size(struct netpoll_xmit_pool *pool, unsigned int want,
			    const struct netpoll *np, unsigned int max_len)
{
	const struct net_device *dev = np->dev;
	bool share;

	WRITE_ONCE(pool->want, min(want, pool->nr));
	if (!dev)
		return;
	share = dev->priv_flags & IFF_TX_SKB_SHARING;
	WRITE_ONCE(pool->headroom,
		   nx_headroom(np, dev) + (share ? NX_POOL_HEADROOM : 0));
	WRITE_ONCE(pool->room, max_len + dev->needed_tailroom +
			       (share ? NX_POOL_TAILROOM : 0));
}
EXPORT_SYMBOL_GPL(netpoll_xmit_pool_size);

/**
 * netpoll_xmit_pool_fill - bring a pool to the size last set
 * @pool: the pool
 *
 * Frees skbs too small for the size last set, skbs beyond the number
 * wanted and the sent skbs the pool was the last to refer to (with no skb
 * wanted, it also drops its reference to the one it holds), then
 * allocates the missing ones.  A user of netpoll_xmit_udp_pooled() calls
 * it after sending.
 *
 * Context: process, may sleep.
 *
 * Return: 0, or -ENOMEM if the pool is still short.
 */
int netpoll_xmit_pool_fill(struct netpoll_xmit_pool *pool)
{
	unsigned int i, have = 0, want, head, room;
	int err = 0;

	mutex_lock(&pool->fill_lock);
	want = READ_ONCE(pool->want);
	/* a pool that is to keep nothing is not used for sending any more */
	if (!want)
		nx_pool_hold(pool, NULL);
	nx_pool_free_spent(pool);
	head = READ_ONCE(pool->headroom);
	room = READ_ONCE(pool->room);
	for (i = 0; i < pool->nr; i++) {
		struct sk_buff *skb = READ_ONCE(pool->slot[i]);
		bool keep;

		if (IS_ERR_OR_NULL(skb))
			continue;
		/*
		 * Claim it before looking at it: a sender may take it, and
		 * the driver free it, at any time.  Briefly, so that a
		 * sender finds it free again.
		 */
		preempt_disable();
		if (cmpxchg_acquire(&pool->slot[i], skb, NX_SLOT_BUSY) != skb) {
			preempt_enable();
			continue;
		}
		keep = have < want && skb_headroom(skb) >= head &&
		       skb_tailroom(skb) >= room;
		/* our look at it is done before a sender can claim it */
		smp_store_release(&pool->slot[i], keep ? skb : NULL);
		preempt_enable();
		if (keep)
			have++;
		else
			consume_skb(skb);
	}
	for (i = 0; i < pool->nr && have < want; i++) {
		struct sk_buff *skb;

		if (READ_ONCE(pool->slot[i]))
			continue;
		skb = alloc_skb(head + room, GFP_KERNEL);
		if (!skb) {
			err = -ENOMEM;
			break;
		}
		skb_reserve(skb, head);
		/* only the filler stores into an empty slot */
		if (cmpxchg_release(&pool->slot[i], NULL, skb)) {
			consume_skb(skb);
			continue;
		}
		have++;
	}
	mutex_unlock(&pool->fill_lock);
	return err;
}
EXPORT_SYMBOL_GPL(netpoll_xmit_pool_fill);

/**
 * netpoll_xmit_pool_avail - skbs a pool holds now
 * @pool: the pool
 *
 * Context: any.
 *
 * Return: the number of free skbs; senders may change it at any time.
 */
unsigned int netpoll_xmit_pool_avail(const struct netpoll_xmit_pool *pool)
{
	unsigned int i, n = 0;

	for (i = 0; i < pool->nr; i++)
		if (!IS_ERR_OR_NULL(READ_ONCE(pool->slot[i])))
			n++;
	return n;
}
EXPORT_SYMBOL_GPL(netpoll_xmit_pool_avail);

/*
 * Claim a free skb with @head bytes of headroom and @tail of tailroom;
 * *@slot is where to put it back.  An skb is claimed before it is looked
 * at (the filler may free what it takes); one that does not fit goes back
 * at once and is left for the next netpoll_xmit_pool_fill().
 */
static struct sk_buff *nx_pool_claim(struct netpoll_xmit_pool *pool,
				     unsigned int head, unsigned int tail,
				     unsigned int *slot)
{
	unsigned int i;

	for (i = 0; i < pool->nr; i++) {
		struct sk_buff *skb = READ_ONCE(pool->slot[i]);

		if (IS_ERR_OR_NULL(skb))
			continue;
		if (cmpxchg_acquire(&pool->slot[i], skb, NX_SLOT_BUSY) != skb)
			continue;
		if (skb_headroom(skb) >= head && skb_tailroom(skb) >= tail) {
			*slot = i;
			return skb;
		}
		/* too small: free again, as it was */
		smp_store_release(&pool->slot[i], skb);
	}
	return NULL;
}

/*
 * Put back an skb the driver did not take: empty again, @headroom bytes
 * reserved, nothing left of the frame built in it.
 */
static void nx_pool_put(struct netpoll_xmit_pool *pool, unsigned int slot,
			struct sk_buff *skb, unsigned int headroom)
{
	skb->data = skb->head + headroom;
	skb->len = 0;
	skb_reset_tail_pointer(skb);
	skb->dev = NULL;
	skb->protocol = 0;
	skb->queue_mapping = 0;
	/* the reset skb is visible before the slot says it is free */
	smp_store_release(&pool->slot[slot], skb);
}

/* Build Ethernet/IP/UDP around @len bytes of @msg in the free skb @skb. */
static void nx_build_udp(struct netpoll *np, struct sk_buff *skb,
			 const void *msg, int len)
{
	static atomic_t ip_id;
	struct net_device *dev = np->dev;
	int ulen = len + sizeof(struct udphdr);
	struct udphdr *uh;
	struct ethhdr *eth;
	__wsum csum;
	__be16 proto;

	skb_put_data(skb, msg, len);
	uh = skb_push(skb, sizeof(*uh));
	skb_reset_transport_header(skb);
	uh->source = htons(np->local_port);
	uh->dest = htons(np->remote_port);
	uh->len = htons(ulen);
	uh->check = 0;
	csum = csum_partial(uh, ulen, 0);

	if (np->ipv6) {
		struct ipv6hdr *ip6;

		uh->check = csum_ipv6_magic(&np->local_ip.in6,
					    &np->remote_ip.in6, ulen,
					    IPPROTO_UDP, csum);
		ip6 = skb_push(skb, sizeof(*ip6));
		skb_reset_network_header(skb);
		ip6_flow_hdr(ip6, 0, 0);
		ip6->payload_len = htons(ulen);
		ip6->nexthdr = IPPROTO_UDP;
		ip6->hop_limit = 64;
		ip6->saddr = np->local_ip.in6;
		ip6->daddr = np->remote_ip.in6;
		proto = htons(ETH_P_IPV6);
	} else {
		struct iphdr *iph;

		uh->check = csum_tcpudp_magic(np->local_ip.ip, np->remote_ip.ip,
					      ulen, IPPROTO_UDP, csum);
		iph = skb_push(skb, sizeof(*iph));
		skb_reset_network_header(skb);
		iph->version = 4;
		iph->ihl = sizeof(*iph) / 4;
		iph->tos = 0;
		iph->tot_len = htons(sizeof(*iph) + ulen);
		iph->id = htons((u16)atomic_inc_return(&ip_id));
		iph->frag_off = 0;
		iph->ttl = 64;
		iph->protocol = IPPROTO_UDP;
		iph->saddr = np->local_ip.ip;
		iph->daddr = np->remote_ip.ip;
		iph->check = 0;
		iph->check = ip_fast_csum(iph, iph->ihl);
		proto = htons(ETH_P_IP);
	}
	/* 0 means "no checksum" in UDP */
	if (!uh->check)
		uh->check = CSUM_MANGLED_0;

	eth = skb_push(skb, ETH_HLEN);
	skb_reset_mac_header(skb);
	ether_addr_copy(eth->h_source, dev->dev_addr);
	ether_addr_copy(eth->h_dest, np->remote_mac);
	eth->h_proto = proto;
	skb->protocol = proto;
	skb->dev = dev;
}

/* The tx queue the stack would pick for @skb from this CPU. */
static struct netdev_queue *nx_pick_txq(struct net_device *dev,
					struct sk_buff *skb)
{
	const struct net_device_ops *ops = dev->netdev_ops;
	int qi = 0;

#ifdef CONFIG_XPS
	skb->sender_cpu = raw_smp_processor_id() + 1;
#endif
	if (dev->real_num_tx_queues > 1) {
		qi = ops->ndo_select_queue ?
		     ops->ndo_select_queue(dev, skb, NULL) :
		     netdev_pick_tx(dev, skb, NULL);
		if (qi < 0 || qi >= dev->real_num_tx_queues)
			qi = 0;
	}
	skb_set_queue_mapping(skb, qi);
	return netdev_get_tx_queue(dev, qi);
}

/* @txq's lock is held by this CPU, or by anyone once the others stopped. */
static bool nx_txq_stuck(struct netdev_queue *txq)
{
	int owner = READ_ONCE(txq->xmit_lock_owner);

	return owner == raw_smp_processor_id() ||
	       (nx_others_stopped() &&
		netpoll_tx_lock_busy(&txq->_xmit_lock, owner));
}

/*
 * Another tx queue of @dev for @skb, whose queue @txq is stuck
 * (nx_txq_stuck()) or, with @need_run, stopped by its driver while the
 * device may not be polled (nothing would wake it).  Only on a device
 * whose traffic the stack itself spreads over all its queues (no
 * ndo_select_queue, no traffic classes): elsewhere a queue may belong to
 * a shaper's class or a special ring of the driver.  Best is a free lock
 * on a queue that runs, then a free lock, then a lock held by a CPU that
 * runs (waited for); with @need_run, only queues that run.  Returns the
 * queue @skb is mapped to, @txq when there is no other.
 */
static struct netdev_queue *nx_other_txq(struct net_device *dev,
					 struct sk_buff *skb,
					 struct netdev_queue *txq,
					 bool need_run)
{
	int i, score, best = -1, pick = -1;

	if (dev->real_num_tx_queues < 2 ||
	    dev->netdev_ops->ndo_select_queue || netdev_get_num_tc(dev))
		return txq;
	for (i = 0; i < dev->real_num_tx_queues; i++) {
		struct netdev_queue *q = netdev_get_tx_queue(dev, i);
		bool runs, held;

		if (q == txq || nx_txq_stuck(q))
			continue;
		runs = nx_txq_runs(q, true);
		if (need_run && !runs)
			continue;
		held = netpoll_tx_lock_busy(&q->_xmit_lock,
					    READ_ONCE(q->xmit_lock_owner));
		score = runs + (held ? 0 : 2);
		if (score > best) {
			best = score;
			pick = i;
		}
	}
	if (pick < 0)
		return txq;
	skb_set_queue_mapping(skb, pick);
	return netdev_get_tx_queue(dev, pick);
}

/**
 * netpoll_xmit_udp_pooled - send one UDP datagram in a preallocated skb
 * @np: a netpoll that has been set up (np->dev valid)
 * @pool: where the skb comes from, filled by netpoll_xmit_pool_fill()
 * @msg: UDP payload
 * @len: bytes at @msg
 * @timeout_us: budget for this datagram, as for netpoll_xmit_udp()
 *
 * Builds the frame in a free skb of @pool and picks the tx queue the stack
 * would pick from this CPU.  Waits (bounded) until the queue runs and no
 * other lock the driver needs is held, and hands the skb to the driver
 * itself (with a trylock of the queue).  netpoll's backlog is drained
 * first when its work cannot run.  Locks of the device's other queues only
 * keep it from polling the device.  On a device whose traffic the stack
 * spreads over all its queues, the skb moves to another queue when its
 * queue's lock is held by this CPU or by a stopped one, or when its queue
 * is stopped and the device may not be polled.
 *
 * Context: any, including panic and NMI-like contexts; does not sleep,
 * allocate or print.  An skb the driver did not take goes back to @pool.
 * Of one it took from a driver without byte queue limits accounting,
 * @pool may keep a reference, for netpoll_xmit_pool_flush(), until the
 * next datagram sent from it, the flush, netpoll_xmit_pool_destroy() or a
 * netpoll_xmit_pool_fill() with no skb wanted.
 *
 * Return: 0 when the driver took the datagram; nothing was sent on
 * -ENODEV (no device), -EINVAL (@len negative), -ENOBUFS (@pool has no
 * skb that fits), -EDEADLK (a lock the send needs is held by this CPU or
 * a stopped one, or this CPU is inside the device's NAPI poll) or
 * -ETIMEDOUT (the queue did not run within @timeout_us); -EIO if the
 * driver took the skb but dropped it.
 */
int netpoll_xmit_udp_pooled(struct netpoll *np, struct netpoll_xmit_pool *pool,
			    const void *msg, int len, unsigned int timeout_us)
{
	struct net_device *dev = np->dev;
	unsigned int slot, headroom, qi;
	struct netdev_queue *txq;
	netdev_tx_t rc = NETDEV_TX_BUSY;
	struct nx_deadline d;
	struct sk_buff *skb;
	unsigned long flags;
	bool nopoll, hold = false;
	int err;

	if (!dev)
		return -ENODEV;
	if (len < 0)
		return -EINVAL;
	skb = nx_pool_claim(pool, nx_headroom(np, dev),
			    len + dev->needed_tailroom, &slot);
	if (!skb)
		return -ENOBUFS;
	headroom = skb_headroom(skb);
	nx_build_udp(np, skb, msg, len);

	nx_deadline_init(&d, timeout_us);
	rcu_read_lock();
	txq = nx_pick_txq(dev, skb);
	if (nx_txq_stuck(txq))
		txq = nx_other_txq(dev, skb, txq, false);
	for (;;) {
		/* the skb is the driver's once it took it: read it before */
		qi = skb_get_queue_mapping(skb);
		err = nx_ready_step(dev, true, txq, &nopoll);
		/* never from inside a NAPI poll of the device: recursion */
		if (!err && netpoll_in_napi_poll(dev))
			err = -EDEADLK;
		if (!err) {
			/* a reference for the pool (see nx_pool_may_hold()) */
			hold = nx_pool_may_hold(dev, skb);
			if (hold)
				skb_get(skb);
			local_irq_save(flags);
			rc = netpoll_tx_trylock_xmit(skb, dev, txq, true);
			local_irq_restore(flags);
			if (dev_xmit_complete(rc))
				break;
			/* not taken: the skb is the pool's alone again */
			if (hold)
				refcount_dec(&skb->users);
			err = -EAGAIN;
		}
		if (err != -EAGAIN)
			break;
		if (nopoll && !nx_txq_runs(txq, true))
			txq = nx_other_txq(dev, skb, txq, true);
		if (!nx_wait_more(dev, &d, nopoll)) {
			err = -ETIMEDOUT;
			break;
		}
	}
	rcu_read_unlock();

	if (!err) {
		/* the driver owns the skb now */
		smp_store_release(&pool->slot[slot], NULL);
		WRITE_ONCE(pool->txq, qi);
		/* one the driver dropped: nothing to wait for */
		if (hold && rc != NETDEV_TX_OK) {
			nx_pool_release(pool, skb);
			hold = false;
		}
		nx_pool_hold(pool, hold ? skb : NULL);
		return rc == NETDEV_TX_OK ? 0 : -EIO;
	}
	/* untouched by the driver */
	nx_pool_put(pool, slot, skb, headroom);
	return err;
}
EXPORT_SYMBOL_GPL(netpoll_xmit_udp_pooled);

/**
 * netpoll_xmit_udp_park - leave one UDP datagram to netpoll's tx work
 * @np: a netpoll that has been set up (np->dev valid)
 * @msg: UDP payload
 * @len: bytes at @msg
 *
 * Builds the datagram in a new skb and queues it at the tail of netpoll's
 * backlog (npinfo->txq).  netpoll's tx work hands the backlog to the
 * driver in order once the device takes packets, as it does with what
 * netpoll_send_skb() parks; a later netpoll_xmit_*() call with interrupts
 * disabled drains it too.  Nothing calls into the driver here.  For a
 * sender outside a crash that may not wait for the device any longer.
 * Once a crash is being reported, the datagrams parked here are taken off
 * the backlog, unsent, before the crash's own.  At most
 * NETPOLL_XMIT_BACKLOG_MAX skbs wait in the backlog.
 *
 * Context: interrupts disabled, not NMI, not in a crash; does not sleep
 * or print.  Allocates the skb with GFP_NOWAIT (no pool).  The backlog's
 * lock is tried for at most NETPOLL_XMIT_PARK_LOCK_TRIES us.
 *
 * Return: 0 when the datagram is queued; nothing was queued on -ENODEV
 * (device down or without netpoll info), -EINVAL (@len negative),
 * -ENOBUFS (backlog full, or no skb) or -EBUSY (backlog's lock busy).
 */
int netpoll_xmit_udp_park(struct netpoll *np, const void *msg, int len)
{
	struct net_device *dev = np->dev;
	struct netpoll_info *npinfo;
	unsigned int head, tries = 0;
	struct sk_buff *skb;
	unsigned long flags;
	int err = 0;

	if (!dev)
		return -ENODEV;
	if (len < 0)
		return -EINVAL;
	head = nx_headroom(np, dev);
	rcu_read_lock();
	npinfo = rcu_dereference(dev->npinfo);
	if (!npinfo || !netif_running(dev) || !netif_device_present(dev)) {
		err = -ENODEV;
		goto out;
	}
	if (skb_queue_len_lockless(&npinfo->txq) >= NETPOLL_XMIT_BACKLOG_MAX) {
		err = -ENOBUFS;
		goto out;
	}
	/* no reserves: those are for the drivers' receive rings */
	skb = alloc_skb(head + len + dev->needed_tailroom,
			GFP_NOWAIT | __GFP_NOWARN);
	if (!skb) {
		err = -ENOBUFS;
		goto out;
	}
	skb_reserve(skb, head);
	nx_build_udp(np, skb, msg, len);
	nx_pick_txq(dev, skb);
	NX_PARK_CB(skb)->magic = NX_PARK_MAGIC;
	while (!spin_trylock_irqsave(&npinfo->txq.lock, flags)) {
		if (++tries > NETPOLL_XMIT_PARK_LOCK_TRIES) {
			kfree_skb(skb);
			err = -EBUSY;
			goto out;
		}
		udelay(1);
	}
	__skb_queue_tail(&npinfo->txq, skb);
	spin_unlock_irqrestore(&npinfo->txq.lock, flags);
	schedule_delayed_work(&npinfo->tx_work, 0);
out:
	rcu_read_unlock();
	return err;
}
EXPORT_SYMBOL_GPL(netpoll_xmit_udp_park);

/**
 * netpoll_xmit_pool_flush - wait, bounded, until the device sent a dump
 * @np: the netpoll the datagrams were sent through
 * @pool: the pool netpoll_xmit_udp_pooled() sent them from
 * @timeout_us: longest wait, as for netpoll_xmit_wait_ready()
 *
 * netpoll_xmit_udp_pooled() returns once the driver took the datagram: it
 * then sits in the device's ring until the device fetches it.  What
 * follows a crash dump may reset the machine at once (panic=-1, panic=N
 * on a CPU whose delay loop runs fast, an emergency restart), and the
 * datagrams still in the ring are lost, silently.  So poll the device,
 * which reaps its completions, until the tx queue the last datagram from
 * @pool went out on has sent every byte its driver had taken when this
 * was called, by the driver's byte queue limits accounting (what others
 * queue meanwhile is not waited for), and, where the driver keeps no such
 * accounting and @pool kept a reference to the skb of that datagram,
 * until the driver let go of it (see nx_pool_may_hold(): a driver that
 * keeps the skb until the device reports it sent; one that copies the
 * frame lets go at once; one that reaps its completions only in its
 * transmit or from an interrupt makes this wait out @timeout_us).  Where
 * there is neither, nothing is waited for.
 *
 * Context: as netpoll_xmit_udp_pooled().
 *
 * Return: 0 when all of it was sent, -ETIMEDOUT when the
 * device did not send it all within @timeout_us, -EDEADLK when it may not
 * be polled (see netpoll_xmit_udp_pooled()), -ENODEV.
 */
int netpoll_xmit_pool_flush(struct netpoll *np, struct netpoll_xmit_pool *pool,
			    unsigned int timeout_us)
{
	struct net_device *dev = np->dev;
	struct netdev_queue *txq;
	struct sk_buff *last;
	struct nx_deadline d;
	unsigned int qi, mark;
	bool nopoll;
	int err;

	if (!dev)
		return -ENODEV;
	nx_deadline_init(&d, timeout_us);
	last = xchg(&pool->held, NULL);
	rcu_read_lock();
	qi = READ_ONCE(pool->txq);
	txq = netdev_get_tx_queue(dev, qi < dev->real_num_tx_queues ? qi : 0);
	mark = nx_txq_queued(txq);
	for (;;) {
		/* the driver let go of the last skb: the device sent it */
		if (nx_txq_sent(txq, mark) &&
		    (!last || refcount_read(&last->users) == 1)) {
			err = 0;
			break;
		}
		err = nx_ready_step(dev, false, txq, &nopoll);
		/* inside a NAPI poll of the device: netpoll cannot poll it */
		if (err != -ENODEV && netpoll_in_napi_poll(dev))
			err = -EDEADLK;
		if (err && err != -EAGAIN)
			break;
		if (!nx_wait_more(dev, &d, nopoll)) {
			err = -ETIMEDOUT;
			break;
		}
	}
	rcu_read_unlock();
	if (last)
		nx_pool_release(pool, last);
	return err;
}
EXPORT_SYMBOL_GPL(netpoll_xmit_pool_flush);

static int __init nx_init(void)
{
	return atomic_notifier_chain_register(&panic_notifier_list,
					      &nx_panic_nb);
}

static void __exit nx_exit(void)
{
	atomic_notifier_chain_unregister(&panic_notifier_list, &nx_panic_nb);
}

module_init(nx_init);
module_exit(nx_exit);
