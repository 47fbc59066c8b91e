/* SPDX-License-Identifier: GPL-2.0 */
/*
 * netpoll_targets - sets of netpoll destinations configured through configfs
 * or a module/boot parameter, shared by netconsole and netoops.
 *
 * A client owns one static &struct netpoll_targets (a "set"), fills in its
 * name, ports, callbacks and extra attributes, and calls
 * netpoll_targets_register().  The library then provides:
 *
 *   /sys/kernel/config/<name>/<target>/
 *	enabled		0/1; writing the current value fails with -EINVAL
 *	state		read-only: disabled, setting-up, enabled, cleaning,
 *			deactivated
 *	dev_name	local interface (refused with -EBUSY while enabled)
 *	local_port, remote_port, local_ip, remote_ip, remote_mac
 *	local_mac	read-only, MAC of the interface once enabled
 *	<client attributes and default groups>
 *
 * Targets given on the command line (netpoll_targets_parse_param()) are
 * named "cmdline<N>"; creating a configfs directory with that name attaches
 * the existing target to configfs instead of creating a new one.
 *
 * The library follows every netdevice the set sends through: a renamed
 * device updates dev_name, an unregistered one moves its targets to
 * DEACTIVATED (they resume when a device of that name comes up again), and
 * a device enslaved to a bond or bridge (NETDEV_JOIN/NETDEV_RELEASE) moves
 * its targets to DISABLED.
 */
#ifndef _LINUX_NETPOLL_TARGETS_H
#define _LINUX_NETPOLL_TARGETS_H

#include <linux/configfs.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/netpoll.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

struct netpoll_targets;
struct netpoll_target;

/**
 * enum netpoll_target_state - life cycle of one target
 * @NETPOLL_TARGET_DISABLED:	configured, not sending; attributes writable
 * @NETPOLL_TARGET_SETTING_UP:	netpoll_setup() in progress (process context)
 * @NETPOLL_TARGET_ENABLED:	sending; attributes refused with -EBUSY
 * @NETPOLL_TARGET_CLEANING:	netpoll cleanup in progress (process context)
 * @NETPOLL_TARGET_DEACTIVATED:	the device was unregistered while enabled;
 *				netpoll is cleaned up and the target resumes
 *				(back to ENABLED) when a device named dev_name
 *				comes up again.  Attributes are writable.
 *
 * Only ENABLED targets are handed to senders.  SETTING_UP and CLEANING are
 * the states in which netpoll_setup()/netpoll cleanup run, always in process
 * context with no spinlock held; senders skip such targets, so the netpoll
 * structure is never used while it is being built or torn down.
 */
enum netpoll_target_state {
	NETPOLL_TARGET_DISABLED,
	NETPOLL_TARGET_SETTING_UP,
	NETPOLL_TARGET_ENABLED,
	NETPOLL_TARGET_CLEANING,
	NETPOLL_TARGET_DEACTIVATED,
};

/**
 * struct netpoll_target - one destination of a set
 * @nts:	the set this target belongs to
 * @list:	entry in @nts->list; protected by @nts->lock
 * @group:	configfs group of the target (also for command-line targets,
 *		whose group is only linked into configfs once the user
 *		creates a directory of the same name)
 * @np:		the netpoll destination.  Written only with @nts->mutex held
 *		and the target not ENABLED; read by senders only while
 *		ENABLED, under @nts->lock
 * @state:	&enum netpoll_target_state; written under @nts->lock (and,
 *		except by the netdev notifier, with @nts->mutex held)
 * @pinned:	process-context senders using the target without @nts->lock
 *		(netpoll_targets_walk_enabled_pinned()); under @nts->lock
 * @pin_gen:	the last pinned walk that visited the target; under @nts->lock
 * @xmit_stalls: datagrams in a row whose device did not drain netpoll's
 *		backlog in time, outside a crash; under @nts->lock
 * @in_configfs: the target is visible in configfs; protected by @nts->mutex
 * @resume_work: re-enables a DEACTIVATED target in process context
 * @flags:	free for the client (e.g. netconsole's extended/release);
 *		written with @nts->mutex held and the target not ENABLED
 * @priv:	client-private data, &netpoll_targets.priv_size bytes, zeroed;
 *		see netpoll_target_priv()
 *
 * The target is reference counted through @group.cg_item: the set's list
 * holds one reference, configfs another while the directory exists.
 */
