// SPDX-License-Identifier: GPL-2.0
/*
 * netoops configfs: the target set (through netpoll_targets) and the user
 * fields of each target.
 *
 *   /sys/kernel/config/netoops/
 *   `-- <target>/			mkdir: a new target (netpoll_targets)
 *       |-- enabled, dev_name, remote_ip, remote_port, ...
 *       |-- auth_key			0200: "ID:HEX" sets the MAC key, ""
 *       |				  or "none" removes it; never readable
 *       |-- auth_key_id			0444: the key id, or "none"
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
 *
 * With a key, every datagram sent to the target carries a NETOOPS_TLV_MAC:
 * HMAC-SHA256 truncated to 16 bytes (include/uapi/linux/netoops.h).  The
 * key is written as netoopsd's --key takes it, "ID:HEX": a key id (u32,
 * decimal or 0x-hex) and 16 to 64 key bytes in hex.  A bad value is
 * refused with -EINVAL and the old key kept; any change while the target
 * is enabled is refused with -EBUSY, like the other sending parameters.
 * The key never leaves the kernel: it is only kept inside the keyed
 * crypto transform, whose memory is zeroed when it is freed.
 */
#include <crypto/hash.h>
#include <crypto/sha2.h>
#include <linux/configfs.h>
#include <linux/err.h>
#include <linux/irq_work.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/netpoll_targets.h>
#include <linux/netpoll_xmit.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include "netoops_enc.h"
#include "netoops_internal.h"

/**
 * struct netoops_auth - the MAC key of a target, ready for the crash path
 * @tfm:	hmac(sha256-generic) transform, keyed
 * @desc:	descriptor for @tfm with room for its state, preallocated so
 *		that computing a MAC allocates nothing; crash dumps' (under the
 *		set's lock)
 * @soft_desc:	the same for soft dumps (under netoops' soft-dump mutex)
 * @key_id:	sent in every MAC TLV
 */
struct netoops_auth {
	struct crypto_shash	*tfm;
	struct shash_desc	*desc;
	struct shash_desc	*soft_desc;
	u32			key_id;
};

/**
 * struct netoops_target_priv - netoops' part of a target
 * @uf_group:	the "userfields" default group
 * @uf_lock:	protects @uf_list, every field's value and @uf_bytes.  A
 *		spinlock taken with interrupts off because dumps read the
 *		fields from any context; they only try it.
 * @uf_list:	the fields, in creation order
 * @uf_bytes:	wire bytes the fields take (NETOOPS_TLV_SPACE of each)
 * @auth:	the MAC key, or NULL.  Replaced only with the set's mutex held
 *		and the target not enabled (netpoll_target_config_lock()),
 *		read by senders only while the target is enabled, under the
 *		set's lock; so a sender never sees it change, and the set's
 *		lock also gives it the only use of @auth->desc.  Readers
 *		in process context (auth_key_id) hold @auth_mutex.
 * @auth_mutex:	held by auth_key while it replaces @auth and by
 *		auth_key_id while it reads it
 * @pool:	the skbs dumps to this target are sent in, allocated when it
 *		is enabled (see netoops_target_pool_want())
 * @refill_work: refills @pool in process context after a dump used it
 * @refill_irq: queues @refill_work from a crash path that may survive (an
 *		oops): irq_work is the only deferral safe there
 */
