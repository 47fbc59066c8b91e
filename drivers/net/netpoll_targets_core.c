// SPDX-License-Identifier: GPL-2.0
/*
 * netpoll_targets - sets of netpoll destinations, configured through
 * configfs or a module/boot parameter, shared by netconsole and netoops.
 *
 * Hierarchy of one set:
 *
 *   /sys/kernel/config/<set name>/
 *   |-- <target>/
 *   |   |-- enabled
 *   |   |-- state            (read-only)
 *   |   |-- dev_name
 *   |   |-- local_port
 *   |   |-- remote_port
 *   |   |-- local_ip
 *   |   |-- remote_ip
 *   |   |-- local_mac        (read-only)
 *   |   |-- remote_mac
 *   |   `-- <client attributes and groups>
 *   `-- ...
 *
 * State changes of a target (see enum netpoll_target_state):
 *
 *   DISABLED --enable--> SETTING_UP --ok--> ENABLED --disable--> CLEANING
 *      ^                    |  fail          |  device gone         |
 *      |<-------------------'                v                      |
 *      |<------disable------------------ DEACTIVATED                |
 *      |                                     | device back up       |
 *      |                                     `--> SETTING_UP ...    |
 *      `------------------------------------------------------------'
 *
 * netpoll_setup() and the netpoll cleanup always run in process context,
 * never under the set's spinlock: the target is first moved to SETTING_UP
 * or CLEANING under the lock, so that senders (which only use ENABLED
 * targets, under the lock) never see a netpoll being built or torn down.
 * The cleanup runs under RTNL, either taken here or already held by the
 * netdevice notifier, so that the notifier and a user's disable cannot
 * clean the same netpoll twice.
 */

#define pr_fmt(fmt) "netpoll_targets: " fmt

#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/inet.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/netpoll_targets.h>
#include <linux/netpoll_xmit.h>
#include <linux/panic.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>

/* How long a crash-path sender tries the set's lock: 1000 x 1 us. */
#define NPT_CRASH_LOCK_TRIES	1000

/*
 * Budget of the reliable transmit for one datagram.  Generous in a crash,
 * where losing the tail of the log is the failure we exist to avoid; short
 * otherwise, because the console write runs with interrupts disabled.
 */
#define NPT_XMIT_TIMEOUT_US		(20 * USEC_PER_MSEC)
#define NPT_XMIT_CRASH_TIMEOUT_US	(500 * USEC_PER_MSEC)
/*
 * Outside a crash, after this many datagrams in a row that the device did
 * not take within NPT_XMIT_TIMEOUT_US, a target stops waiting for it: each
 * datagram gets one look at the device until one is taken again.
 */
#define NPT_XMIT_MAX_STALLS		4

static const char * const npt_state_names[] = {
	[NETPOLL_TARGET_DISABLED]	= "disabled",
	[NETPOLL_TARGET_SETTING_UP]	= "setting-up",
	[NETPOLL_TARGET_ENABLED]	= "enabled",
	[NETPOLL_TARGET_CLEANING]	= "cleaning",
	[NETPOLL_TARGET_DEACTIVATED]	= "deactivated",
};

const char *netpoll_target_state_name(enum netpoll_target_state state)
{
	if ((unsigned int)state >= ARRAY_SIZE(npt_state_names))
		return "unknown";
	return npt_state_names[state];
}
EXPORT_SYMBOL_GPL(netpoll_target_state_name);

static struct netpoll_targets *to_nts(struct config_group *group)
{
	return container_of(group, struct netpoll_targets, subsys.su_group);
}

static void npt_get(struct netpoll_target *nt)
{
	config_item_get(&nt->group.cg_item);
}

static void npt_put(struct netpoll_target *nt)
{
	config_item_put(&nt->group.cg_item);
}

static enum netpoll_target_state npt_state(struct netpoll_target *nt)
{
	unsigned long flags;
	enum netpoll_target_state state;

	spin_lock_irqsave(&nt->nts->lock, flags);
	state = nt->state;
	spin_unlock_irqrestore(&nt->nts->lock, flags);
	return state;
}

static void npt_set_state(struct netpoll_target *nt,
			  enum netpoll_target_state state)
{
	unsigned long flags;

	spin_lock_irqsave(&nt->nts->lock, flags);
	nt->state = state;
	spin_unlock_irqrestore(&nt->nts->lock, flags);
}

/* Wait until no pinned sender uses @nt, which has left ENABLED. */
static void npt_wait_unpinned(struct netpoll_target *nt)
{
	struct netpoll_targets *nts = nt->nts;

	wait_event(nts->unpinned, !READ_ONCE(nt->pinned));
}

/* Detach @np from its device, if it has one.  Called with RTNL held. */
static void npt_netpoll_cleanup(struct netpoll *np)
{
	ASSERT_RTNL();
	if (np->dev)
		do_netpoll_cleanup(np);
}

/*
 * Enable a DISABLED or DEACTIVATED target.  Called with nts->mutex held;
 * takes RTNL (inside netpoll_setup()).
 */
