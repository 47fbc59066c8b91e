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
 *      in order, with trylocks only;
 *   3. once the backlog is empty and no tx queue of the device is stopped,
 *      call netpoll_send_udp(), which then succeeds on its first attempt.
 *
 * Never call into the driver while one of the device's tx queue locks is
 * held by this CPU (the interrupted context: the driver's tx poll takes
 * those locks with spin_lock and would deadlock) or, once panic() has
 * stopped the other CPUs, by any CPU (a stopped CPU never releases it).
 * The device is then given up with -EDEADLK.
 *
 * Time bounds: every wait is bounded by the caller's @timeout_us (capped at
 * NETPOLL_XMIT_MAX_TIMEOUT_US), measured with the NMI-safe monotonic clock
 * and, should that clock not advance, by an iteration count of
 * @timeout_us / NETPOLL_XMIT_POLL_US polls.  Nothing here sleeps, prints or
 * takes a lock other than by trylock; netpoll_send_udp() allocates the skb
 * (GFP_ATOMIC, else from netpoll's pool, which it refills) and the driver's
 * tx poll takes the tx queue lock found free just before.
 */

#include <linux/debug_locks.h>
#include <linux/export.h>
#include <linux/if_vlan.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/netpoll.h>
#include <linux/netpoll_xmit.h>
#include <linux/notifier.h>
#include <linux/panic_notifier.h>
#include <linux/skbuff.h>
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
	return NOTIFY_DONE;
}

static struct notifier_block nx_panic_nb = {
	.notifier_call	= nx_panic_notify,
	.priority	= INT_MAX,	/* before notifiers that may not return */
};

/**
 * netpoll_xmit_others_stopped - has panic() stopped every other CPU?
 *
 * Context: any.
 *
 * Return: true on the CPU reporting a panic, once the other CPUs were
 * stopped: any lock they held stays held.
 */
bool netpoll_xmit_others_stopped(void)
{
	return READ_ONCE(nx_panic_cpu) == raw_smp_processor_id();
}
EXPORT_SYMBOL_GPL(netpoll_xmit_others_stopped);

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
 * True if a tx queue of @dev can take a packet (not stopped by the driver
 * or by BQL).  netpoll picks the queue; should it pick a stopped one, the
 * datagram is parked on npinfo->txq and nx_flush_backlog() hands it over
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
 * May this CPU call into @dev's driver?  Not if a tx queue lock of @dev is
 * held by this CPU, nor by any CPU once panic() stopped the others: -EDEADLK.
 * A lock held by a CPU that runs is released soon; the driver may spin on
 * it.
 */
static int nx_txq_locks(struct net_device *dev)
{
	bool stopped = netpoll_xmit_others_stopped();
	int cpu = raw_smp_processor_id();
	unsigned int i;

	for (i = 0; i < dev->num_tx_queues; i++) {
		struct netdev_queue *txq = netdev_get_tx_queue(dev, i);
		int owner = READ_ONCE(txq->xmit_lock_owner);

		if (owner == cpu)
			return -EDEADLK;
		/*
		 * Not an assertion: the owner is written after the lock is
		 * taken, and a CPU may have been stopped in between.
		 */
		if (stopped && (owner != -1 || spin_is_locked(&txq->_xmit_lock)))
			return -EDEADLK;
	}
	return 0;
}

/*
 * True if this CPU is inside a NAPI poll of @dev: calling the driver's
 * transmit from here could recurse into it, so leave the backlog alone (the
 * same rule netpoll follows).
 */