struct netoops_target_priv {
	struct config_group	uf_group;
	spinlock_t		uf_lock;	/* see above: crash path trylocks */
	struct list_head	uf_list;
	size_t			uf_bytes;
	struct netoops_auth	*auth;
	struct mutex		auth_mutex;	/* see above */
	struct netpoll_xmit_pool pool;
	struct work_struct	refill_work;
	struct irq_work		refill_irq;
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

/* ---- MAC key --------------------------------------------------------- */

static void netoops_auth_free(struct netoops_auth *a)
{
	if (!a)
		return;
	/* the descriptors hold hash state derived from the key */
	kfree_sensitive(a->desc);
	kfree_sensitive(a->soft_desc);
	/* frees the keyed context with kfree_sensitive() too */
	crypto_free_shash(a->tfm);
	kfree_sensitive(a);
}

/*
 * The generic C SHA-256 on purpose: it never touches the FPU, so it is
 * usable from any context, NMI included (the x86 SIMD drivers fall back to
 * it there, but may warn in NMI context first).
 */
static struct netoops_auth *netoops_auth_alloc(u32 key_id, const u8 *key,
					       size_t len)
{
	struct netoops_auth *a;
	int err;

	a = kzalloc(sizeof(*a), GFP_KERNEL);
	if (!a)
		return ERR_PTR(-ENOMEM);
	a->key_id = key_id;
	a->tfm = crypto_alloc_shash("hmac(sha256-generic)", 0, 0);
	if (IS_ERR(a->tfm)) {
		err = PTR_ERR(a->tfm);
		a->tfm = NULL;
		goto fail;
	}
	err = -EINVAL;
	if (crypto_shash_digestsize(a->tfm) != SHA256_DIGEST_SIZE)
		goto fail;
	err = crypto_shash_setkey(a->tfm, key, len);
	if (err)
		goto fail;
	err = -ENOMEM;
	a->desc = kzalloc(sizeof(*a->desc) + crypto_shash_descsize(a->tfm),
			  GFP_KERNEL);
	a->soft_desc = kzalloc(sizeof(*a->soft_desc) +
			       crypto_shash_descsize(a->tfm), GFP_KERNEL);
	if (!a->desc || !a->soft_desc)
		goto fail;
	a->desc->tfm = a->tfm;
	a->soft_desc->tfm = a->tfm;
	return a;
fail:
	netoops_auth_free(a);
	return ERR_PTR(err);
}

/*
 * The MAC callback of the encoder; @ctx is the descriptor of the caller's
 * path (see &netoops_auth).  crypto_shash_digest() on a preallocated
 * descriptor of a synchronous hmac(sha256-generic) runs plain C over the
 * caller's buffers: no allocation, no sleeping, no lock, no FPU; legal in
 * panic, hard-irq and NMI context.
 */
static int netoops_auth_mac(void *ctx, const void *buf, size_t len,
			    u8 mac[NETOOPS_MAC_LEN])
{
	struct shash_desc *desc = ctx;
	u8 full[SHA256_DIGEST_SIZE];
	int err;

	err = crypto_shash_digest(desc, buf, len, full);
	if (!err)
		memcpy(mac, full, NETOOPS_MAC_LEN);
	memzero_explicit(full, sizeof(full));
	return err;
}

/**
 * netoops_target_auth() - sign a target's dumps if it has a key
 * @nt:		an enabled target, from a netoops_walk_targets() callback
 * @o:		encoder options: mac, mac_ctx and key_id are set, or left
 *		as they are when the target has no key
 * @soft:	for a soft dump, which has a descriptor of its own
 *
 * Context: any, with the targets' lock held; for a soft dump, process
 * context with the target pinned and the soft-dump mutex held.
 */
void netoops_target_auth(struct netpoll_target *nt,
			 struct netoops_enc_opts *o, bool soft)
{
	struct netoops_target_priv *tp = netpoll_target_priv(nt);
	struct netoops_auth *a = tp->auth;

