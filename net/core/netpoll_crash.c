// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers to transmit through netpoll where its tx work cannot run: in a
 * crashed kernel, whose other CPUs panic() stopped, or while the caller
 * keeps interrupts disabled.
 *
 * netpoll_send_skb() gives the device one jiffy, then parks the skb on
 * npinfo->txq for npinfo->tx_work; every later skb is parked behind it.
 * Neither the work nor a CPU stopped with a lock held will ever run again,
 * so a sender in those contexts needs to know which locks a call into the
 * driver would spin on (netpoll_tx_check_locks()), to hand the parked skbs
 * to the driver itself (netpoll_flush_txq()) and to transmit without
 * spinning (netpoll_tx_trylock_xmit()).
 *
 * Nothing here sleeps or prints; every lock a driver or another CPU may
 * hold is only tried.  netpoll_flush_txq() may allocate to push a VLAN tag
 * into a frame.
 */

#include <linux/export.h>
#include <linux/if_vlan.h>
#include <linux/netdevice.h>
#include <linux/netpoll.h>
#include <linux/netpoll_crash.h>
#include <linux/rculist.h>
#include <linux/skbuff.h>

/**
 * netpoll_tx_lock_busy - whether a lock a transmit may take is held
 * @lock: a tx queue's _xmit_lock, a device's tx_global_lock, or the lock
 *	of netpoll's backlog
 * @owner: the CPU @lock records as its holder (a tx queue's
 *	xmit_lock_owner), or -1
 *
 * A tx queue's owner is written after its lock is taken, and the holder may
 * have been stopped or interrupted in between.  So when @owner is -1 the
 * lock is tried, with interrupts disabled, and released at once.  Lockdep
 * records no interrupt-context use for a trylock.
 *
 * Context: any, including NMI.
 * Return: true if @lock is held, by this CPU or another.
 */
bool netpoll_tx_lock_busy(spinlock_t *lock, int owner)
{
	unsigned long flags;

	if (owner != -1)
		return true;
	if (!spin_trylock_irqsave(lock, flags))
		return true;
	spin_unlock_irqrestore(lock, flags);
	return false;
}
EXPORT_SYMBOL_GPL(netpoll_tx_lock_busy);

struct netpoll_lock_scan {
	int				cpu;	/* this CPU */
	unsigned int			flags;	/* NETPOLL_TX_* */
	const struct netdev_queue	*txq;	/* the queue to send on */
	bool				nopoll;
	int				ret;
};

/*
 * Account for one lock: held by this CPU (@owner) or, with the others
 * stopped, by anyone: stuck (-EDEADLK); held elsewhere: -EAGAIN.  A lock
 * the send does not need (@other: another queue of the device) only keeps
 * the caller from polling, whose NAPI handlers may take it.
 */
static bool netpoll_scan_lock(struct netpoll_lock_scan *sc, spinlock_t *lock,
			      int owner, bool other)
{
	bool stuck;

	if (!netpoll_tx_lock_busy(lock, owner))
		return false;
	stuck = owner == sc->cpu || (sc->flags & NETPOLL_TX_OTHERS_STOPPED);
	if (other) {
		sc->nopoll = true;
		return false;
	}
	sc->ret = stuck ? -EDEADLK : -EAGAIN;
	return stuck;
}

static int netpoll_scan_dev(struct net_device *dev,
			    struct netdev_nested_priv *priv)
{
	struct netpoll_lock_scan *sc = priv->data;
	unsigned int i;

	if (netpoll_scan_lock(sc, &dev->tx_global_lock, -1, false))
		return 1;
	for (i = 0; i < dev->num_tx_queues; i++) {
		struct netdev_queue *txq = netdev_get_tx_queue(dev, i);
		bool other = sc->txq && txq->dev == sc->txq->dev &&
			     txq != sc->txq;

		if (netpoll_scan_lock(sc, &txq->_xmit_lock,
				      READ_ONCE(txq->xmit_lock_owner), other))
			return 1;
	}
	return 0;
}

/**
 * netpoll_tx_check_locks - whether this CPU may call into a device's driver
 * @dev: the device netpoll sends through
 * @npinfo: @dev's netpoll info
 * @txq: the tx queue of @dev to send on, or NULL for any
 * @flags: NETPOLL_TX_OTHERS_STOPPED or 0
 * @nopoll: set when @dev must not be polled
 *
 * Looks at the locks a transmit through @dev may spin on: the lock of
 * netpoll's backlog, and the tx_global_lock and tx queue locks of @dev and
 * of every device below it (VLAN, bonding).  A lock is stuck when this CPU
 * holds it or, with NETPOLL_TX_OTHERS_STOPPED, when any CPU does.  With
 * @txq, the locks of @dev's other queues are not needed for the send; one
 * of them held sets *@nopoll instead, since the driver's NAPI handlers
 * may take it.
 *
 * Not looked at: locks a driver takes otherwise (e.g. to refill its
 * receive ring), the allocator's.
 *
 * Context: any, including NMI; under rcu_read_lock().
 * Return: 0 when no such lock is held, -EAGAIN when one is held by a CPU
 * that runs, -EDEADLK when one is stuck (never call into the driver then).
 */