static bool nx_poll_owner_here(struct net_device *dev)
{
	struct napi_struct *napi;
	int cpu = smp_processor_id();

	list_for_each_entry_rcu(napi, &dev->napi_list, dev_list)
		if (READ_ONCE(napi->poll_owner) == cpu)
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
 * Hand the skbs parked on npinfo->txq to the driver, oldest first, as the
 * tx work would.  Returns true when the backlog is empty.
 */
static bool nx_flush_backlog(struct net_device *dev,
			     struct netpoll_info *npinfo)
{
	struct sk_buff_head *q = &npinfo->txq;
	unsigned int budget = skb_queue_len_lockless(q);
	unsigned long flags;

	if (nx_poll_owner_here(dev))
		return skb_queue_empty_lockless(q);

	while (budget--) {
		struct netdev_queue *txq;
		struct sk_buff *skb;
		netdev_tx_t rc = NETDEV_TX_BUSY;
		u16 qi;

		if (!spin_trylock_irqsave(&q->lock, flags))
			break;
		skb = __skb_dequeue(q);
		spin_unlock_irqrestore(&q->lock, flags);
		if (!skb)
			break;

		qi = skb_get_queue_mapping(skb);
		if (unlikely(qi >= dev->real_num_tx_queues)) {
			qi = qi % dev->real_num_tx_queues;
			skb_set_queue_mapping(skb, qi);
		}
		txq = netdev_get_tx_queue(dev, qi);

		if (skb_vlan_tag_present(skb) &&
		    !vlan_hw_offload_capable(netif_skb_features(skb),
					     skb->vlan_proto)) {
			skb = __vlan_hwaccel_push_inside(skb);
			if (!skb)
				continue;	/* freed by the push */
		}

		local_irq_save(flags);
		if (HARD_TX_TRYLOCK(dev, txq)) {
			if (!netif_xmit_frozen_or_stopped(txq))
				rc = netdev_start_xmit(skb, dev, txq, false);
			HARD_TX_UNLOCK(dev, txq);
		}
		local_irq_restore(flags);

		if (!dev_xmit_complete(rc)) {
			/* Put it back in front; order matters to receivers. */
			if (spin_trylock_irqsave(&q->lock, flags)) {
				__skb_queue_head(q, skb);
				spin_unlock_irqrestore(&q->lock, flags);
			} else {
				dev_kfree_skb_any(skb);
			}
			break;
		}
	}
	return skb_queue_empty_lockless(q);
}

/*
 * One step of waiting: returns 0 when the backlog of @dev is empty and, if
 * @need_txq, a tx queue can take a packet; -EAGAIN when not yet; -ENODEV or
 * -EDEADLK (see nx_txq_locks()) when never.  Must run under
 * rcu_read_lock().
 */
static int nx_ready_step(struct net_device *dev, bool need_txq)
{
	struct netpoll_info *npinfo = rcu_dereference_bh(dev->npinfo);
	bool empty;
	int err;

	if (!npinfo || !netif_running(dev) || !netif_device_present(dev))
		return -ENODEV;
	err = nx_txq_locks(dev);
	if (err)
		return err;

	empty = skb_queue_empty_lockless(&npinfo->txq);
	if (!empty && nx_backlog_is_ours())
		empty = nx_flush_backlog(dev, npinfo);

	if (empty && (!need_txq || nx_txqs_ready(dev)))
		return 0;
	return -EAGAIN;
}

static int nx_wait(struct netpoll *np, struct nx_deadline *d, bool need_txq)
{
	struct net_device *dev = np->dev;
	int err;

	if (!dev)
		return -ENODEV;

	/*
	 * The driver's locks are about to be taken from a context lockdep may
	 * find inconsistent (hardirq, NMI).  Once the other CPUs are stopped
	 * that report is noise, and a lockdep splat would only make the dump
	 * longer: switch lock debugging off, as panic() does before it
	 * flushes the consoles.
	 */
	if (netpoll_xmit_others_stopped())
		debug_locks_off();

	rcu_read_lock();
	for (;;) {
		err = nx_ready_step(dev, need_txq);
		if (err != -EAGAIN)
			break;
		if (nx_deadline_passed(d)) {
			err = -ETIMEDOUT;
			break;
		}
		/* Reap completions: this is what wakes a stopped queue. */
		netpoll_poll_dev(dev);
		if (nx_ready_step(dev, need_txq) == 0) {
			err = 0;
			break;
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
 * empty and no tx queue of the device is stopped.
 *
 * Context: any, including panic and NMI-like contexts; does not sleep,
 * allocate, print, or take locks other than by trylock (the driver's tx
 * poll takes a tx queue lock that was free just before).  The caller keeps
 * @np set up for the duration of the call.
 *
 * Return: 0 when the device can take a packet, -ENODEV if it is down or has
 * no netpoll info, -EDEADLK if a tx queue lock is held by this CPU or by a
 * CPU stopped by panic() (never call into the driver then), -ETIMEDOUT if it
 * did not become ready in time.
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