	if (!a)
		return;
	o->mac = netoops_auth_mac;
	o->mac_ctx = soft ? a->soft_desc : a->desc;
	o->key_id = a->key_id;
}

/*
 * "ID:HEX" -> key id and key bytes; "" or "none" -> no key (*len = 0).
 * @buf has no NUL necessarily; @count excludes a trailing newline.
 */
static int netoops_auth_parse(const char *buf, size_t count, u32 *key_id,
			      u8 key[NETOOPS_AUTH_KEY_MAX], size_t *len)
{
	const char *colon, *hex;
	char id[16];
	size_t n;

	*len = 0;
	if (!count || (count == 4 && !memcmp(buf, "none", 4)))
		return 0;
	colon = memchr(buf, ':', count);
	if (!colon || colon == buf || colon - buf >= sizeof(id))
		return -EINVAL;
	memcpy(id, buf, colon - buf);
	id[colon - buf] = '\0';
	if (kstrtou32(id, 0, key_id))
		return -EINVAL;
	hex = colon + 1;
	n = count - (hex - buf);
	if (n % 2 || n / 2 < NETOOPS_AUTH_KEY_MIN ||
	    n / 2 > NETOOPS_AUTH_KEY_MAX)
		return -EINVAL;
	if (hex2bin(key, hex, n / 2)) {
		memzero_explicit(key, NETOOPS_AUTH_KEY_MAX);
		return -EINVAL;
	}
	*len = n / 2;
	return 0;
}

static ssize_t netoops_auth_key_store(struct config_item *item,
				      const char *buf, size_t count)
{
	struct netpoll_target *nt = to_netpoll_target(item);
	struct netoops_target_priv *tp = netpoll_target_priv(nt);
	struct netoops_auth *a = NULL, *old;
	u8 key[NETOOPS_AUTH_KEY_MAX];
	size_t n = count, len;
	u32 key_id = 0;
	int err;

	if (n && buf[n - 1] == '\n')
		n--;
	err = netoops_auth_parse(buf, n, &key_id, key, &len);
	if (err)
		return err;
	if (len) {
		a = netoops_auth_alloc(key_id, key, len);
		memzero_explicit(key, sizeof(key));
		if (IS_ERR(a))
			return PTR_ERR(a);
	}
	err = netpoll_target_config_lock(nt);
	if (err) {
		netoops_auth_free(a);
		return err;
	}
	mutex_lock(&tp->auth_mutex);
	old = tp->auth;
	tp->auth = a;
	mutex_unlock(&tp->auth_mutex);
	netpoll_target_config_unlock(nt);
	netoops_auth_free(old);
	return count;
}

static ssize_t netoops_auth_key_id_show(struct config_item *item, char *buf)
{
	struct netpoll_target *nt = to_netpoll_target(item);
	struct netoops_target_priv *tp = netpoll_target_priv(nt);
	ssize_t n;

	mutex_lock(&tp->auth_mutex);
	if (tp->auth)
		n = sysfs_emit(buf, "%u\n", tp->auth->key_id);
	else
		n = sysfs_emit(buf, "none\n");
	mutex_unlock(&tp->auth_mutex);
	return n;
}

/* Write-only (0200, no show): the key can be set, never read back. */
CONFIGFS_ATTR_WO(netoops_, auth_key);
CONFIGFS_ATTR_RO(netoops_, auth_key_id);

static struct configfs_attribute *netoops_target_attrs[] = {
	&netoops_attr_auth_key,
	&netoops_attr_auth_key_id,
	NULL,
};

static void netoops_refill_work(struct work_struct *work)
{
	struct netoops_target_priv *tp =
		container_of(work, struct netoops_target_priv, refill_work);

	netpoll_xmit_pool_fill(&tp->pool);
}

static void netoops_refill_irq(struct irq_work *work)
{
	struct netoops_target_priv *tp =
		container_of(work, struct netoops_target_priv, refill_irq);

	schedule_work(&tp->refill_work);
}

/**
 * netoops_target_pool() - the skbs of a target
 * @nt:		the target
 *
 * Return: its pool.
 */
struct netpoll_xmit_pool *netoops_target_pool(struct netpoll_target *nt)
{
	struct netoops_target_priv *tp = netpoll_target_priv(nt);