static int npt_enable(struct netpoll_target *nt)
{
	const struct netpoll_targets_ops *ops = nt->nts->ops;
	enum netpoll_target_state prev;
	unsigned long flags;
	bool enabled = false;
	int err;

	lockdep_assert_held(&nt->nts->mutex);

	prev = npt_state(nt);
	if (prev != NETPOLL_TARGET_DISABLED &&
	    prev != NETPOLL_TARGET_DEACTIVATED)
		return -EBUSY;

	if (ops && ops->prepare_enable) {
		err = ops->prepare_enable(nt);
		if (err)
			return err;
	}

	npt_set_state(nt, NETPOLL_TARGET_SETTING_UP);
	err = netpoll_setup(&nt->np);

	spin_lock_irqsave(&nt->nts->lock, flags);
	if (err) {
		nt->state = prev;
	} else if (nt->state == NETPOLL_TARGET_SETTING_UP) {
		nt->state = NETPOLL_TARGET_ENABLED;
		enabled = true;
	}
	/*
	 * Otherwise the device went away between netpoll_setup() and here:
	 * the notifier already cleaned the netpoll and chose the new state.
	 */
	spin_unlock_irqrestore(&nt->nts->lock, flags);

	if (err)
		return err;
	if (enabled && ops && ops->enabled)
		ops->enabled(nt);
	return 0;
}

/*
 * Disable a target whatever its state.  Called with nts->mutex held; takes
 * RTNL so that a concurrent netdevice notifier (which runs under RTNL) has
 * either finished with this target or not started.
 */
static void npt_disable(struct netpoll_target *nt)
{
	const struct netpoll_targets_ops *ops = nt->nts->ops;
	enum netpoll_target_state prev;
	unsigned long flags;

	lockdep_assert_held(&nt->nts->mutex);

	rtnl_lock();
	spin_lock_irqsave(&nt->nts->lock, flags);
	prev = nt->state;
	if (prev == NETPOLL_TARGET_ENABLED)
		nt->state = NETPOLL_TARGET_CLEANING;
	spin_unlock_irqrestore(&nt->nts->lock, flags);

	/*
	 * No sender under the lock uses nt->np any more: it was ENABLED
	 * under the lock.  A pinned sender may; it finishes in bounded time.
	 */
	npt_wait_unpinned(nt);
	npt_netpoll_cleanup(&nt->np);
	npt_set_state(nt, NETPOLL_TARGET_DISABLED);
	rtnl_unlock();

	if (prev == NETPOLL_TARGET_ENABLED && ops && ops->disabled)
		ops->disabled(nt);
}

int netpoll_target_strtobool(const char *buf, bool *res)
{
	static const char * const words[] = {
		"0", "1", "n", "y", "no", "yes", "off", "on", "false", "true",
	};
	size_t len = strlen(buf);
	unsigned int i;

	if (len && buf[len - 1] == '\n')
		len--;
	for (i = 0; i < ARRAY_SIZE(words); i++) {
		if (strlen(words[i]) == len &&
		    !strncasecmp(buf, words[i], len)) {
			*res = i & 1;
			return 0;
		}
	}
	return -EINVAL;
}
EXPORT_SYMBOL_GPL(netpoll_target_strtobool);

int netpoll_target_config_lock(struct netpoll_target *nt)
{
	mutex_lock(&nt->nts->mutex);
	switch (npt_state(nt)) {
	case NETPOLL_TARGET_DISABLED:
	case NETPOLL_TARGET_DEACTIVATED:
		return 0;
	default:
		mutex_unlock(&nt->nts->mutex);
		return -EBUSY;
	}
}
EXPORT_SYMBOL_GPL(netpoll_target_config_lock);

void netpoll_target_config_unlock(struct netpoll_target *nt)
{
	mutex_unlock(&nt->nts->mutex);
}
EXPORT_SYMBOL_GPL(netpoll_target_config_unlock);

/* ---------------------------------------------------------------------- */
/* configfs attributes common to every client                             */

/* Length of @buf without one trailing newline, as written by echo. */
static size_t npt_strip_len(const char *buf, size_t count)
{
	if (count && buf[count - 1] == '\n')
		count--;
	return count;
}

/* Parse a boolean attribute: kstrtobool() as netconsole, else strictly. */
static int npt_parse_bool(struct netpoll_target *nt, const char *buf,
			  bool *res)
{
	if (nt->nts->netconsole_abi)
		return kstrtobool(buf, res);
	return netpoll_target_strtobool(buf, res);
}

/*
 * What a successful store returns: netconsole reports the bytes before the
 * first NUL, so write(2) of "1\0x" returns 1 there.
 */
static ssize_t npt_stored(struct netpoll_target *nt, const char *buf,
			  size_t count)
{
	return nt->nts->netconsole_abi ? strnlen(buf, count) : count;
}

static ssize_t enabled_show(struct config_item *item, char *buf)
{
	struct netpoll_target *nt = to_netpoll_target(item);

	return sysfs_emit(buf, "%d\n", npt_state(nt) == NETPOLL_TARGET_ENABLED);
}