struct netpoll_target {
	struct netpoll_targets		*nts;
	struct list_head		list;
	struct config_group		group;
	struct netpoll			np;
	enum netpoll_target_state	state;
	unsigned int			pinned;
	unsigned int			pin_gen;
	unsigned int			xmit_stalls;
	bool				in_configfs;
	struct work_struct		resume_work;
	unsigned long			flags;
	unsigned long			priv[] __aligned(sizeof(u64));
};

/**
 * struct netpoll_targets_ops - client callbacks; all optional
 * @init:	a target was allocated (zeroed priv, defaults applied,
 *		@nt->group initialised).  Add default groups here with
 *		configfs_add_default_group().  Process context.  A non-zero
 *		return aborts the creation.
 * @release:	the last reference to the target is gone; free what @init
 *		allocated.  Process context.
 * @parse_prefix: parse the client's flags at the start of one
 *		command-line target ("+r6665@..." for netconsole).  Return the
 *		number of characters consumed, or -EINVAL.  Without it, a
 *		target has no flags.
 * @prepare_enable: the user asked to enable @nt; return an error to refuse
 *		(e.g. inconsistent client options).  Called with
 *		@nts->mutex held.
 * @enabled:	@nt has just become ENABLED (also after a resume).  Called
 *		in process context without @nts->lock.
 * @disabled:	@nt has just left ENABLED (DISABLED or DEACTIVATED).
 *		Called in process context (possibly under RTNL from the
 *		netdev notifier) without @nts->lock.
 * @dev_changed: the MTU of an ENABLED @nt's device changed.  Called under
 *		RTNL and @nts->lock: must not sleep.
 */
struct netpoll_targets_ops {
	int	(*init)(struct netpoll_target *nt);
	void	(*release)(struct netpoll_target *nt);
	int	(*parse_prefix)(struct netpoll_target *nt, const char *opt);
	int	(*prepare_enable)(struct netpoll_target *nt);
	void	(*enabled)(struct netpoll_target *nt);
	void	(*disabled)(struct netpoll_target *nt);
	void	(*dev_changed)(struct netpoll_target *nt);
};

/**
 * struct netpoll_targets - a set of targets, owned by one client
 * @name:	configfs subsystem name (/sys/kernel/config/<name>/) and prefix
 *		of messages; at most 19 characters.  Set by the client.
 * @owner:	client module (THIS_MODULE).  Set by the client.
 * @ops:	client callbacks, may be NULL.  Set by the client.
 * @attrs:	NULL-terminated array of extra per-target configfs attributes,
 *		may be NULL.  Set by the client.  Their store methods that
 *		change sending parameters should use
 *		netpoll_target_config_lock().
 * @priv_size:	bytes of client data per target.  Set by the client.
 * @default_local_port: local UDP port of new targets.  Set by the client.
 * @default_remote_port: remote UDP port of new targets.  Set by the client.
 * @netconsole_abi: configfs and the parameter behave as upstream
 *		netconsole's do (netpoll_targets.rst lists the rules); else
 *		the library's stricter rules apply.  Set by the client.
 * @no_configfs: no configfs subsystem: the targets come from
 *		netpoll_targets_parse_param() only.  Set by the client.
 * @lock:	protects @list and every target's @state.  A spinlock taken
 *		with interrupts off because senders run from printk and
 *		pstore in any context; crash-path senders only ever try it
 *		(netpoll_targets_walk_enabled()).
 * @mutex:	serialises configuration: configfs stores, enable/disable,
 *		mkdir/rmdir, resume.  Lock order: @mutex, then RTNL, then
 *		@lock.  Never taken by the netdev notifier (which runs under
 *		RTNL).
 * @list:	all targets of the set; protected by @lock (writers also hold
 *		@mutex)
 * @next_id:	number of the next command-line target; protected by @mutex
 * @subsys:	the configfs subsystem
 * @target_type: item type of the targets (library + client attributes)
 * @subsys_type: item type of the subsystem directory
 * @target_attrs: the merged attribute array of @target_type
 * @nb:		netdevice notifier
 * @unpinned:	where disabling a target waits until no process-context
 *		sender has it pinned (netpoll_targets_walk_enabled_pinned())
 * @pin_mutex:	one pinned walk at a time
 * @pin_gen:	number of the current pinned walk; protected by @lock
 * @registered:	netpoll_targets_register() succeeded
 */
struct netpoll_targets {
	const char			*name;
	struct module			*owner;
	const struct netpoll_targets_ops *ops;
	struct configfs_attribute	**attrs;
	size_t				priv_size;
	u16				default_local_port;
	u16				default_remote_port;
	bool				netconsole_abi;
	bool				no_configfs;

