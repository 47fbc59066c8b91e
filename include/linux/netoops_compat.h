/* SPDX-License-Identifier: GPL-2.0 */
/*
 * netoops_compat.h - the few kernel API differences between the Debian 6.1
 * and 6.12 kernels that netpoll_targets, netconsole and netoops build
 * against.  The out-of-tree Kbuild defines NETOOPS_COMPAT_* when the
 * kernel's headers lack the newer API; a current tree defines none.
 */
#ifndef _LINUX_NETOOPS_COMPAT_H
#define _LINUX_NETOOPS_COMPAT_H

#include <linux/netdevice.h>
#include <linux/netpoll.h>
#include <linux/rtnetlink.h>

/**
 * netoops_netpoll_cleanup_locked() - detach a netpoll from its device
 * @np:		a netpoll set up with netpoll_setup(), or already cleaned
 *
 * Same as netpoll_cleanup() for a caller that already holds RTNL (the
 * netdevice notifier).  6.12 exports do_netpoll_cleanup(), which also
 * flushes the 6.12 per-netpoll skb pool; 6.1 has neither.
 */
static inline void netoops_netpoll_cleanup_locked(struct netpoll *np)
{
	ASSERT_RTNL();
	if (!np->dev)
		return;
#ifdef NETOOPS_COMPAT_NO_DO_NETPOLL_CLEANUP
	__netpoll_cleanup(np);
	netdev_put(np->dev, &np->dev_tracker);
	np->dev = NULL;
#else
	do_netpoll_cleanup(np);
#endif
}

#endif /* _LINUX_NETOOPS_COMPAT_H */