static ssize_t enabled_store(struct config_item *item, const char *buf,
			     size_t count)
{
	struct netpoll_target *nt = to_netpoll_target(item);
	enum netpoll_target_state state;
	bool enable;
	int err;

	err = npt_parse_bool(nt, buf, &enable);
	if (err)
		return err;

	mutex_lock(&nt->nts->mutex);
	state = npt_state(nt);
	/* A DEACTIVATED target can be disabled, or enabled by hand. */
	if ((enable && state == NETPOLL_TARGET_ENABLED) ||
	    (!enable && state == NETPOLL_TARGET_DISABLED)) {
		/* Same answer as netconsole always gave. */
		pr_info("%s/%s: network logging has already %s\n",
			nt->nts->name, netpoll_target_name(nt),
			enable ? "started" : "stopped");
		err = -EINVAL;
	} else if (enable) {
		err = npt_enable(nt);
	} else {
		npt_disable(nt);
	}
	mutex_unlock(&nt->nts->mutex);
	return err ? err : npt_stored(nt, buf, count);
}

static ssize_t state_show(struct config_item *item, char *buf)
{
	struct netpoll_target *nt = to_netpoll_target(item);

	return sysfs_emit(buf, "%s\n", netpoll_target_state_name(npt_state(nt)));
}

static ssize_t dev_name_show(struct config_item *item, char *buf)
{
	struct netpoll_target *nt = to_netpoll_target(item);
	char name[IFNAMSIZ];
	unsigned long flags;

	/* The notifier renames under the lock. */
	spin_lock_irqsave(&nt->nts->lock, flags);
	strscpy(name, nt->np.dev_name, sizeof(name));
	spin_unlock_irqrestore(&nt->nts->lock, flags);
	return sysfs_emit(buf, "%s\n", name);
}

static ssize_t dev_name_store(struct config_item *item, const char *buf,
			      size_t count)
{
	struct netpoll_target *nt = to_netpoll_target(item);
	size_t len = npt_strip_len(buf, count);
	char name[IFNAMSIZ];
	unsigned long flags;
	int err;

	if (nt->nts->netconsole_abi) {
		/*
		 * As netconsole: any text that fits, up to the first NUL,
		 * less one trailing newline; "" is a name too.
		 */
		if (len >= IFNAMSIZ)
			return -ENAMETOOLONG;
		strscpy(name, buf, IFNAMSIZ);
		len = strlen(name);
		if (len && name[len - 1] == '\n')
			name[len - 1] = '\0';
	} else {
		if (len >= IFNAMSIZ)
			return -EINVAL;
		memcpy(name, buf, len);
		name[len] = '\0';
		if (!dev_valid_name(name))
			return -EINVAL;
	}

	err = netpoll_target_config_lock(nt);
	if (err)
		return err;
	spin_lock_irqsave(&nt->nts->lock, flags);
	strscpy(nt->np.dev_name, name, IFNAMSIZ);
	spin_unlock_irqrestore(&nt->nts->lock, flags);
	netpoll_target_config_unlock(nt);
	return npt_stored(nt, buf, count);
}

/* A port: as netconsole, kstrtou16()'s answer (0 allowed); else 1..65535. */
static int npt_parse_port(struct netpoll_target *nt, const char *buf,
			  u16 *port)
{
	int err = kstrtou16(buf, 10, port);

	if (nt->nts->netconsole_abi)
		return err;
	if (err || !*port)
		return -EINVAL;
	return 0;
}

static ssize_t local_port_show(struct config_item *item, char *buf)
{
	return sysfs_emit(buf, "%u\n", to_netpoll_target(item)->np.local_port);
}

/*
 * Store a port of @item's netpoll under the config lock (-EBUSY while
 * enabled); a bad value is refused and the old one kept.
 */
static ssize_t npt_port_store(struct config_item *item, const char *buf,
			      size_t count, bool remote)
{
	struct netpoll_target *nt = to_netpoll_target(item);
	u16 port;
	int err;

	err = netpoll_target_config_lock(nt);
	if (err)
		return err;
	err = npt_parse_port(nt, buf, &port);
	if (!err) {
		if (remote)
			nt->np.remote_port = port;
		else
			nt->np.local_port = port;
	}
	netpoll_target_config_unlock(nt);
	return err ? err : npt_stored(nt, buf, count);
}

static ssize_t local_port_store(struct config_item *item, const char *buf,
				size_t count)
{
	return npt_port_store(item, buf, count, false);
}

static ssize_t remote_port_show(struct config_item *item, char *buf)
{
	return sysfs_emit(buf, "%u\n", to_netpoll_target(item)->np.remote_port);
}

static ssize_t remote_port_store(struct config_item *item, const char *buf,
				 size_t count)
{
	return npt_port_store(item, buf, count, true);
}

/*
 * Parse an IPv4 or IPv6 address followed by nothing but an optional
 * newline.  Return 0 and set @ipv6, or -EINVAL.
 *
 * As netconsole (@nt's set has netconsole_abi): an IPv6 address may be
 * followed by a newline and anything; IPv4 text is refused once the
 * target is IPv6; an empty write is 0.0.0.0 (unset).  Text that is not an
 * address is refused, where netconsole would store what in_aton() made
 * of it.
 */