	/* private to the library */
	spinlock_t			lock;	/* senders vs state, see above */
	struct mutex			mutex;	/* configuration, see above */
	struct list_head		list;
	unsigned int			next_id;
	struct configfs_subsystem	subsys;
	struct config_item_type		target_type;
	struct config_item_type		subsys_type;
	struct configfs_attribute	**target_attrs;
	struct notifier_block		nb;
	wait_queue_head_t		unpinned;
	struct mutex			pin_mutex;	/* one pinned walk at a time */
	unsigned int			pin_gen;
	bool				registered;
};

/**
 * typedef netpoll_target_fn - callback of netpoll_targets_walk_enabled()
 * @nt:		an ENABLED target
 * @data:	the caller's cookie
 *
 * From netpoll_targets_walk_enabled(), runs with &netpoll_targets.lock
 * held and interrupts disabled: must not sleep, allocate with GFP_KERNEL,
 * or take &netpoll_targets.mutex.  From
 * netpoll_targets_walk_enabled_pinned(), runs in process context.
 *
 * Return: 0 to continue, non-zero to stop the iteration.
 */
typedef int (*netpoll_target_fn)(struct netpoll_target *nt, void *data);

/* flags of netpoll_targets_walk_enabled() */
#define NETPOLL_TARGETS_CRASH	0x1	/* crash path: only try the lock */
#define NETPOLL_TARGETS_ALL	0x2	/* every target, whatever its state */

/**
 * netpoll_targets_register() - set up a set and its configfs subsystem
 * @nts:	the set, with the client fields filled in
 *
 * Registers the configfs subsystem /sys/kernel/config/@nts->name/ and the
 * netdevice notifier.  Process context.
 *
 * Return: 0 or a negative errno.
 */
int netpoll_targets_register(struct netpoll_targets *nts);

/**
 * netpoll_targets_unregister() - tear a set down
 * @nts:	a registered set
 *
 * Removes the configfs subsystem (configfs pins @nts->owner while target
 * directories exist, so a client module cannot be unloaded before they are
 * removed), disables every remaining (command-line) target, waits for
 * pending work and frees the targets.  After it returns no callback of
 * @nts runs.  Process context.
 */
void netpoll_targets_unregister(struct netpoll_targets *nts);

/**
 * netpoll_targets_parse_param() - create and enable command-line targets
 * @nts:	a registered set
 * @param:	";"-separated list of
 *		"[flags][src-port]@[src-ip]/[<dev>],[tgt-port]@<tgt-ip>/[tgt-mac]"
 *		where the flags are parsed by &netpoll_targets_ops.parse_prefix
 *
 * Targets are named cmdline0, cmdline1, ... and enabled at once.  Process
 * context.  On error, the targets created by this call are removed.  With
 * &netpoll_targets.netconsole_abi and configfs, a target that does not
 * parse is skipped and one that cannot be enabled is kept, disabled; only
 * -ENOMEM is then an error.  With &netpoll_targets.netconsole_abi and
 * &netpoll_targets.no_configfs, a target that does not parse fails the
 * call with -EPERM, as netconsole without CONFIG_NETCONSOLE_DYNAMIC.
 *
 * Return: the number of targets created, or a negative errno.
 */
int netpoll_targets_parse_param(struct netpoll_targets *nts, const char *param);

/**
 * netpoll_targets_walk_enabled() - call @fn for every ENABLED target
 * @nts:	the set
 * @fn:		callback, see &netpoll_target_fn
 * @data:	cookie for @fn
 * @flags:	0, or NETPOLL_TARGETS_CRASH from a crash path; with
 *		NETPOLL_TARGETS_ALL, targets in every state are visited (for
 *		bookkeeping: @fn must not send to a target that is not
 *		ENABLED)
 *
 * Safe from any context in which printk may call a console: takes
 * &netpoll_targets.lock with interrupts disabled.  With
 * NETPOLL_TARGETS_CRASH, or whenever oops_in_progress is set, the lock is
 * only tried, for a bounded time (about a millisecond), because the crashed
 * context or a stopped CPU may hold it; then the targets are skipped.  Never
 * allocates, never sleeps, never prints.
 *
 * Return: the number of targets visited, or -EBUSY if the lock could not
 * be taken.
 */
int netpoll_targets_walk_enabled(struct netpoll_targets *nts,
				 netpoll_target_fn fn, void *data,
				 unsigned int flags);

