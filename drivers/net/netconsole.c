// SPDX-License-Identifier: GPL-2.0
/*
 * netconsole - kernel messages over UDP, rebuilt on netpoll_targets.
 *
 * Same user interface as the upstream 6.12 driver:
 *
 *   netconsole=[+][r][src-port]@[src-ip]/[<dev>],[tgt-port]@<tgt-ip>/[tgt-mac]
 *	several targets separated by ';'; '+' selects the extended format,
 *	'r' prepends the kernel release (extended only)
 *   oops_only=1	only send while an oops is in progress
 *
 *   /sys/kernel/config/netconsole/
 *   `-- <target>/
 *       |-- enabled, dev_name, local_port, remote_port, local_ip,
 *       |   remote_ip, local_mac, remote_mac, state   (netpoll_targets)
 *       |-- extended
 *       |-- release
 *       `-- userdata/
 *           `-- <key>/
 *               `-- value
 *
 * Extended messages are "<level>,<seq>,<ts_usec>,<flags>;<text>" as printk
 * formats them for CON_EXTENDED consoles, optionally preceded by
 * "<release>," and followed by the userdata lines " <key>=<value>\n".  A
 * message that does not fit in one 1000-byte datagram is split; every
 * fragment then carries ",ncfrag=<offset>/<total>" at the end of its header,
 * where offset and total count bytes of the text plus userdata.
 *
 * Target bookkeeping (configfs, option parsing, netdevice events, locking)
 * is in netpoll_targets; this file only formats and sends messages.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/console.h>
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/netpoll_targets.h>
#include <linux/panic.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/utsname.h>

MODULE_AUTHOR("netoops project");
MODULE_DESCRIPTION("Console driver for network interfaces");
MODULE_LICENSE("GPL");

#define NC_PARAM_LEN		256
#define NC_CHUNK		1000	/* bytes of UDP payload per datagram */
#define NC_UD_ENTRY_LEN		256	/* " key=value\n" */
#define NC_UD_VALUE_LEN		200
#define NC_UD_NAME_LEN		(NC_UD_ENTRY_LEN - NC_UD_VALUE_LEN - 3)
#define NC_UD_ITEMS		16

/*
 * In a crash a datagram may wait up to half a second for the device
 * (NPT_XMIT_CRASH_TIMEOUT_US in netpoll_targets).  After this many failed
 * datagrams in a row, a target is skipped until the crash path ends, so a
 * wedged NIC delays the reboot by at most 4 x 0.5 s = 2 s per target (plus
 * a jiffy per datagram inside netpoll), not 0.5 s per line.
 */
#define NC_CRASH_MAX_ERRORS	4

static char config[NC_PARAM_LEN];
module_param_string(netconsole, config, NC_PARAM_LEN, 0);
MODULE_PARM_DESC(netconsole,
		 " netconsole=[src-port]@[src-ip]/[dev],[tgt-port]@<tgt-ip>/[tgt-macaddr]");

static bool oops_only;
module_param(oops_only, bool, 0600);
MODULE_PARM_DESC(oops_only, "Only log oops messages");

#ifndef MODULE
static int __init option_setup(char *opt)
{
	strscpy(config, opt, NC_PARAM_LEN);
	return 1;
}
__setup("netconsole=", option_setup);
#endif

/**
 * struct nc_target - netconsole's data per target (netpoll_target_priv())
 * @nt:		the target this belongs to
 * @extended:	send the extended format; changed only while not enabled
 * @release:	prepend the kernel release; changed only while not enabled
 * @userdata_group: the userdata/ directory
 * @userdata_items: &struct nc_userdatum list; protected by the set's mutex
 * @n_userdata:	entries in @userdata_items; protected by the set's mutex
 * @userdata_len: bytes used in @userdata; protected by the set's lock
 * @crash_errors: datagrams that failed in a row while oops_in_progress;
 *		protected by the set's lock
 * @userdata:	the " key=value\n" lines appended to extended messages;
 *		protected by the set's lock (senders run under it)
 */
struct nc_target {
	struct netpoll_target	*nt;
	bool			extended;
	bool			release;
	struct config_group	userdata_group;
	struct list_head	userdata_items;
	unsigned int		n_userdata;
	size_t			userdata_len;
	unsigned int		crash_errors;
	char			userdata[NC_UD_ENTRY_LEN * NC_UD_ITEMS];
};

/**
 * struct nc_userdatum - one userdata/<key>/ directory
 * @item:	configfs item, named after the key
 * @nc:		owning target
 * @list:	entry in @nc->userdata_items
 * @value:	the value, without trailing newline; NUL-terminated
 */