static int npt_parse_ip(struct netpoll_target *nt, const char *buf,
			size_t count, union inet_addr *addr, bool *ipv6)
{
	bool abi = nt->nts->netconsole_abi;
	size_t len = npt_strip_len(buf, count);
	const char *end;

	memset(addr, 0, sizeof(*addr));
	if (strnchr(buf, count, ':')) {
		if (in6_pton(buf, abi ? count : len, addr->in6.s6_addr, -1,
			     &end) <= 0)
			return -EINVAL;
		if (abi ? *end && *end != '\n' : end != buf + len)
			return -EINVAL;
		*ipv6 = true;
		return 0;
	}
	if (abi && nt->np.ipv6)
		return -EINVAL;
	*ipv6 = false;
	if (abi && !len)
		return 0;
	if (!len || in4_pton(buf, len, (u8 *)&addr->ip, -1, &end) <= 0 ||
	    end != buf + len)
		return -EINVAL;
	return 0;
}

static ssize_t npt_ip_show(struct netpoll_target *nt, union inet_addr *addr,
			   char *buf)
{
	if (nt->np.ipv6)
		return sysfs_emit(buf, "%pI6c\n", &addr->in6);
	return sysfs_emit(buf, "%pI4\n", &addr->ip);
}

static ssize_t npt_ip_store(struct netpoll_target *nt, union inet_addr *dst,
			    const char *buf, size_t count)
{
	union inet_addr addr;
	bool ipv6;
	int err;

	err = netpoll_target_config_lock(nt);
	if (err)
		return err;
	err = npt_parse_ip(nt, buf, count, &addr, &ipv6);
	if (!err) {
		*dst = addr;
		nt->np.ipv6 = ipv6;
	}
	netpoll_target_config_unlock(nt);
	return err ? err : npt_stored(nt, buf, count);
}

static ssize_t local_ip_show(struct config_item *item, char *buf)
{
	struct netpoll_target *nt = to_netpoll_target(item);

	return npt_ip_show(nt, &nt->np.local_ip, buf);
}

static ssize_t local_ip_store(struct config_item *item, const char *buf,
			      size_t count)
{
	struct netpoll_target *nt = to_netpoll_target(item);

	return npt_ip_store(nt, &nt->np.local_ip, buf, count);
}

static ssize_t remote_ip_show(struct config_item *item, char *buf)
{
	struct netpoll_target *nt = to_netpoll_target(item);

	return npt_ip_show(nt, &nt->np.remote_ip, buf);
}

static ssize_t remote_ip_store(struct config_item *item, const char *buf,
			       size_t count)
{
	struct netpoll_target *nt = to_netpoll_target(item);

	return npt_ip_store(nt, &nt->np.remote_ip, buf, count);
}

static ssize_t local_mac_show(struct config_item *item, char *buf)
{
	struct netpoll_target *nt = to_netpoll_target(item);
	u8 mac[ETH_ALEN];
	unsigned long flags;

	eth_broadcast_addr(mac);
	spin_lock_irqsave(&nt->nts->lock, flags);
	if (nt->state == NETPOLL_TARGET_ENABLED && nt->np.dev)
		ether_addr_copy(mac, nt->np.dev->dev_addr);
	spin_unlock_irqrestore(&nt->nts->lock, flags);
	return sysfs_emit(buf, "%pM\n", mac);
}

static ssize_t remote_mac_show(struct config_item *item, char *buf)
{
	return sysfs_emit(buf, "%pM\n", to_netpoll_target(item)->np.remote_mac);
}

static ssize_t remote_mac_store(struct config_item *item, const char *buf,
				size_t count)
{
	struct netpoll_target *nt = to_netpoll_target(item);
	size_t len = npt_strip_len(buf, count);
	u8 mac[ETH_ALEN];
	int err;

	err = netpoll_target_config_lock(nt);
	if (err)
		return err;
	/*
	 * "xx:xx:xx:xx:xx:xx" and nothing else; netconsole also takes
	 * anything after a newline that follows it.
	 */
	if (!mac_pton(buf, mac) ||
	    (nt->nts->netconsole_abi ?
	     buf[3 * ETH_ALEN - 1] && buf[3 * ETH_ALEN - 1] != '\n' :
	     len != 3 * ETH_ALEN - 1))
		err = -EINVAL;
	else
		ether_addr_copy(nt->np.remote_mac, mac);
	netpoll_target_config_unlock(nt);
	return err ? err : npt_stored(nt, buf, count);
}

CONFIGFS_ATTR(, enabled);
CONFIGFS_ATTR_RO(, state);
CONFIGFS_ATTR(, dev_name);
CONFIGFS_ATTR(, local_port);
CONFIGFS_ATTR(, remote_port);
CONFIGFS_ATTR(, local_ip);
CONFIGFS_ATTR(, remote_ip);
CONFIGFS_ATTR_RO(, local_mac);
CONFIGFS_ATTR(, remote_mac);

static struct configfs_attribute *npt_attrs[] = {
	&attr_enabled,
	&attr_state,
	&attr_dev_name,
	&attr_local_port,
	&attr_remote_port,
	&attr_local_ip,
	&attr_remote_ip,
	&attr_local_mac,
	&attr_remote_mac,
	NULL,
};

/* ---------------------------------------------------------------------- */
/* target allocation and configfs groups                                  */

static void npt_release(struct config_item *item)
{
	struct netpoll_target *nt = to_netpoll_target(item);
	const struct netpoll_targets_ops *ops = nt->nts->ops;

	if (ops && ops->release)
		ops->release(nt);
	kfree(nt);
}