int netpoll_tx_check_locks(struct net_device *dev, struct netpoll_info *npinfo,
			   const struct netdev_queue *txq, unsigned int flags,
			   bool *nopoll)
{
	struct netpoll_lock_scan sc = {
		.cpu	= raw_smp_processor_id(),
		.flags	= flags,
		.txq	= txq,
	};
	struct netdev_nested_priv priv = { .data = &sc };

	if (!netpoll_scan_lock(&sc, &npinfo->txq.lock, -1, false) &&
	    !netpoll_scan_dev(dev, &priv))
		netdev_walk_all_lower_dev_rcu(dev, netpoll_scan_dev, &priv);
	*nopoll = sc.nopoll;
	return sc.ret;
}
EXPORT_SYMBOL_GPL(netpoll_tx_check_locks);

/**
 * netpoll_in_napi_poll - whether this CPU is inside a NAPI poll of a device
 * @dev: the device
 *
 * Calling the driver's transmit or poll from inside its own poll could
 * recurse into it; netpoll itself does not either.
 *
 * Context: any; under rcu_read_lock().
 * Return: true if a NAPI instance of @dev is being polled by this CPU.
 */
bool netpoll_in_napi_poll(struct net_device *dev)
{
	struct napi_struct *napi;
	int cpu = raw_smp_processor_id();

	list_for_each_entry_rcu(napi, &dev->napi_list, dev_list)
		if (READ_ONCE(napi->poll_owner) == cpu)
			return true;
	return false;
}
EXPORT_SYMBOL_GPL(netpoll_in_napi_poll);

/**
 * netpoll_tx_trylock_xmit - hand an skb to the driver without spinning
 * @skb: the frame, mapped to @txq
 * @dev: the device
 * @txq: the tx queue of @dev to send on
 * @drv_only: only the driver's stop of @txq keeps the skb back, not byte
 *	queue limits' (as for a direct transmit)
 *
 * Context: any, with interrupts disabled.
 * Return: NETDEV_TX_BUSY, the skb still the caller's, when @txq's lock is
 * held or @txq does not run; else what the driver returned.
 */
netdev_tx_t netpoll_tx_trylock_xmit(struct sk_buff *skb,
				    struct net_device *dev,
				    struct netdev_queue *txq, bool drv_only)
{
	netdev_tx_t rc = NETDEV_TX_BUSY;
	bool stopped;

	if (!HARD_TX_TRYLOCK(dev, txq))
		return rc;
	stopped = drv_only ? netif_xmit_frozen_or_drv_stopped(txq) :
			     netif_xmit_frozen_or_stopped(txq);
	if (!stopped)
		rc = netdev_start_xmit(skb, dev, txq, false);
	HARD_TX_UNLOCK(dev, txq);
	return rc;
}
EXPORT_SYMBOL_GPL(netpoll_tx_trylock_xmit);

/**
 * netpoll_flush_txq - hand the skbs netpoll parked to the driver
 * @dev: the device
 * @npinfo: @dev's netpoll info
 *
 * Does what npinfo->tx_work would: dequeues the skbs of npinfo->txq, oldest
 * first, and hands each to the driver on the queue it is mapped to.  Stops
 * at the first skb the driver does not take, which goes back to the head
 * of the backlog, and at a lock held elsewhere.  Does nothing inside a
 * NAPI poll of @dev.  The caller checks first that no lock the driver
 * takes is stuck (netpoll_tx_check_locks()).  Only @dev's own backlog is
 * drained: a VLAN or bonding device parks its skbs on the backlog of the
 * device below it, which this does not drain.
 *
 * Context: any; under rcu_read_lock().  An skb
 * whose VLAN tag the device cannot insert gets it pushed into the frame,
 * which may allocate, or free the skb (dev_kfree_skb_any(), not for NMI).
 * Return: true when the backlog is empty.
 */
bool netpoll_flush_txq(struct net_device *dev, struct netpoll_info *npinfo)
{
	struct sk_buff_head *q = &npinfo->txq;
	unsigned int budget = skb_queue_len_lockless(q);
	unsigned long flags;

	if (netpoll_in_napi_poll(dev))
		return skb_queue_empty_lockless(q);

	while (budget--) {
		struct netdev_queue *txq;
		struct sk_buff *skb;
		netdev_tx_t rc;
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
		rc = netpoll_tx_trylock_xmit(skb, dev, txq, false);
		local_irq_restore(flags);

		if (!dev_xmit_complete(rc)) {
			/*
			 * Back in front: order matters to receivers.  This CPU
			 * held the lock a moment ago, so no context it
			 * interrupted holds it, and no stopped CPU took it since.
			 */
			spin_lock_irqsave(&q->lock, flags);
			__skb_queue_head(q, skb);
			spin_unlock_irqrestore(&q->lock, flags);
			break;
		}
	}
	return skb_queue_empty_lockless(q);
}
EXPORT_SYMBOL_GPL(netpoll_flush_txq);