	return &tp->pool;
}

/**
 * netoops_target_refill() - have a target's pool refilled after an oops
 * @nt:		the target
 *
 * Context: any, including the crash path: only queues an irq_work, which
 * schedules the refill once interrupts are on again.
 */
void netoops_target_refill(struct netpoll_target *nt)
{
	struct netoops_target_priv *tp = netpoll_target_priv(nt);

	irq_work_queue(&tp->refill_irq);
}

/* Size the pool for @nt's device and the current parameters. */
static void netoops_target_resize(struct netpoll_target *nt)
{
	struct netoops_target_priv *tp = netpoll_target_priv(nt);
	unsigned int pkt, want;

	want = netoops_target_pool_want(nt, &pkt);
	if (want > NETOOPS_POOL_SLOTS)
		pr_warn("%s: %u skbs wanted for two full dumps, %u kept: lower record_size or fec_m\n",
			netpoll_target_name(nt), want, NETOOPS_POOL_SLOTS);
	netpoll_xmit_pool_size(&tp->pool, want, &nt->np, pkt);
}

/* Resize, and refill from a work item.  Context: any but the crash path. */
static void netoops_nt_dev_changed(struct netpoll_target *nt)
{
	struct netoops_target_priv *tp = netpoll_target_priv(nt);

	netoops_target_resize(nt);
	schedule_work(&tp->refill_work);
}

static int netoops_target_resize_fn(struct netpoll_target *nt, void *data)
{
	netoops_nt_dev_changed(nt);
	return 0;
}

/**
 * netoops_resize_pools() - resize every enabled target's pool
 *
 * For a change of the FEC parameters: the pools are refilled by work.
 * Context: process.
 */
void netoops_resize_pools(void)
{
	netoops_walk_targets(netoops_target_resize_fn, NULL, false);
}

static void netoops_nt_enabled(struct netpoll_target *nt)
{
	struct netoops_target_priv *tp = netpoll_target_priv(nt);

	netoops_target_resize(nt);
	if (netpoll_xmit_pool_fill(&tp->pool))
		pr_warn("%s: only %u of %u skbs for dumps could be allocated\n",
			netpoll_target_name(nt),
			netpoll_xmit_pool_avail(&tp->pool), tp->pool.want);
}

/* A disabled target keeps no skbs: no sender can see it any more. */
static void netoops_nt_disabled(struct netpoll_target *nt)
{
	struct netoops_target_priv *tp = netpoll_target_priv(nt);

	netpoll_xmit_pool_size(&tp->pool, 0, &nt->np, 0);
	cancel_work_sync(&tp->refill_work);
	netpoll_xmit_pool_fill(&tp->pool);
}

static int netoops_nt_init(struct netpoll_target *nt)
{
	struct netoops_target_priv *tp = netpoll_target_priv(nt);
	int ret;

	ret = netpoll_xmit_pool_init(&tp->pool, NETOOPS_POOL_SLOTS);
	if (ret)
		return ret;
	INIT_WORK(&tp->refill_work, netoops_refill_work);
	init_irq_work(&tp->refill_irq, netoops_refill_irq);
	spin_lock_init(&tp->uf_lock);
	mutex_init(&tp->auth_mutex);
	INIT_LIST_HEAD(&tp->uf_list);
	config_group_init_type_name(&tp->uf_group, "userfields",
				    &netoops_uf_group_type);
	configfs_add_default_group(&tp->uf_group, &nt->group);
	return 0;
}

static void netoops_nt_release(struct netpoll_target *nt)
{
	struct netoops_target_priv *tp = netpoll_target_priv(nt);

	netoops_auth_free(tp->auth);
	tp->auth = NULL;
	irq_work_sync(&tp->refill_irq);
	cancel_work_sync(&tp->refill_work);
	netpoll_xmit_pool_destroy(&tp->pool);
}

static const struct netpoll_targets_ops netoops_nt_ops = {
	.init		= netoops_nt_init,
	.release	= netoops_nt_release,
	.enabled	= netoops_nt_enabled,
	.disabled	= netoops_nt_disabled,
	.dev_changed	= netoops_nt_dev_changed,
};

static struct netpoll_targets netoops_targets = {
	.name			= "netoops",
	.owner			= THIS_MODULE,
	.ops			= &netoops_nt_ops,
	.attrs			= netoops_target_attrs,
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
 * netoops_walk_targets() - run @fn on every enabled netoops target
 * @fn:		callback, with the targets' lock held and interrupts off
 * @data:	its cookie
 * @crash:	crash path: the lock is only tried (about a millisecond)
 *
 * Return: targets visited, or -EBUSY if the lock could not be taken.
 */
int netoops_walk_targets(netpoll_target_fn fn, void *data, bool crash)
{
	return netpoll_targets_walk_enabled(&netoops_targets, fn, data,
					    crash ? NETPOLL_TARGETS_CRASH : 0);
}

/**
 * netoops_walk_targets_pinned() - run @fn on every enabled target, in
 *	process context and without the targets' lock
 * @fn:		callback; may sleep, turns interrupts off around each send
 * @data:	its cookie
 *
 * Return: targets visited.
 */
int netoops_walk_targets_pinned(netpoll_target_fn fn, void *data)
{
	return netpoll_targets_walk_enabled_pinned(&netoops_targets, fn,
						   data);
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