struct nc_userdatum {
	struct config_item	item;
	struct nc_target	*nc;
	struct list_head	list;
	char			value[NC_UD_VALUE_LEN];
};

static struct netpoll_targets nc_targets;

static struct nc_target *to_nc(struct netpoll_target *nt)
{
	return netpoll_target_priv(nt);
}

/* ---------------------------------------------------------------------- */
/* userdata                                                               */

static struct nc_userdatum *to_userdatum(struct config_item *item)
{
	return container_of(item, struct nc_userdatum, item);
}

/* Rebuild @nc->userdata from its items.  Called with the set's mutex. */
static void nc_update_userdata(struct nc_target *nc)
{
	struct nc_userdatum *ud;
	unsigned long flags;
	size_t len = 0;
	char *buf;

	lockdep_assert_held(&nc_targets.mutex);
	buf = kzalloc(sizeof(nc->userdata), GFP_KERNEL);
	if (!buf)
		return;		/* keep the previous lines */
	list_for_each_entry(ud, &nc->userdata_items, list) {
		if (!ud->value[0])
			continue;
		len += scnprintf(buf + len, sizeof(nc->userdata) - len,
				 " %s=%s\n", config_item_name(&ud->item),
				 ud->value);
	}
	spin_lock_irqsave(&nc_targets.lock, flags);
	memcpy(nc->userdata, buf, len);
	nc->userdata_len = len;
	spin_unlock_irqrestore(&nc_targets.lock, flags);
	kfree(buf);
}

static ssize_t userdatum_value_show(struct config_item *item, char *buf)
{
	struct nc_userdatum *ud = to_userdatum(item);
	ssize_t ret;

	mutex_lock(&nc_targets.mutex);
	ret = sysfs_emit(buf, "%s\n", ud->value);
	mutex_unlock(&nc_targets.mutex);
	return ret;
}

static ssize_t userdatum_value_store(struct config_item *item, const char *buf,
				     size_t count)
{
	struct nc_userdatum *ud = to_userdatum(item);
	ssize_t len;

	/* Upstream's limits: the newline counts, the value keeps a NUL. */
	if (count > NC_UD_VALUE_LEN)
		return -EMSGSIZE;

	/* May change while enabled: the next message carries it. */
	mutex_lock(&nc_targets.mutex);
	len = strscpy(ud->value, buf, sizeof(ud->value));
	if (len < 0) {
		/*
		 * -E2BIG: as upstream, the value now holds the first
		 * NC_UD_VALUE_LEN - 1 bytes but messages keep the old lines
		 * until the next change.
		 */
		mutex_unlock(&nc_targets.mutex);
		return len;
	}
	if (len && ud->value[len - 1] == '\n')
		ud->value[len - 1] = '\0';
	nc_update_userdata(ud->nc);
	mutex_unlock(&nc_targets.mutex);
	return count;
}

CONFIGFS_ATTR(userdatum_, value);

static struct configfs_attribute *userdatum_attrs[] = {
	&userdatum_attr_value,
	NULL,
};

static void userdatum_release(struct config_item *item)
{
	kfree(to_userdatum(item));
}

static struct configfs_item_operations userdatum_item_ops = {
	.release	= userdatum_release,
};

static const struct config_item_type userdatum_type = {
	.ct_item_ops	= &userdatum_item_ops,
	.ct_attrs	= userdatum_attrs,
	.ct_owner	= THIS_MODULE,
};

static struct config_item *userdata_make_item(struct config_group *group,
					      const char *name)
{
	struct nc_target *nc = container_of(group, struct nc_target,
					    userdata_group);
	struct nc_userdatum *ud;

	if (strlen(name) > NC_UD_NAME_LEN)
		return ERR_PTR(-ENAMETOOLONG);

	mutex_lock(&nc_targets.mutex);
	if (nc->n_userdata >= NC_UD_ITEMS) {
		mutex_unlock(&nc_targets.mutex);
		return ERR_PTR(-ENOSPC);
	}
	ud = kzalloc(sizeof(*ud), GFP_KERNEL);
	if (!ud) {
		mutex_unlock(&nc_targets.mutex);
		return ERR_PTR(-ENOMEM);
	}
	config_item_init_type_name(&ud->item, name, &userdatum_type);
	ud->nc = nc;
	list_add_tail(&ud->list, &nc->userdata_items);
	nc->n_userdata++;
	mutex_unlock(&nc_targets.mutex);
	return &ud->item;
}