/**
 * netpoll_targets_walk_enabled_pinned() - call @fn for every ENABLED
 *	target, without the set's lock
 * @nts:	the set
 * @fn:		callback; runs in process context with interrupts on and may
 *		sleep.  It must turn interrupts off around each send.
 * @data:	cookie for @fn
 *
 * For long sends that must not keep interrupts off or the set locked (a
 * requested dump): each target is pinned while @fn runs, so its netpoll
 * stays set up; disabling it, or removing its device, waits until @fn
 * returns.  Targets enabled during the walk may be skipped.
 *
 * Context: process, may sleep.
 *
 * Return: the number of targets visited.
 */
int netpoll_targets_walk_enabled_pinned(struct netpoll_targets *nts,
					netpoll_target_fn fn, void *data);

/**
 * netpoll_target_send() - send one UDP datagram to a target
 * @nt:		an ENABLED target, from a &netpoll_target_fn callback
 * @payload:	the UDP payload, prepared by the caller
 * @len:	its length, at most the interface MTU minus IP/UDP headers
 *
 * Uses the reliable transmit of netpoll_xmit (bounded waits while polling
 * the device, so that a panic does not lose its tail).  The wait is 500 ms
 * per datagram with oops_in_progress, else 20 ms, and none once 4
 * datagrams in a row were not taken in time, until one is again.  Outside
 * a crash, a datagram the device did not take in time, or that a lock
 * held by this CPU kept from the driver, is left to netpoll's tx work
 * (netpoll_xmit_udp_park()), which sends it once the device takes it.
 * netpoll allocates the skb (GFP_ATOMIC, else from its pool), or, for a
 * parked datagram, netpoll_xmit_udp_park() does (GFP_NOWAIT, no pool); no
 * sleeping, no printk.  Must be called with interrupts disabled (as
 * inside netpoll_targets_walk_enabled()), not from NMI outside a crash.
 *
 * Return: 0 if the datagram was handed to the device, or a negative errno
 * (-ENETDOWN when the target is not usable, -EDEADLK when a lock the
 * driver takes is stuck, -ETIMEDOUT when the device did not take it,
 * -EINPROGRESS when it is in netpoll's backlog; outside a crash,
 * -ENODEV, -ENOBUFS or -EBUSY when it could not be left there either).
 */
int netpoll_target_send(struct netpoll_target *nt, const void *payload,
			int len);

/**
 * netpoll_target_config_lock() - begin a configuration change of a target
 * @nt:		the target
 *
 * For client attribute stores: takes &netpoll_targets.mutex and refuses
 * the change if the target is ENABLED (or being set up or cleaned).
 *
 * Return: 0 with the mutex held, or -EBUSY without it.
 */
int netpoll_target_config_lock(struct netpoll_target *nt);

/**
 * netpoll_target_config_unlock() - end a change begun by
 *	netpoll_target_config_lock()
 * @nt:		the target
 */
void netpoll_target_config_unlock(struct netpoll_target *nt);

/**
 * netpoll_target_strtobool() - parse a boolean attribute value, strictly
 * @buf:	what userspace wrote (one trailing newline allowed)
 * @res:	the value, set only on success
 *
 * Whole words only: 1, 0, y, n, yes, no, on, off, true, false, in any case.
 * kstrtobool() reads the first character alone and so takes "10" or "yes
 * please"; an operator's typo must be refused, not half-understood.
 *
 * Return: 0, or -EINVAL (@res untouched).
 */
int netpoll_target_strtobool(const char *buf, bool *res);

/**
 * netpoll_target_state_name() - printable name of a state
 * @state:	a state
 *
 * Return: "disabled", "setting-up", "enabled", "cleaning" or
 * "deactivated".
 */
const char *netpoll_target_state_name(enum netpoll_target_state state);

/**
 * to_netpoll_target() - the target of a configfs item
 * @item:	the item of a target directory (as passed to show/store)
 *
 * Return: the target.
 */
static inline struct netpoll_target *to_netpoll_target(struct config_item *item)
{
	return container_of(to_config_group(item), struct netpoll_target,
			    group);
}

/**
 * netpoll_target_priv() - client-private data of a target
 * @nt:		the target
 *
 * Return: &netpoll_targets.priv_size bytes, zeroed at allocation.
 */
static inline void *netpoll_target_priv(struct netpoll_target *nt)
{
	return nt->priv;
}

/**
 * netpoll_target_name() - name of a target ("cmdline0" or the directory)
 * @nt:		the target
 *
 * Return: the name.
 */
static inline const char *netpoll_target_name(struct netpoll_target *nt)
{
	return config_item_name(&nt->group.cg_item);
}

#endif /* _LINUX_NETPOLL_TARGETS_H */