static struct configfs_item_operations npt_item_ops = {
	.release	= npt_release,
};

static void npt_resume_work(struct work_struct *work);

/* Allocate a target holding one reference (the caller's). */
static struct netpoll_target *npt_alloc(struct netpoll_targets *nts,
					const char *name)
{
	const struct netpoll_targets_ops *ops = nts->ops;
	struct netpoll_target *nt;
	int err;

	nt = kzalloc(sizeof(*nt) + nts->priv_size, GFP_KERNEL);
	if (!nt)
		return ERR_PTR(-ENOMEM);

	nt->nts = nts;
	INIT_LIST_HEAD(&nt->list);
	INIT_WORK(&nt->resume_work, npt_resume_work);
	nt->state = NETPOLL_TARGET_DISABLED;
	nt->np.name = nts->name;
	strscpy(nt->np.dev_name, "eth0", IFNAMSIZ);
	nt->np.local_port = nts->default_local_port;
	nt->np.remote_port = nts->default_remote_port;
	eth_broadcast_addr(nt->np.remote_mac);
	config_group_init_type_name(&nt->group, name, &nts->target_type);

	if (ops && ops->init) {
		err = ops->init(nt);
		if (err) {
			kfree(nt);
			return ERR_PTR(err);
		}
	}
	return nt;
}

/* Put @nt on the set's list, which takes its own reference. */
static void npt_link(struct netpoll_target *nt)
{
	struct netpoll_targets *nts = nt->nts;
	unsigned long flags;

	lockdep_assert_held(&nts->mutex);
	npt_get(nt);
	spin_lock_irqsave(&nts->lock, flags);
	list_add_tail(&nt->list, &nts->list);
	spin_unlock_irqrestore(&nts->lock, flags);
}

/*
 * Take @nt off the list, stop it and drop the list's reference.  Called
 * without nts->mutex: the resume work takes it.
 */
static void npt_unlink(struct netpoll_target *nt)
{
	struct netpoll_targets *nts = nt->nts;
	unsigned long flags;

	mutex_lock(&nts->mutex);
	spin_lock_irqsave(&nts->lock, flags);
	list_del_init(&nt->list);
	spin_unlock_irqrestore(&nts->lock, flags);
	mutex_unlock(&nts->mutex);

	/* Off the list, the notifier cannot queue it again. */
	cancel_work_sync(&nt->resume_work);

	mutex_lock(&nts->mutex);
	npt_disable(nt);
	nt->in_configfs = false;
	mutex_unlock(&nts->mutex);
	npt_put(nt);
}

static struct netpoll_target *npt_find_unattached(struct netpoll_targets *nts,
						  const char *name)
{
	struct netpoll_target *nt;

	lockdep_assert_held(&nts->mutex);
	/* The list only changes under the mutex, which we hold. */
	list_for_each_entry(nt, &nts->list, list)
		if (!nt->in_configfs && !strcmp(netpoll_target_name(nt), name))
			return nt;
	return NULL;
}

static struct config_group *npt_make_group(struct config_group *group,
					   const char *name)
{
	struct netpoll_targets *nts = to_nts(group);
	struct netpoll_target *nt;

	mutex_lock(&nts->mutex);
	/* mkdir cmdline<N> shows the command-line target of that name. */
	nt = npt_find_unattached(nts, name);
	if (nt) {
		npt_get(nt);		/* configfs' reference */
		nt->in_configfs = true;
		mutex_unlock(&nts->mutex);
		return &nt->group;
	}

	nt = npt_alloc(nts, name);
	if (IS_ERR(nt)) {
		mutex_unlock(&nts->mutex);
		return ERR_CAST(nt);
	}
	nt->in_configfs = true;
	npt_link(nt);
	mutex_unlock(&nts->mutex);
	return &nt->group;
}

static void npt_drop_item(struct config_group *group, struct config_item *item)
{
	npt_unlink(to_netpoll_target(item));
	config_item_put(item);		/* configfs' reference */
}

static struct configfs_group_operations npt_group_ops = {
	.make_group	= npt_make_group,
	.drop_item	= npt_drop_item,
};

/* ---------------------------------------------------------------------- */
/* netdevice notifier                                                     */

static void npt_resume_work(struct work_struct *work)
{
	struct netpoll_target *nt = container_of(work, struct netpoll_target,
						 resume_work);
	struct netpoll_targets *nts = nt->nts;
	int err;

	mutex_lock(&nts->mutex);
	if (!list_empty(&nt->list) &&
	    npt_state(nt) == NETPOLL_TARGET_DEACTIVATED) {
		err = npt_enable(nt);
		if (err)
			pr_warn("%s/%s: cannot resume on %s: %d\n", nts->name,
				netpoll_target_name(nt), nt->np.dev_name, err);
		else
			pr_info("%s/%s: resumed on %s\n", nts->name,
				netpoll_target_name(nt), nt->np.dev_name);
	}
	mutex_unlock(&nts->mutex);
}

/*
 * Detach every target of @nts that uses @dev and move it to @to.  Runs
 * under RTNL.  The lock is dropped around each cleanup, so the walk starts
 * over afterwards; a cleaned target no longer matches (np.dev is NULL).
 */