static void userdata_drop_item(struct config_group *group,
			       struct config_item *item)
{
	struct nc_userdatum *ud = to_userdatum(item);
	struct nc_target *nc = ud->nc;

	mutex_lock(&nc_targets.mutex);
	list_del(&ud->list);
	nc->n_userdata--;
	nc_update_userdata(nc);
	mutex_unlock(&nc_targets.mutex);
	config_item_put(item);
}

static struct configfs_group_operations userdata_group_ops = {
	.make_item	= userdata_make_item,
	.drop_item	= userdata_drop_item,
};

static const struct config_item_type userdata_type = {
	.ct_group_ops	= &userdata_group_ops,
	.ct_owner	= THIS_MODULE,
};

/* ---------------------------------------------------------------------- */
/* per-target attributes and callbacks                                    */

static ssize_t extended_show(struct config_item *item, char *buf)
{
	return sysfs_emit(buf, "%d\n", to_nc(to_netpoll_target(item))->extended);
}

/*
 * Store the extended flag, or the release flag if @release, of a target:
 * kstrtobool() as upstream, -EINVAL keeps the old value; -EBUSY while the
 * target is enabled.
 */
static ssize_t nc_flag_store(struct config_item *item, const char *buf,
			     size_t count, bool release)
{
	struct netpoll_target *nt = to_netpoll_target(item);
	bool val;
	int err;

	err = netpoll_target_config_lock(nt);
	if (err)
		return err;
	err = kstrtobool(buf, &val);
	if (!err) {
		if (release)
			to_nc(nt)->release = val;
		else
			to_nc(nt)->extended = val;
	}
	netpoll_target_config_unlock(nt);
	return err ? err : strnlen(buf, count);
}

static ssize_t extended_store(struct config_item *item, const char *buf,
			      size_t count)
{
	return nc_flag_store(item, buf, count, false);
}

static ssize_t release_show(struct config_item *item, char *buf)
{
	return sysfs_emit(buf, "%d\n", to_nc(to_netpoll_target(item))->release);
}

static ssize_t release_store(struct config_item *item, const char *buf,
			     size_t count)
{
	return nc_flag_store(item, buf, count, true);
}

CONFIGFS_ATTR(, extended);
CONFIGFS_ATTR(, release);

static struct configfs_attribute *nc_attrs[] = {
	&attr_extended,
	&attr_release,
	NULL,
};

static int nc_init(struct netpoll_target *nt)
{
	struct nc_target *nc = to_nc(nt);

	nc->nt = nt;
	nc->extended = IS_ENABLED(CONFIG_NETCONSOLE_EXTENDED_LOG);
	nc->release = IS_ENABLED(CONFIG_NETCONSOLE_PREPEND_RELEASE);
	INIT_LIST_HEAD(&nc->userdata_items);
	config_group_init_type_name(&nc->userdata_group, "userdata",
				    &userdata_type);
	configfs_add_default_group(&nc->userdata_group, &nt->group);
	return 0;
}

/* "+" (extended), then "r" (release, extended only), in that order. */
static int nc_parse_prefix(struct netpoll_target *nt, const char *opt)
{
	struct nc_target *nc = to_nc(nt);
	int n = 0;

	if (opt[n] == '+') {
		nc->extended = true;
		n++;
	}
	if (opt[n] == 'r') {
		if (!nc->extended) {
			pr_err("release requires extended log messages\n");
			return -EINVAL;
		}
		nc->release = true;
		n++;
	}
	return n;
}

static struct console nc_console_ext;
/* Both under nc_targets.mutex. */
static bool nc_ext_registered;
static bool nc_initialized;	/* the module's init registered its consoles */

/* As upstream, the extended console exists once an extended target does. */
static void nc_register_ext(void)
{
	if (!nc_ext_registered) {
		register_console(&nc_console_ext);
		nc_ext_registered = true;
	}
}

static int nc_prepare_enable(struct netpoll_target *nt)
{
	if (to_nc(nt)->release && !to_nc(nt)->extended) {
		pr_err("%s: not enabling: release requires extended log messages\n",
		       netpoll_target_name(nt));
		return -EINVAL;
	}
	/* Command-line targets: nc_module_init() registers the consoles. */
	if (to_nc(nt)->extended && nc_initialized)
		nc_register_ext();
	/* Not ENABLED yet, so no sender looks at it. */
	to_nc(nt)->crash_errors = 0;
	return 0;
}

static void nc_enabled(struct netpoll_target *nt)
{
	pr_info("%s: network logging started on %s\n",
		netpoll_target_name(nt), nt->np.dev_name);
}

static void nc_disabled(struct netpoll_target *nt)
{
	pr_info("%s: network logging stopped\n", netpoll_target_name(nt));
}

