// SPDX-License-Identifier: GPL-2.0
/*
 * netoops configfs: the target set (through netpoll_targets) and the user
 * fields of each target.
 *
 *   /sys/kernel/config/netoops/
 *   `-- <target>/			mkdir: a new target (netpoll_targets)
 *       |-- enabled, dev_name, remote_ip, remote_port, ...
 *       `-- userfields/		default group of every target
 *           `-- <key>/			mkdir: a new field; key must match
 *               `-- value		  [A-Za-z0-9_.-]{1,63}
 *					  write: 0..255 bytes (a trailing
 *					  newline is dropped)
 *
 * User fields hang below each target, so their names can never collide
 * with target directories, and each collector may get its own fields (a
 * site id for one, a ticket queue for another).  Every dump sent to a
 * target carries that target's fields as NETOOPS_TLV_USER records, in the
 * order the fields were created.  Fields may be changed while the target is
 * enabled: they are metadata, not sending parameters.
 *
 * The fields of one target together take at most NETOOPS_USERFIELDS_BUDGET
 * bytes on the wire, so they always fit in the first datagram: a mkdir or
 * a value that would exceed it is refused with -ENOSPC.
 */
#include <linux/configfs.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/netpoll_targets.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>

#include "netoops_enc.h"
#include "netoops_internal.h"

/**
 * struct netoops_target_priv - netoops' part of a target
 * @uf_group:	the "userfields" default group
 * @uf_lock:	protects @uf_list, every field's value and @uf_bytes.  A
 *		spinlock taken with interrupts off because dumps read the
 *		fields from any context; they only try it.
 * @uf_list:	the fields, in creation order
 * @uf_bytes:	wire bytes the fields take (NETOOPS_TLV_SPACE of each)
 */
struct netoops_target_priv {
	struct config_group	uf_group;
	spinlock_t		uf_lock;	/* see above: crash path trylocks */
	struct list_head	uf_list;
	size_t			uf_bytes;
};

/**
 * struct netoops_ufield - one user field
 * @item:	configfs item; its name is the key
 * @node:	entry in &netoops_target_priv.uf_list, under uf_lock
 * @tp:		the target part this field belongs to
 * @key_len:	strlen of the key
 * @value_len:	bytes of @value (no NUL counted)
 * @value:	the value, NUL-terminated; under uf_lock
 */
struct netoops_ufield {
	struct config_item		item;
	struct list_head		node;
	struct netoops_target_priv	*tp;
	size_t				key_len;
	size_t				value_len;
	char				value[NETOOPS_USER_VALUE_MAX + 1];
};

static size_t netoops_ufield_space(size_t key_len, size_t value_len)
{
	return NETOOPS_TLV_SPACE(key_len + 1 + value_len);
}

static struct netoops_ufield *to_netoops_ufield(struct config_item *item)
{
	return container_of(item, struct netoops_ufield, item);
}

static ssize_t netoops_ufield_value_show(struct config_item *item, char *buf)
{
	struct netoops_ufield *uf = to_netoops_ufield(item);
	unsigned long flags;
	ssize_t n;

	spin_lock_irqsave(&uf->tp->uf_lock, flags);
	n = sysfs_emit(buf, "%s\n", uf->value);
	spin_unlock_irqrestore(&uf->tp->uf_lock, flags);
	return n;
}

static ssize_t netoops_ufield_value_store(struct config_item *item,
					  const char *buf, size_t count)
{
	struct netoops_ufield *uf = to_netoops_ufield(item);
	struct netoops_target_priv *tp = uf->tp;
	size_t len = count, bytes;
	unsigned long flags;
	int ret = count;

	if (len && buf[len - 1] == '\n')
		len--;
	if (len > NETOOPS_USER_VALUE_MAX || memchr(buf, '\0', len))
		return -EINVAL;

	spin_lock_irqsave(&tp->uf_lock, flags);
	bytes = tp->uf_bytes - netoops_ufield_space(uf->key_len, uf->value_len) +
		netoops_ufield_space(uf->key_len, len);
	if (bytes > NETOOPS_USERFIELDS_BUDGET) {
		ret = -ENOSPC;
	} else {
		memcpy(uf->value, buf, len);
		uf->value[len] = '\0';
		uf->value_len = len;
		tp->uf_bytes = bytes;
	}
	spin_unlock_irqrestore(&tp->uf_lock, flags);
	return ret;
}

CONFIGFS_ATTR(netoops_ufield_, value);

static struct configfs_attribute *netoops_ufield_attrs[] = {
	&netoops_ufield_attr_value,
	NULL,
};

static void netoops_ufield_release(struct config_item *item)
{
	kfree(to_netoops_ufield(item));
}

static struct configfs_item_operations netoops_ufield_item_ops = {
	.release	= netoops_ufield_release,
};

static const struct config_item_type netoops_ufield_type = {
	.ct_item_ops	= &netoops_ufield_item_ops,
	.ct_attrs	= netoops_ufield_attrs,
	.ct_owner	= THIS_MODULE,
};

static struct netoops_target_priv *to_netoops_tp(struct config_group *group)
{
	return container_of(group, struct netoops_target_priv, uf_group);
}

