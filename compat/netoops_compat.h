/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Out-of-tree build only, never part of the patch series: what the
 * sources use from a 6.12 kernel and Debian's 6.1 headers lack.  The
 * Kbuild force-includes this file when the headers of the kernel built
 * against have no do_netpoll_cleanup().
 */
#ifndef _NETOOPS_COMPAT_H
#define _NETOOPS_COMPAT_H

#include <linux/netdevice.h>
#include <linux/netpoll.h>

/* 6.12's do_netpoll_cleanup(), made of what 6.1's netconsole does. */
static inline void do_netpoll_cleanup(struct netpoll *np)
{
	__netpoll_cleanup(np);
	netdev_put(np->dev, &np->dev_tracker);
	np->dev = NULL;
}

/*
 * Included first, this header brought in printk.h's default pr_fmt: drop
 * it, so that the source's own definition is not a redefinition.
 */
#undef pr_fmt

#endif /* _NETOOPS_COMPAT_H */