static const struct netpoll_targets_ops nc_ops = {
	.init		= nc_init,
	.parse_prefix	= nc_parse_prefix,
	.prepare_enable	= nc_prepare_enable,
	.enabled	= nc_enabled,
	.disabled	= nc_disabled,
};

static struct netpoll_targets nc_targets = {
	.name			= "netconsole",
	.owner			= THIS_MODULE,
	.ops			= &nc_ops,
	.attrs			= nc_attrs,
	.priv_size		= sizeof(struct nc_target),
	.default_local_port	= 6665,
	.default_remote_port	= 6666,
	.netconsole_abi		= true,
	.no_configfs		= !IS_ENABLED(CONFIG_NETCONSOLE_DYNAMIC),
};

/* ---------------------------------------------------------------------- */
/* sending                                                                */

struct nc_msg {
	const char	*text;
	unsigned int	len;
};

/* Datagram being built; protected by nc_targets.lock (senders hold it). */
static char nc_buf[NC_CHUNK];

/*
 * Some target reached NC_CRASH_MAX_ERRORS: written under nc_targets.lock,
 * read without it by oops_only writes, which otherwise visit no target.
 */
static bool nc_crash_latched;

static bool nc_usable(struct netpoll_target *nt)
{
	return nt->np.dev && netif_running(nt->np.dev);
}

/*
 * Whether the crash path gave up on @nt.  Outside the crash path, forget
 * its failures: the next crash tries it again.  Under the set's lock.
 */
static bool nc_crash_skip(struct netpoll_target *nt)
{
	struct nc_target *nc = to_nc(nt);

	if (!oops_in_progress) {
		nc->crash_errors = 0;
		return false;
	}
	return nc->crash_errors >= NC_CRASH_MAX_ERRORS;
}

/* Send one datagram, counting the crash path's failures in a row. */
static void nc_send(struct netpoll_target *nt, const char *buf, int len)
{
	struct nc_target *nc = to_nc(nt);

	if (!netpoll_target_send(nt, buf, len))
		nc->crash_errors = 0;
	else if (oops_in_progress &&
		 ++nc->crash_errors >= NC_CRASH_MAX_ERRORS)
		WRITE_ONCE(nc_crash_latched, true);
}

static int nc_send_basic(struct netpoll_target *nt, void *data)
{
	const struct nc_msg *m = data;
	unsigned int off, n;

	if (nc_crash_skip(nt) || to_nc(nt)->extended || !nc_usable(nt))
		return 0;
	/* Keep sending to this target even if one chunk fails. */
	for (off = 0; off < m->len && !nc_crash_skip(nt); off += n) {
		n = min(m->len - off, NC_CHUNK);
		nc_send(nt, m->text + off, n);
	}
	return 0;
}

/* Copy @n bytes at @off of the concatenation @a (@a_len bytes) + @b. */
static void nc_copy_concat(char *dst, const char *a, size_t a_len,
			   const char *b, size_t off, size_t n)
{
	size_t from_a = 0;

	if (off < a_len) {
		from_a = min(n, a_len - off);
		memcpy(dst, a + off, from_a);
		off = 0;
	} else {
		off -= a_len;
	}
	memcpy(dst + from_a, b + off, n - from_a);
}

static void nc_send_ext_one(struct netpoll_target *nt, const char *msg,
			    size_t len)
{
	struct nc_target *nc = to_nc(nt);
	const char *release = nc->release ? init_utsname()->release : "";
	size_t rel_len = nc->release ? strlen(release) + 1 : 0;
	size_t prefix, pos, hdr_len, body_len, total, off, n;
	const char *body;

	if (rel_len + len + nc->userdata_len <= NC_CHUNK) {
		/*
		 * Byte for byte as upstream, whose string copies stop at
		 * byte 999: with the release, a 1000-byte datagram ends in a
		 * NUL instead of the text's last byte; the userdata is cut
		 * at byte 999.
		 */
		if (nc->release) {
			pos = scnprintf(nc_buf, NC_CHUNK, "%s,", release);
			n = min(len, NC_CHUNK - 1 - pos);
			memcpy(nc_buf + pos, msg, n);
			nc_buf[pos + n] = '\0';
			pos += len;
		} else {
			memcpy(nc_buf, msg, len);
			pos = len;
		}
		if (pos < NC_CHUNK) {
			n = min(nc->userdata_len, NC_CHUNK - 1 - pos);
			memcpy(nc_buf + pos, nc->userdata, n);
			pos += n;
		}
		nc_send(nt, nc_buf, pos);
		return;
	}

	/* Too long: "<release>,<header>,ncfrag=<off>/<total>;<part>" */
	body = memchr(msg, ';', len);
	if (!body)
		return;
	hdr_len = body - msg;
	body++;
	body_len = len - hdr_len - 1;
	total = body_len + nc->userdata_len;

	/* room for the header, ",ncfrag=N/N;" and at least some text */
	if (rel_len + hdr_len + 32 >= NC_CHUNK)
		return;
	prefix = scnprintf(nc_buf, NC_CHUNK, "%s%s", release,
			   nc->release ? "," : "");
	memcpy(nc_buf + prefix, msg, hdr_len);
	prefix += hdr_len;

	for (off = 0; off < total && !nc_crash_skip(nt); off += n) {
		pos = prefix + scnprintf(nc_buf + prefix, NC_CHUNK - prefix,
					 ",ncfrag=%zu/%zu;", off, total);
		n = min(NC_CHUNK - pos, total - off);
		nc_copy_concat(nc_buf + pos, body, body_len, nc->userdata,
			       off, n);
		nc_send(nt, nc_buf, pos + n);
	}
}