static void npt_detach_dev(struct netpoll_targets *nts, struct net_device *dev,
			   enum netpoll_target_state to)
{
	const struct netpoll_targets_ops *ops = nts->ops;
	struct netpoll_target *nt, *found;
	enum netpoll_target_state prev;
	unsigned long flags;

	ASSERT_RTNL();
again:
	found = NULL;
	spin_lock_irqsave(&nts->lock, flags);
	list_for_each_entry(nt, &nts->list, list) {
		if (nt->np.dev != dev)
			continue;
		prev = nt->state;
		if (prev != NETPOLL_TARGET_ENABLED &&
		    prev != NETPOLL_TARGET_SETTING_UP)
			continue;
		nt->state = NETPOLL_TARGET_CLEANING;
		npt_get(nt);
		found = nt;
		break;
	}
	spin_unlock_irqrestore(&nts->lock, flags);
	if (!found)
		return;

	npt_wait_unpinned(found);
	npt_netpoll_cleanup(&found->np);
	npt_set_state(found, to);
	pr_info("%s/%s: %s %s\n", nts->name, netpoll_target_name(found),
		to == NETPOLL_TARGET_DEACTIVATED ? "deactivated, device gone:" :
		"disabled, device enslaved:", dev->name);
	if (prev == NETPOLL_TARGET_ENABLED && ops && ops->disabled)
		ops->disabled(found);
	npt_put(found);
	goto again;
}

static int npt_netdev_event(struct notifier_block *nb, unsigned long event,
			    void *ptr)
{
	struct netpoll_targets *nts = container_of(nb, struct netpoll_targets,
						   nb);
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	struct netpoll_target *nt;
	unsigned long flags;

	switch (event) {
	case NETDEV_CHANGENAME:
		spin_lock_irqsave(&nts->lock, flags);
		list_for_each_entry(nt, &nts->list, list)
			if (nt->np.dev == dev)
				strscpy(nt->np.dev_name, dev->name, IFNAMSIZ);
		spin_unlock_irqrestore(&nts->lock, flags);
		break;
	case NETDEV_CHANGEMTU:
		if (!nts->ops || !nts->ops->dev_changed)
			break;
		spin_lock_irqsave(&nts->lock, flags);
		list_for_each_entry(nt, &nts->list, list)
			if (nt->state == NETPOLL_TARGET_ENABLED &&
			    nt->np.dev == dev)
				nts->ops->dev_changed(nt);
		spin_unlock_irqrestore(&nts->lock, flags);
		break;
	case NETDEV_UNREGISTER:
		npt_detach_dev(nts, dev, NETPOLL_TARGET_DEACTIVATED);
		break;
	case NETDEV_RELEASE:
	case NETDEV_JOIN:
		/* netpoll cannot run on a bond/bridge port */
		npt_detach_dev(nts, dev, NETPOLL_TARGET_DISABLED);
		break;
	case NETDEV_UP:
		/* netpoll_setup() only looks in init_net */
		if (!net_eq(dev_net(dev), &init_net))
			break;
		spin_lock_irqsave(&nts->lock, flags);
		list_for_each_entry(nt, &nts->list, list)
			if (nt->state == NETPOLL_TARGET_DEACTIVATED &&
			    !strncmp(nt->np.dev_name, dev->name, IFNAMSIZ))
				schedule_work(&nt->resume_work);
		spin_unlock_irqrestore(&nts->lock, flags);
		break;
	}
	return NOTIFY_DONE;
}

/* ---------------------------------------------------------------------- */
/* senders                                                                */

int netpoll_targets_walk_enabled(struct netpoll_targets *nts,
				 netpoll_target_fn fn, void *data,
				 unsigned int flags)
{
	struct netpoll_target *nt;
	unsigned long irqflags;
	int tries, visited = 0;

	if (!READ_ONCE(nts->registered))
		return 0;

	if ((flags & NETPOLL_TARGETS_CRASH) || oops_in_progress) {
		/*
		 * The crashed context, or a CPU stopped by the panic, may hold
		 * the lock: try it for a bounded time, never spin on it.
		 */
		local_irq_save(irqflags);
		for (tries = 0; !spin_trylock(&nts->lock); tries++) {
			if (tries >= NPT_CRASH_LOCK_TRIES) {
				local_irq_restore(irqflags);
				return -EBUSY;
			}
			udelay(1);
		}
	} else {
		spin_lock_irqsave(&nts->lock, irqflags);
	}

	list_for_each_entry(nt, &nts->list, list) {
		if (nt->state != NETPOLL_TARGET_ENABLED &&
		    !(flags & NETPOLL_TARGETS_ALL))
			continue;
		visited++;
		if (fn(nt, data))
			break;
	}
	spin_unlock_irqrestore(&nts->lock, irqflags);
	return visited;
}
EXPORT_SYMBOL_GPL(netpoll_targets_walk_enabled);

/* The first ENABLED target not visited in walk @gen, pinned; under @lock. */
static struct netpoll_target *npt_pin_next(struct netpoll_targets *nts,
					   unsigned int gen)
{
	struct netpoll_target *nt;

	lockdep_assert_held(&nts->lock);
	list_for_each_entry(nt, &nts->list, list) {
		if (nt->pin_gen == gen || nt->state != NETPOLL_TARGET_ENABLED)
			continue;
		nt->pin_gen = gen;
		nt->pinned++;
		npt_get(nt);
		return nt;
	}
	return NULL;
}

