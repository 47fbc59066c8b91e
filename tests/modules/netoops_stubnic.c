// SPDX-License-Identifier: GPL-2.0
/*
 * netoops_stubnic: an Ethernet device that sends nowhere, for netoops'
 * tests of what a driver may do to the skbs it is given.  TEST ONLY.
 *
 * One device, nxstub0, set up by ether_setup() (IFF_TX_SKB_SHARING kept),
 * one tx queue, no byte queue limits accounting.  Its transmit does what
 * ch9200 does: skb_cow_head(skb, cow_head), then pushes a header of that
 * many bytes.  On a shared skb without that headroom, skb_cow_head()
 * would reach pskb_expand_head(), which BUG()s on a shared skb; this
 * driver counts that case ("short") and drops the frame instead.  Frames
 * are kept in a ring and released by the NAPI poll, which netpoll calls
 * too: as a device that reports a frame sent some time after it took it.
 *
 * /proc/netoops_stubnic reads "frames N\nshared N\nshort N\nreleased N\n".
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/etherdevice.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/skbuff.h>

static unsigned int cow_head = 64;
module_param(cow_head, uint, 0444);
MODULE_PARM_DESC(cow_head,
		 "bytes of header the transmit adds with skb_cow_head()");

#define NS_RING	64

struct ns_priv {
	struct napi_struct napi;
	struct sk_buff *ring[NS_RING];
	unsigned int head, tail;	/* under the tx queue's lock / in poll */
	spinlock_t lock;		/* ring, between transmit and poll */
};

static struct net_device *ns_dev;
static struct proc_dir_entry *ns_proc;
static atomic_t ns_frames, ns_shared, ns_short, ns_released;

static netdev_tx_t ns_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct ns_priv *p = netdev_priv(dev);
	unsigned long flags;
	bool shared = skb_shared(skb);

	atomic_inc(&ns_frames);
	if (shared)
		atomic_inc(&ns_shared);
	if (shared && skb_headroom(skb) < cow_head) {
		atomic_inc(&ns_short);	/* skb_cow_head() would BUG() */
		dev_kfree_skb_any(skb);
		return NETDEV_TX_OK;
	}
	if (skb_cow_head(skb, cow_head)) {
		dev_kfree_skb_any(skb);
		return NETDEV_TX_OK;
	}
	memset(skb_push(skb, cow_head), 0, cow_head);

	spin_lock_irqsave(&p->lock, flags);
	if (p->head - p->tail >= NS_RING) {
		spin_unlock_irqrestore(&p->lock, flags);
		netif_stop_queue(dev);
		skb_pull(skb, cow_head);
		return NETDEV_TX_BUSY;
	}
	p->ring[p->head++ % NS_RING] = skb;
	spin_unlock_irqrestore(&p->lock, flags);
	napi_schedule(&p->napi);
	return NETDEV_TX_OK;
}

static int ns_poll(struct napi_struct *napi, int budget)
{
	struct ns_priv *p = container_of(napi, struct ns_priv, napi);
	unsigned long flags;

	spin_lock_irqsave(&p->lock, flags);
	while (p->tail != p->head) {
		napi_consume_skb(p->ring[p->tail % NS_RING], budget);
		p->ring[p->tail++ % NS_RING] = NULL;
		atomic_inc(&ns_released);
	}
	spin_unlock_irqrestore(&p->lock, flags);
	if (netif_queue_stopped(ns_dev))
		netif_wake_queue(ns_dev);
	if (budget)
		napi_complete_done(napi, 0);
	return 0;
}

static int ns_open(struct net_device *dev)
{
	struct ns_priv *p = netdev_priv(dev);

	napi_enable(&p->napi);
	netif_carrier_on(dev);
	netif_start_queue(dev);
	return 0;
}

static int ns_stop(struct net_device *dev)
{
	struct ns_priv *p = netdev_priv(dev);

	netif_stop_queue(dev);
	napi_disable(&p->napi);
	ns_poll(&p->napi, 0);
	return 0;
}

static const struct net_device_ops ns_ops = {
	.ndo_open	= ns_open,
	.ndo_stop	= ns_stop,
	.ndo_start_xmit	= ns_xmit,
	.ndo_set_mac_address = eth_mac_addr,
	.ndo_validate_addr = eth_validate_addr,
};

static int ns_show(struct seq_file *m, void *v)
{
	seq_printf(m, "frames %d\nshared %d\nshort %d\nreleased %d\n",
		   atomic_read(&ns_frames), atomic_read(&ns_shared),
		   atomic_read(&ns_short), atomic_read(&ns_released));
	return 0;
}

static int __init ns_init(void)
{
	struct ns_priv *p;
	int err;

	ns_dev = alloc_etherdev(sizeof(struct ns_priv));
	if (!ns_dev)
		return -ENOMEM;
	strscpy(ns_dev->name, "nxstub%d", sizeof(ns_dev->name));
	ns_dev->netdev_ops = &ns_ops;
	eth_hw_addr_random(ns_dev);
	p = netdev_priv(ns_dev);
	spin_lock_init(&p->lock);
	netif_napi_add(ns_dev, &p->napi, ns_poll);
	err = register_netdev(ns_dev);
	if (err)
		goto free;
	ns_proc = proc_create_single("netoops_stubnic", 0444, NULL, ns_show);
	if (!ns_proc) {
		err = -ENOMEM;
		goto unreg;
	}
	return 0;
unreg:
	unregister_netdev(ns_dev);
free:
	netif_napi_del(&p->napi);
	free_netdev(ns_dev);
	return err;
}

static void __exit ns_exit(void)
{
	struct ns_priv *p = netdev_priv(ns_dev);

	proc_remove(ns_proc);
	unregister_netdev(ns_dev);
	netif_napi_del(&p->napi);
	free_netdev(ns_dev);
}

module_init(ns_init);
module_exit(ns_exit);
MODULE_DESCRIPTION("netoops test-only Ethernet stub: counts shared skbs and their headroom");
MODULE_LICENSE("GPL");