static int nc_send_ext(struct netpoll_target *nt, void *data)
{
	const struct nc_msg *m = data;

	if (nc_crash_skip(nt) || !to_nc(nt)->extended || !nc_usable(nt))
		return 0;
	nc_send_ext_one(nt, m->text, m->len);
	return 0;
}

static int nc_crash_unlatch(struct netpoll_target *nt, void *data)
{
	to_nc(nt)->crash_errors = 0;
	WRITE_ONCE(nc_crash_latched, false);
	return 0;
}

static void nc_write_msg(netpoll_target_fn fn, const char *text,
			 unsigned int len)
{
	struct nc_msg m = { .text = text, .len = len };

	if (oops_only && !oops_in_progress) {
		/* Nothing to send, but the crash path is over. */
		if (READ_ONCE(nc_crash_latched))
			netpoll_targets_walk_enabled(&nc_targets,
						     nc_crash_unlatch,
						     NULL, 0);
		return;
	}
	netpoll_targets_walk_enabled(&nc_targets, fn, &m, 0);
}

static void nc_write(struct console *con, const char *text, unsigned int len)
{
	nc_write_msg(nc_send_basic, text, len);
}

static void nc_write_ext(struct console *con, const char *text,
			 unsigned int len)
{
	nc_write_msg(nc_send_ext, text, len);
}

static struct console nc_console = {
	.name	= "netcon",
	.flags	= CON_ENABLED,
	.write	= nc_write,
};

static struct console nc_console_ext = {
	.name	= "netcon_ext",
	.flags	= CON_ENABLED | CON_EXTENDED,
	.write	= nc_write_ext,
};

/* Note which consoles the command-line targets need. */
static int nc_note_kind(struct netpoll_target *nt, void *data)
{
	bool *kinds = data;

	kinds[to_nc(nt)->extended] = true;
	return 0;
}

static int __init nc_module_init(void)
{
	bool kinds[2] = { false, false };
	int err;

	err = netpoll_targets_register(&nc_targets);
	if (err)
		return err;

	if (config[0]) {
		err = netpoll_targets_parse_param(&nc_targets, config);
		if (err < 0)
			goto out_unregister_targets;
	}

	/*
	 * As upstream: command-line targets, enabled or not, get the log so
	 * far, like a boot console, and the extended console is registered
	 * only for an extended target.
	 */
	netpoll_targets_walk_enabled(&nc_targets, nc_note_kind, kinds,
				     NETPOLL_TARGETS_ALL);
	if (kinds[0])
		nc_console.flags |= CON_PRINTBUFFER;
	mutex_lock(&nc_targets.mutex);
	if (kinds[1]) {
		nc_console_ext.flags |= CON_PRINTBUFFER;
		nc_register_ext();
	}
	register_console(&nc_console);
	nc_initialized = true;
	mutex_unlock(&nc_targets.mutex);
	pr_info("network logging started\n");
	return 0;

out_unregister_targets:
	netpoll_targets_unregister(&nc_targets);
	pr_err("cleaning up\n");
	return err;
}

static void __exit nc_module_exit(void)
{
	unregister_console(&nc_console);
	if (nc_ext_registered)
		unregister_console(&nc_console_ext);
	netpoll_targets_unregister(&nc_targets);
}

/*
 * Use late_initcall to ensure netconsole is initialized after network
 * device drivers when built in.
 */
late_initcall(nc_module_init);
module_exit(nc_module_exit);