int netpoll_targets_walk_enabled_pinned(struct netpoll_targets *nts,
					netpoll_target_fn fn, void *data)
{
	struct netpoll_target *nt;
	unsigned long flags;
	unsigned int gen;
	int visited = 0, stop = 0;

	might_sleep();
	if (!READ_ONCE(nts->registered))
		return 0;

	mutex_lock(&nts->pin_mutex);
	spin_lock_irqsave(&nts->lock, flags);
	gen = ++nts->pin_gen;
	/*
	 * Marks of this walk are reset first: a target that last saw a walk
	 * 2^32 walks ago must not pass for visited.
	 */
	list_for_each_entry(nt, &nts->list, list)
		nt->pin_gen = gen - 1;
	while (!stop && (nt = npt_pin_next(nts, gen))) {
		spin_unlock_irqrestore(&nts->lock, flags);
		visited++;
		stop = fn(nt, data);
		spin_lock_irqsave(&nts->lock, flags);
		nt->pinned--;
		spin_unlock_irqrestore(&nts->lock, flags);
		wake_up_all(&nts->unpinned);
		npt_put(nt);
		cond_resched();
		spin_lock_irqsave(&nts->lock, flags);
	}
	spin_unlock_irqrestore(&nts->lock, flags);
	mutex_unlock(&nts->pin_mutex);
	return visited;
}
EXPORT_SYMBOL_GPL(netpoll_targets_walk_enabled_pinned);

int netpoll_target_send(struct netpoll_target *nt, const void *payload,
			int len)
{
	int err;

	if (nt->state != NETPOLL_TARGET_ENABLED || !nt->np.dev)
		return -ENETDOWN;
	if (len <= 0)
		return -EINVAL;
	if (oops_in_progress)
		return netpoll_xmit_udp(&nt->np, payload, len,
					NPT_XMIT_CRASH_TIMEOUT_US);
	/* interrupts are off: do not wait on a device that stopped */
	err = netpoll_xmit_udp(&nt->np, payload, len,
			       nt->xmit_stalls < NPT_XMIT_MAX_STALLS ?
			       NPT_XMIT_TIMEOUT_US : 0);
	if (err == -ETIMEDOUT || err == -EINPROGRESS)
		nt->xmit_stalls = min(nt->xmit_stalls + 1, NPT_XMIT_MAX_STALLS);
	else if (!err)
		nt->xmit_stalls = 0;
	/* not sent: netpoll's tx work sends it once the device takes it */
	if (err == -ETIMEDOUT || err == -EDEADLK) {
		err = netpoll_xmit_udp_park(&nt->np, payload, len);
		if (!err)
			err = -EINPROGRESS;
	}
	return err;
}
EXPORT_SYMBOL_GPL(netpoll_target_send);

/* ---------------------------------------------------------------------- */
/* command line                                                           */

/*
 * Create one DISABLED target from "[flags][port]@[ip]/[dev],..." and link
 * it, so that the netdevice notifier sees it before it is enabled.  The
 * list holds the only reference.
 */
static struct netpoll_target *npt_parse_one(struct netpoll_targets *nts,
					    char *opt)
{
	const struct netpoll_targets_ops *ops = nts->ops;
	struct netpoll_target *nt;
	char name[CONFIGFS_ITEM_NAME_LEN];
	int err;

	lockdep_assert_held(&nts->mutex);
	snprintf(name, sizeof(name), "cmdline%u", nts->next_id);
	nt = npt_alloc(nts, name);
	if (IS_ERR(nt))
		return nt;

	if (ops && ops->parse_prefix) {
		err = ops->parse_prefix(nt, opt);
		if (err < 0) {
			pr_err("%s: bad flags in target %s\n", nts->name, name);
			goto out_put;
		}
		opt += err;
	}

	err = netpoll_parse_options(&nt->np, opt);
	if (err) {
		/*
		 * netconsole without configfs fails to load with
		 * netpoll_parse_options()'s -1 (-EPERM), as upstream's.
		 */
		err = nts->netconsole_abi && nts->no_configfs ?
		      -EPERM : -EINVAL;
		goto out_put;
	}
	nts->next_id++;
	npt_link(nt);
	npt_put(nt);		/* the list holds it now */
	return nt;

out_put:
	npt_put(nt);
	return ERR_PTR(err);
}