static struct config_item *netoops_uf_make_item(struct config_group *group,
						const char *name)
{
	struct netoops_target_priv *tp = to_netoops_tp(group);
	size_t key_len = strlen(name), space;
	struct netoops_ufield *uf;
	unsigned long flags;

	if (!netoops_user_key_valid(name, key_len))
		return ERR_PTR(-EINVAL);
	uf = kzalloc(sizeof(*uf), GFP_KERNEL);
	if (!uf)
		return ERR_PTR(-ENOMEM);
	uf->tp = tp;
	uf->key_len = key_len;
	config_item_init_type_name(&uf->item, name, &netoops_ufield_type);

	space = netoops_ufield_space(key_len, 0);
	spin_lock_irqsave(&tp->uf_lock, flags);
	if (tp->uf_bytes + space > NETOOPS_USERFIELDS_BUDGET) {
		spin_unlock_irqrestore(&tp->uf_lock, flags);
		kfree(uf);
		return ERR_PTR(-ENOSPC);
	}
	tp->uf_bytes += space;
	list_add_tail(&uf->node, &tp->uf_list);
	spin_unlock_irqrestore(&tp->uf_lock, flags);
	return &uf->item;
}

static void netoops_uf_drop_item(struct config_group *group,
				 struct config_item *item)
{
	struct netoops_target_priv *tp = to_netoops_tp(group);
	struct netoops_ufield *uf = to_netoops_ufield(item);
	unsigned long flags;

	spin_lock_irqsave(&tp->uf_lock, flags);
	list_del(&uf->node);
	tp->uf_bytes -= netoops_ufield_space(uf->key_len, uf->value_len);
	spin_unlock_irqrestore(&tp->uf_lock, flags);
	config_item_put(item);
}

static struct configfs_group_operations netoops_uf_group_ops = {
	.make_item	= netoops_uf_make_item,
	.drop_item	= netoops_uf_drop_item,
};

static const struct config_item_type netoops_uf_group_type = {
	.ct_group_ops	= &netoops_uf_group_ops,
	.ct_owner	= THIS_MODULE,
};

static int netoops_nt_init(struct netpoll_target *nt)
{
	struct netoops_target_priv *tp = netpoll_target_priv(nt);

	spin_lock_init(&tp->uf_lock);
	INIT_LIST_HEAD(&tp->uf_list);
	config_group_init_type_name(&tp->uf_group, "userfields",
				    &netoops_uf_group_type);
	configfs_add_default_group(&tp->uf_group, &nt->group);
	return 0;
}

static const struct netpoll_targets_ops netoops_nt_ops = {
	.init	= netoops_nt_init,
};

static struct netpoll_targets netoops_targets = {
	.name			= "netoops",
	.owner			= THIS_MODULE,
	.ops			= &netoops_nt_ops,
	.priv_size		= sizeof(struct netoops_target_priv),
	.default_local_port	= NETOOPS_DEFAULT_PORT - 1,
	.default_remote_port	= NETOOPS_DEFAULT_PORT,
};

/**
 * netoops_put_userfields() - append a target's user fields to a dump
 * @nt:		the target
 * @b:		metadata being built
 * @crash:	crash path: only try the fields' lock
 *
 * Context: any, called with the targets' lock held.  If the lock of the
 * fields cannot be taken at once, the dump goes without them.
 *
 * Return: 0, -EBUSY if the fields were skipped, or the encoder's error.
 */
int netoops_put_userfields(struct netpoll_target *nt,
			   struct netoops_tlv_buf *b, bool crash)
{
	struct netoops_target_priv *tp = netpoll_target_priv(nt);
	struct netoops_ufield *uf;
	unsigned long flags;

	if (crash) {
		if (!spin_trylock_irqsave(&tp->uf_lock, flags))
			return -EBUSY;
	} else {
		spin_lock_irqsave(&tp->uf_lock, flags);
	}
	list_for_each_entry(uf, &tp->uf_list, node)
		netoops_tlv_put_user(b, config_item_name(&uf->item), uf->value);
	spin_unlock_irqrestore(&tp->uf_lock, flags);
	return netoops_tlv_error(b);
}

/**
 * netoops_for_each_target() - run @fn on every enabled netoops target
 * @fn:		callback, with the targets' lock held and interrupts off
 * @data:	its cookie
 * @crash:	crash path: the lock is only tried (about a millisecond)
 *
 * Return: targets visited, or -EBUSY if the lock could not be taken.
 */
int netoops_for_each_target(netpoll_target_fn fn, void *data, bool crash)
{
	return netpoll_targets_for_each_enabled(&netoops_targets, fn, data,
						crash ? NETPOLL_TARGETS_CRASH : 0);
}

int netoops_cfs_init(const char *cmdline_targets)
{
	int ret;

	ret = netpoll_targets_register(&netoops_targets);
	if (ret)
		return ret;
	if (cmdline_targets && *cmdline_targets) {
		ret = netpoll_targets_parse_param(&netoops_targets,
						  cmdline_targets);
		if (ret < 0) {
			netpoll_targets_unregister(&netoops_targets);
			return ret;
		}
	}
	return 0;
}

void netoops_cfs_exit(void)
{
	netpoll_targets_unregister(&netoops_targets);
}
