/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Transmit through netpoll where its tx work cannot run: a crashed kernel,
 * or a caller that keeps interrupts disabled.  See net/core/netpoll_crash.c.
 */
#ifndef _LINUX_NETPOLL_CRASH_H
#define _LINUX_NETPOLL_CRASH_H

#include <linux/netdevice.h>
#include <linux/spinlock.h>
#include <linux/types.h>

struct netpoll_info;

/* The other CPUs were stopped by panic(): a lock they hold stays held. */
#define NETPOLL_TX_OTHERS_STOPPED	BIT(0)

bool netpoll_tx_lock_busy(spinlock_t *lock, int owner);
int netpoll_tx_check_locks(struct net_device *dev, struct netpoll_info *npinfo,
			   const struct netdev_queue *txq, unsigned int flags,
			   bool *nopoll);
bool netpoll_in_napi_poll(struct net_device *dev);
netdev_tx_t netpoll_tx_trylock_xmit(struct sk_buff *skb,
				    struct net_device *dev,
				    struct netdev_queue *txq, bool drv_only);
bool netpoll_flush_txq(struct net_device *dev, struct netpoll_info *npinfo);

#endif /* _LINUX_NETPOLL_CRASH_H */