int netpoll_targets_parse_param(struct netpoll_targets *nts, const char *param)
{
	struct netpoll_target *nt, *tmp;
	char *buf, *cur, *opt;
	LIST_HEAD(created);
	unsigned long flags;
	int err = 0, n = 0;

	buf = kstrdup(param, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;

	mutex_lock(&nts->mutex);
	cur = buf;
	while ((opt = strsep(&cur, ";")) != NULL) {
		if (!*opt)
			continue;
		nt = npt_parse_one(nts, opt);
		if (IS_ERR(nt)) {
			err = PTR_ERR(nt);
			/*
			 * netconsole with configfs skips a target it cannot
			 * parse ...
			 */
			if (nts->netconsole_abi && !nts->no_configfs &&
			    err == -EINVAL) {
				err = 0;
				continue;
			}
			break;
		}
		n++;
		err = npt_enable(nt);
		if (err) {
			pr_err("%s: cannot enable target %s: %d\n", nts->name,
			       netpoll_target_name(nt), err);
			/* ... and keeps one it cannot enable, disabled */
			if (nts->netconsole_abi && !nts->no_configfs) {
				err = 0;
				continue;
			}
			break;
		}
	}
	/*
	 * Undo this call: the last @n targets of the list (no mkdir attached
	 * them, we held the mutex).  Each is disabled while still on the
	 * list, so that the notifier never misses its device.
	 */
	if (err) {
		list_for_each_entry_safe_reverse(nt, tmp, &nts->list, list) {
			if (!n--)
				break;
			npt_disable(nt);
			spin_lock_irqsave(&nts->lock, flags);
			list_move(&nt->list, &created);
			spin_unlock_irqrestore(&nts->lock, flags);
		}
	}
	mutex_unlock(&nts->mutex);

	/* A resume work queued before the disable finds them DISABLED. */
	list_for_each_entry_safe(nt, tmp, &created, list) {
		cancel_work_sync(&nt->resume_work);
		list_del_init(&nt->list);
		npt_put(nt);
	}
	kfree(buf);
	return err ? err : n;
}
EXPORT_SYMBOL_GPL(netpoll_targets_parse_param);

/* ---------------------------------------------------------------------- */
/* registration                                                           */

int netpoll_targets_register(struct netpoll_targets *nts)
{
	struct configfs_subsystem *subsys = &nts->subsys;
	size_t n_lib = ARRAY_SIZE(npt_attrs) - 1, n_client = 0;
	int err;

	if (!nts->name || strlen(nts->name) >= CONFIGFS_ITEM_NAME_LEN)
		return -EINVAL;

	spin_lock_init(&nts->lock);
	mutex_init(&nts->mutex);
	mutex_init(&nts->pin_mutex);
	init_waitqueue_head(&nts->unpinned);
	nts->pin_gen = 0;
	INIT_LIST_HEAD(&nts->list);
	nts->next_id = 0;

	while (nts->attrs && nts->attrs[n_client])
		n_client++;
	nts->target_attrs = kcalloc(n_lib + n_client + 1,
				    sizeof(*nts->target_attrs), GFP_KERNEL);
	if (!nts->target_attrs)
		return -ENOMEM;
	memcpy(nts->target_attrs, npt_attrs, n_lib * sizeof(*npt_attrs));
	if (n_client)
		memcpy(nts->target_attrs + n_lib, nts->attrs,
		       n_client * sizeof(*nts->attrs));

	memset(&nts->target_type, 0, sizeof(nts->target_type));
	nts->target_type.ct_item_ops = &npt_item_ops;
	nts->target_type.ct_attrs = nts->target_attrs;
	nts->target_type.ct_owner = nts->owner;
	memset(&nts->subsys_type, 0, sizeof(nts->subsys_type));
	nts->subsys_type.ct_group_ops = &npt_group_ops;
	nts->subsys_type.ct_owner = nts->owner;

	memset(subsys, 0, sizeof(*subsys));
	config_group_init_type_name(&subsys->su_group, nts->name,
				    &nts->subsys_type);
	mutex_init(&subsys->su_mutex);

	nts->nb.notifier_call = npt_netdev_event;
	err = register_netdevice_notifier(&nts->nb);
	if (err)
		goto out_free_attrs;

	if (!nts->no_configfs) {
		err = configfs_register_subsystem(subsys);
		if (err)
			goto out_unregister_notifier;
	}

	WRITE_ONCE(nts->registered, true);
	return 0;

out_unregister_notifier:
	unregister_netdevice_notifier(&nts->nb);
out_free_attrs:
	kfree(nts->target_attrs);
	nts->target_attrs = NULL;
	return err;
}
EXPORT_SYMBOL_GPL(netpoll_targets_register);

void netpoll_targets_unregister(struct netpoll_targets *nts)
{
	struct netpoll_target *nt;

	if (!nts->registered)
		return;

	if (!nts->no_configfs)
		configfs_unregister_subsystem(&nts->subsys);

	/* What is left are command-line targets never shown in configfs. */
	for (;;) {
		mutex_lock(&nts->mutex);
		nt = list_first_entry_or_null(&nts->list, struct netpoll_target,
					      list);
		mutex_unlock(&nts->mutex);
		if (!nt)
			break;
		npt_unlink(nt);
	}

	/*
	 * After the last target is gone: the notifier can no longer queue
	 * resume work, and the set stays usable by a racing sender (empty
	 * list) until the client drops it.
	 */
	unregister_netdevice_notifier(&nts->nb);
	WRITE_ONCE(nts->registered, false);
	kfree(nts->target_attrs);
	nts->target_attrs = NULL;
}
EXPORT_SYMBOL_GPL(netpoll_targets_unregister);

MODULE_AUTHOR("netoops project");
MODULE_DESCRIPTION("Sets of netpoll targets configured through configfs");
MODULE_LICENSE("GPL");
