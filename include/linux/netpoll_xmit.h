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

#include <linux/time64.h>
#include <linux/types.h>

struct netpoll;

/* Granularity of the busy-wait between two polls of the device. */
#define NETPOLL_XMIT_POLL_US	20

/* Upper bound accepted for @timeout_us, so a bad caller cannot hang a crash. */
#define NETPOLL_XMIT_MAX_TIMEOUT_US	(10 * USEC_PER_SEC)

int netpoll_xmit_wait_ready(struct netpoll *np, unsigned int timeout_us,
			    bool crash);
int netpoll_xmit_udp(struct netpoll *np, const void *msg, int len,
		     unsigned int timeout_us, bool crash);

#endif /* _LINUX_NETPOLL_XMIT_H */
